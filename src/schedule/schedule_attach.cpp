// Where stages are computed: compute_at, compute_inline, compute_root.
#include <unordered_set>

#include "schedule/schedule.h"
#include "support/error.h"

namespace tessel::schedule {

bool Schedule::depends_on(const Stage& consumer, const Stage& producer) const {
  std::vector<const Stage*> work{&consumer};
  std::unordered_set<const Stage*> seen;
  while (!work.empty()) {
    const Stage* s = work.back();
    work.pop_back();
    for (const te::Tensor& input : s->op->inputs) {
      const Stage* p = stage_of(input.op().get());
      TESSEL_ICHECK(p, "stage '", s->name, "' reads tensor '", input.name(), "' of no stage");
      if (p == &producer) return true;
      if (seen.insert(p).second) work.push_back(p);
    }
  }
  return false;
}

void Schedule::compute_at(const StageRef& stage_ref, const StageRef& target_ref, std::string loop) {
  Stage& s = compute_stage(stage_ref, "compute_at");
  const Stage& target = compute_stage(target_ref, "compute_at");
  if (s.is_output)
    throw ScheduleError(s.name, loop, "compute_at: an output stage is computed at the root");
  if (&target == &s)
    throw ScheduleError(s.name, loop, "compute_at: a stage cannot be computed inside itself");
  if (target.attach == AttachKind::Inline)
    throw ScheduleError(s.name, loop, "compute_at: target stage '" + target.name + "' is inlined");
  if (!target.find_loop(loop))
    throw ScheduleError(target.name, loop,
                        "compute_at of stage '" + s.name + "': target stage '" + target.name +
                            "' has no such loop");
  check_leaf(target, loop);
  if (!depends_on(target, s))
    throw ScheduleError(s.name, loop,
                        "compute_at: target stage '" + target.name + "' does not consume '" +
                            s.name + "', directly or through other stages");
  s.attach = AttachKind::At;
  s.attach_stage = target.name;
  s.attach_loop = loop;
  record("compute_at", {{"stage", s.name}, {"target", target.name}, {"loop", loop}});
}

void Schedule::compute_inline(const StageRef& ref) {
  Stage& s = compute_stage(ref, "compute_inline");
  if (s.is_output)
    throw ScheduleError(s.name, "", "compute_inline: an output stage cannot be inlined");
  if (s.op->has_reduction())
    throw ScheduleError(s.name, s.op->reduce_axis[0].var.name(),
                        "compute_inline: a reduction cannot be inlined");
  if (s.op->num_outputs() != 1)
    throw ScheduleError(s.name, "",
                        "compute_inline: a stage with several outputs cannot be inlined");
  for (const Stage& other : stages_)
    if (other.attach == AttachKind::At && other.attach_stage == s.name)
      throw ScheduleError(s.name, other.attach_loop,
                          "compute_inline: stage '" + other.name +
                              "' is computed at this loop; it would lose its place");
  s.attach = AttachKind::Inline;
  s.attach_stage.clear();
  s.attach_loop.clear();
  record("compute_inline", {{"stage", s.name}});
}

void Schedule::compute_root(const StageRef& ref) {
  Stage& s = compute_stage(ref, "compute_root");
  s.attach = AttachKind::Root;
  s.attach_stage.clear();
  s.attach_loop.clear();
  record("compute_root", {{"stage", s.name}});
}

}  // namespace tessel::schedule
