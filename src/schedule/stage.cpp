// Stage construction and loop lookups.
#include "schedule/stage.h"

#include <algorithm>

#include "support/error.h"

namespace tessel::schedule {

const Loop* Stage::find_loop(const std::string& loop) const {
  for (const Loop& l : loops)
    if (l.name == loop) return &l;
  return nullptr;
}

Loop* Stage::find_loop(const std::string& loop) {
  for (Loop& l : loops)
    if (l.name == loop) return &l;
  return nullptr;
}

int Stage::leaf_position(const std::string& loop) const {
  auto it = std::find(leaves.begin(), leaves.end(), loop);
  return it == leaves.end() ? -1 : static_cast<int>(it - leaves.begin());
}

bool Stage::is_transformed() const {
  if (!relations.empty() || leaves != roots || !prefetches.empty()) return true;
  return std::any_of(loops.begin(), loops.end(),
                     [](const Loop& l) { return l.for_kind != ir::ForKind::Serial; });
}

Stage make_stage(const te::Operation& op) {
  Stage s;
  s.name = op->name;
  s.op = op;
  for (const auto* axes : {&op->axis, &op->reduce_axis}) {
    for (const ir::IterVar& iv : *axes) {
      s.loops.push_back(Loop{iv.var.name(), iv.kind, ir::ForKind::Serial});
      s.roots.push_back(iv.var.name());
    }
  }
  s.leaves = s.roots;
  return s;
}

const ir::IterVar& root_iter_var(const Stage& stage, size_t index) {
  const auto& axis = stage.op->axis;
  if (index < axis.size()) return axis[index];
  TESSEL_ICHECK(index - axis.size() < stage.op->reduce_axis.size(), "stage '", stage.name,
                "' has no root loop ", index);
  return stage.op->reduce_axis[index - axis.size()];
}

}  // namespace tessel::schedule
