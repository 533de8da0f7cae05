// Layout resolution: validation, physical shape and index mappings.
#include "schedule/layout.h"

#include <algorithm>

#include "arith/analyzer.h"
#include "schedule/loop_nest.h"
#include "support/error.h"

namespace tessel::schedule {

using ir::Expr;

LayoutMap::LayoutMap(const Layout& layout, const std::vector<Expr>& shape,
                     const std::vector<std::string>& axis_names, const std::string& stage)
    : logical_rank_(shape.size()), padded_(shape.size(), false) {
  TESSEL_ICHECK(axis_names.size() == shape.size(), "layout of '", stage, "': names/shape");
  const int rank = static_cast<int>(shape.size());
  std::vector<int64_t> factor(shape.size(), 0);
  for (const Layout::Split& s : layout.splits) {
    if (s.dim < 0 || s.dim >= rank)
      throw ScheduleError(
          stage, "",
          detail::concat("layout splits dimension ", s.dim, " of a ", rank, "-d tensor"));
    if (s.factor <= 0)
      throw ScheduleError(stage, axis_names[s.dim],
                          detail::concat("layout split factor must be positive, got ", s.factor));
    if (factor[s.dim] != 0)
      throw ScheduleError(stage, axis_names[s.dim],
                          detail::concat("layout splits dimension ", s.dim, " twice"));
    factor[s.dim] = s.factor;
  }
  std::vector<Axis> unordered;
  for (int d = 0; d < rank; ++d) {
    if (factor[d] == 0) {
      unordered.push_back({d, Part::Whole, 1});
    } else {
      unordered.push_back({d, Part::Outer, factor[d]});
      unordered.push_back({d, Part::Inner, factor[d]});
    }
  }
  std::vector<int> order = layout.order;
  if (order.empty())
    for (size_t i = 0; i < unordered.size(); ++i) order.push_back(static_cast<int>(i));
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  bool permutation = sorted.size() == unordered.size();
  for (size_t i = 0; permutation && i < sorted.size(); ++i)
    permutation = sorted[i] == static_cast<int>(i);
  if (!permutation)
    throw ScheduleError(
        stage, "",
        detail::concat("layout order must be a permutation of the ", unordered.size(),
                       " axes after splitting, got ", order.size(), " entries"));
  arith::Analyzer analyzer;
  for (int i : order) {
    const Axis& a = unordered[i];
    axes_.push_back(a);
    const std::string& name = axis_names[a.dim];
    if (a.part == Part::Whole) {
      physical_shape_.push_back(shape[a.dim]);
      physical_names_.push_back(name);
    } else if (a.part == Part::Outer) {
      physical_shape_.push_back(
          analyzer.simplify((shape[a.dim] + ir::make_int(a.factor - 1)) / ir::make_int(a.factor)));
      physical_names_.push_back(name + ".outer");
      padded_[a.dim] = !divides(a.factor, shape[a.dim], analyzer);
    } else {
      physical_shape_.push_back(ir::make_int(a.factor));
      physical_names_.push_back(name + ".inner");
    }
  }
}

bool LayoutMap::exact() const {
  return std::find(padded_.begin(), padded_.end(), true) == padded_.end();
}

bool LayoutMap::padded(int dim) const {
  return padded_.at(dim);
}

std::vector<Expr> LayoutMap::to_physical(const std::vector<Expr>& logical) const {
  TESSEL_ICHECK(logical.size() == logical_rank_, "layout: ", logical.size(), " indices for rank ",
                logical_rank_);
  std::vector<Expr> out;
  for (const Axis& a : axes_) {
    const Expr& x = logical[a.dim];
    if (a.part == Part::Whole)
      out.push_back(x);
    else if (a.part == Part::Outer)
      out.push_back(x / ir::make_int(a.factor));
    else
      out.push_back(x % ir::make_int(a.factor));
  }
  return out;
}

std::vector<Expr> LayoutMap::to_logical(const std::vector<Expr>& physical) const {
  TESSEL_ICHECK(physical.size() == axes_.size(), "layout: ", physical.size(), " indices for ",
                axes_.size(), " physical axes");
  std::vector<Expr> outer(logical_rank_), inner(logical_rank_), out(logical_rank_);
  for (size_t i = 0; i < axes_.size(); ++i) {
    const Axis& a = axes_[i];
    if (a.part == Part::Whole)
      out[a.dim] = physical[i];
    else if (a.part == Part::Outer)
      outer[a.dim] = physical[i];
    else
      inner[a.dim] = physical[i];
  }
  for (const Axis& a : axes_)
    if (a.part == Part::Outer) out[a.dim] = outer[a.dim] * ir::make_int(a.factor) + inner[a.dim];
  return out;
}

}  // namespace tessel::schedule
