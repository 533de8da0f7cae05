// Vector indices as one scalar plus a constant offset per lane. A vectorized load whose
// index is `base + offsets[l]` with every lane inside one aligned run of the buffer reads
// that run whole and permutes it (codegen), instead of gathering lane by lane: the lanes of
// a grouped convolution reading their own group's channels, (kk / 4) * 4 + j, are such an
// index. A clamped index (a padding stage's) reads that way where its clamps do not act.
#pragma once

#include <optional>
#include <vector>

#include "arith/linear_form.h"
#include "ir/expr.h"

namespace tessel::arith {

/// index[l] == base + offsets[l] for every lane l; base.constant is always 0 (constants
/// are in the offsets).
struct LaneOffsets {
  LinearForm base;
  std::vector<int64_t> offsets;
};

/// The lanes of an integer vector index made of ramps of constant stride, broadcasts and
/// scalars by +, -, * by a constant, and floor / and % by a positive constant whose
/// dividend's scalar part is a multiple of it; nullopt for any other index.
std::optional<LaneOffsets> lane_offsets(const ir::Expr& index);

/// A vector index without its clamps, and the scalar condition under which no clamp acts.
struct UnclampedIndex {
  ir::Expr index;     ///< equal to the clamped index in every lane where `in_range` holds
  ir::Expr in_range;  ///< a scalar bool
};

/// `index` with its lane-dependent clamps removed: each min(e, hi) and max(e, lo) (either
/// order of operands) of a vector e that lane_offsets splits and a bound the same in every
/// lane becomes e, on the condition that e's lowest lane is at least lo / its highest at
/// most hi. The zero-padding stages of convolutions read their data at
/// max(min(x - pad, w - 1), 0): with x in the vector's lanes, only the vectors at the row's
/// ends are clamped, and the others read one contiguous run. nullopt when `index` has no
/// such clamp.
std::optional<UnclampedIndex> strip_lane_clamps(const ir::Expr& index);

}  // namespace tessel::arith
