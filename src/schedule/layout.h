// Storage layouts for cache stages: split some dimensions by a factor, then permute.
//
// Over a logical shape [d0, d1, ...], each split dimension d becomes two physical axes
// (d / f, d % f) in place of d; `order` then permutes the resulting axes (physical axis i
// is pre-permutation axis order[i]). Example: B[K][N] packed as Bp[N/16][K][16] is
// Layout{}.split(1, 16).reorder({1, 0, 2}). A split that does not divide its dimension
// pads it up to a multiple of the factor.
#pragma once

#include <string>
#include <vector>

#include "ir/expr.h"

namespace tessel::schedule {

struct Layout {
  struct Split {
    int dim = 0;
    int64_t factor = 1;
  };
  std::vector<Split> splits;
  /// A permutation of the axes after splitting; empty keeps their order.
  std::vector<int> order;

  bool empty() const { return splits.empty() && order.empty(); }
  Layout& split(int dim, int64_t factor) {
    splits.push_back({dim, factor});
    return *this;
  }
  Layout& reorder(std::vector<int> permutation) {
    order = std::move(permutation);
    return *this;
  }
};

/// A layout resolved against a logical shape.
class LayoutMap {
 public:
  /// Checks `layout` against `shape` (ScheduleError naming `stage` when it is malformed)
  /// and names the physical axes after `axis_names` ("<name>.outer" / "<name>.inner" for
  /// a split dimension).
  LayoutMap(const Layout& layout, const std::vector<ir::Expr>& shape,
            const std::vector<std::string>& axis_names, const std::string& stage);

  const std::vector<ir::Expr>& physical_shape() const { return physical_shape_; }
  const std::vector<std::string>& physical_names() const { return physical_names_; }
  /// Physical indices of a logical element.
  std::vector<ir::Expr> to_physical(const std::vector<ir::Expr>& logical) const;
  /// Logical indices of a physical element.
  std::vector<ir::Expr> to_logical(const std::vector<ir::Expr>& physical) const;
  /// Whether every split divides its dimension (no padding).
  bool exact() const;
  /// Whether logical dimension `dim` is split by a factor that may not divide it.
  bool padded(int dim) const;

 private:
  enum class Part : uint8_t { Whole, Outer, Inner };
  struct Axis {
    int dim;
    Part part;
    int64_t factor;
  };
  std::vector<Axis> axes_;  // physical order
  std::vector<ir::Expr> physical_shape_;
  std::vector<std::string> physical_names_;
  size_t logical_rank_ = 0;
  std::vector<bool> padded_;  // per logical dimension
};

}  // namespace tessel::schedule
