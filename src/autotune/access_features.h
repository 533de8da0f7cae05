// Memory-access features of one statement of a loop nest, for the cost model: for each
// buffer element the statement reads or writes, how many distinct bytes the nest touches, how
// far apart consecutive iterations of the innermost loop access memory, and how the nest
// reuses what it touched (the reuse analysis of Ansor's features).
//
// An access is the index of a Load or the Store of the statement; the nest is its enclosing
// loops, outermost first. An index "uses" a loop when the loop's variable appears in it.
//  - unique bytes at a loop level: the product of the extents of the loops at that level or
//    deeper that the index uses, times the element size (exact for indices affine in
//    independent loops, an upper bound otherwise);
//  - innermost stride: elements between the accesses of consecutive innermost iterations,
//    through the buffer's row-major shape; 0 when the index does not use the innermost loop;
//    kUnknownStride when the loop's variable sits in a non-linear term (a division, say);
//  - reuse: the innermost loop (of more than one iteration) the index does not use carries
//    the reuse: its extent is the
//    reuse count (how many times each element is touched again), and the bytes every access
//    of the statement touches in one iteration of it is the reuse distance (what passes
//    through the caches between two touches of an element). No such loop: no reuse.
#pragma once

#include <vector>

#include "ir/stmt.h"

namespace tessel::autotune {

/// A loop enclosing the statement.
struct NestLoop {
  ir::Var var;
  double extent = 1;
};

/// The stride reported when it cannot be computed.
inline constexpr double kUnknownStride = 1 << 20;

struct AccessFeatures {
  bool is_store = false;
  double unique_bytes = 0;  ///< distinct bytes over the whole nest
  double inner_bytes = 0;   ///< distinct bytes over the innermost loop
  double stride = 0;        ///< elements between consecutive innermost iterations (absolute)
  double reuse_count = 0;   ///< extent of the loop carrying reuse (0: none)
  double reuse_bytes = 0;   ///< bytes the statement touches between two reuses (0: none)
};

/// The features of `store`'s accesses under `loops` (outermost first): the store's first,
/// then its value's loads in the order they appear.
std::vector<AccessFeatures> access_features(const ir::StoreNode* store,
                                            const std::vector<NestLoop>& loops);

}  // namespace tessel::autotune
