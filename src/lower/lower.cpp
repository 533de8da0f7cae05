// lower(): the straight pipeline from a schedule to a PrimFunc.
//   parameters -> stages (inlined bodies, consumers) -> attachments -> bounds (consumers
//   first) -> storage -> statements.
#include "lower/lower.h"

#include <algorithm>
#include <unordered_set>

#include "lower/bound.h"
#include "lower/emit.h"
#include "lower/inline.h"
#include "support/error.h"

namespace tessel::lower {
namespace {

using ir::Expr;
using schedule::AttachKind;
using schedule::Stage;

/// One parameter buffer per argument; placeholders are registered in `state`. Returns the
/// buffers and, per compute stage, the parameter of each output (undefined if none).
std::vector<ir::Buffer> make_params(
    LowerState& state, const std::vector<te::Tensor>& args,
    std::unordered_map<const Stage*, std::vector<ir::Buffer>>& compute_params) {
  std::vector<ir::Buffer> params;
  std::unordered_set<std::string> seen;
  for (const te::Tensor& arg : args) {
    if (!arg.defined()) TESSEL_USER_ERROR("lower: an argument tensor is undefined");
    const Stage* stage = state.schedule.stage_of(arg.op().get());
    if (!stage)
      TESSEL_USER_ERROR("lower: argument '", arg.name(), "' is not a tensor of the schedule");
    if (!seen.insert(arg.name()).second)
      TESSEL_USER_ERROR("lower: argument '", arg.name(), "' is listed twice");
    if (!stage->is_placeholder() && stage->attach != AttachKind::Root)
      throw ScheduleError(stage->name, stage->attach_loop,
                          "the stage is a function argument, so it must be computed at the root "
                          "(it is inlined or computed at another stage)");
    ir::Buffer buffer = ir::Buffer::make(arg.name(), arg.dtype(), arg.shape());
    auto& slots = stage->is_placeholder() ? state.placeholder_params[stage] : compute_params[stage];
    slots.resize(stage->op->num_outputs());
    slots[arg.value_index()] = buffer;
    params.push_back(buffer);
  }
  for (const te::Tensor& out : state.schedule.outputs())
    if (!seen.count(out.name()))
      TESSEL_USER_ERROR("lower: output tensor '", out.name(), "' is not among the arguments");
  return params;
}

/// A StageInfo for each stage that gets a loop nest, with its consumers.
void collect_stages(LowerState& state) {
  Inliner inliner(state.schedule);
  for (const Stage& s : state.schedule.stages()) {
    if (s.is_placeholder() || s.attach == AttachKind::Inline) continue;
    auto info = std::make_unique<StageInfo>();
    info->stage = &s;
    info->bodies = inliner.bodies(s);
    state.info_of[&s] = info.get();
    state.infos.push_back(std::move(info));
  }
  for (const auto& consumer : state.infos) {
    for (const te::Tensor& t : te::tensors_read(consumer->bodies)) {
      auto it = state.info_of.find(state.schedule.stage_of(t.op().get()));
      if (it == state.info_of.end()) continue;  // a placeholder
      auto& list = it->second->consumers;
      if (std::find(list.begin(), list.end(), consumer.get()) == list.end())
        list.push_back(consumer.get());
    }
  }
}

/// Whether `consumer` reads `producer`, directly or through other stages.
bool consumes(const StageInfo& consumer, const StageInfo& producer) {
  std::vector<const StageInfo*> work{&producer};
  std::unordered_set<const StageInfo*> seen{&producer};
  while (!work.empty()) {
    const StageInfo* s = work.back();
    work.pop_back();
    for (const StageInfo* c : s->consumers) {
      if (c == &consumer) return true;
      if (seen.insert(c).second) work.push_back(c);
    }
  }
  return false;
}

/// Resolves compute_at attachments; ScheduleError when one cannot hold.
void link_attachments(LowerState& state) {
  for (size_t i = 0; i < state.infos.size(); ++i) {
    StageInfo& info = *state.infos[i];
    const Stage& s = *info.stage;
    if (s.attach != AttachKind::At) continue;
    const Stage& target = state.schedule.stage(s.attach_stage);
    auto it = state.info_of.find(&target);
    if (it == state.info_of.end())
      throw ScheduleError(s.name, s.attach_loop,
                          "compute_at: target stage '" + target.name + "' is inlined");
    StageInfo* t = it->second;
    int leaf = target.leaf_position(s.attach_loop);
    if (leaf < 0)
      throw ScheduleError(s.name, s.attach_loop,
                          "compute_at: loop '" + s.attach_loop + "' is no longer a leaf loop of '" +
                              target.name + "'");
    if (!consumes(*t, info))
      throw ScheduleError(s.name, s.attach_loop,
                          "compute_at: target stage '" + target.name + "' does not consume '" +
                              s.name + "', directly or through other stages");
    info.attach_target = t;
    info.attach_leaf = leaf;
  }
}

/// Bounds, loop nests and root values of every stage, consumers first.
void infer_bounds(LowerState& state) {
  for (auto it = state.infos.rbegin(); it != state.infos.rend(); ++it) {
    StageInfo& info = **it;
    if (const StageInfo* t = info.attach_target) {
      info.outer_vars = t->outer_vars;
      info.outer_vars.insert(info.outer_vars.end(), t->nest.leaf_vars.begin(),
                             t->nest.leaf_vars.begin() + info.attach_leaf + 1);
    }
    infer_root_ranges(info, state);
    info.nest = schedule::derive_loop_nest(*info.stage, info.root_extent, state.analyzer);
    for (size_t l = 0; l < info.nest.leaf_vars.size(); ++l)
      state.loop_extent[info.nest.leaf_vars[l].get()] = info.nest.leaf_extents[l];
    info.root_value.clear();
    for (size_t r = 0; r < info.root_min.size(); ++r)
      info.root_value.push_back(
          state.analyzer.simplify(info.root_min[r] + info.nest.root_offsets[r]));
  }
}

/// Allocation size of one dimension: a constant upper bound of the extent when known.
Expr storage_extent(const Expr& extent, LowerState& state) {
  arith::ConstBound b = state.analyzer.const_bound(extent);
  if (b.max != arith::ConstBound::kPosInf && b.max >= 1) return ir::make_int(b.max);
  return extent;
}

void assign_storage(LowerState& state,
                    const std::unordered_map<const Stage*, std::vector<ir::Buffer>>& params) {
  for (const auto& info : state.infos) {
    const te::OperationNode& op = *info->stage->op;
    const bool attached = info->attach_target != nullptr;
    std::vector<Expr> shape;
    for (size_t d = 0; d < op.axis.size(); ++d) {
      shape.push_back(attached ? storage_extent(info->root_extent[d], state) : op.shape[d]);
      info->storage_offset.push_back(attached ? info->root_min[d] : ir::make_int(0));
    }
    auto param = params.find(info->stage);
    for (int o = 0; o < op.num_outputs(); ++o) {
      bool is_param = param != params.end() && param->second[o].defined();
      info->buffers.push_back(is_param ? param->second[o]
                                       : ir::Buffer::make(op.output_names[o], op.output_dtypes[o],
                                                          shape, info->stage->scope));
      info->allocated.push_back(!is_param);
    }
  }
}

}  // namespace

ir::PrimFunc lower(const schedule::Schedule& schedule, const std::vector<te::Tensor>& args,
                   const std::string& name) {
  LowerState state(schedule);
  std::unordered_map<const Stage*, std::vector<ir::Buffer>> compute_params;
  std::vector<ir::Buffer> params = make_params(state, args, compute_params);
  collect_stages(state);
  link_attachments(state);
  infer_bounds(state);
  assign_storage(state, compute_params);
  std::vector<const StageInfo*> roots;
  std::vector<ir::Stmt> body;
  for (const auto& info : state.infos) {
    if (info->attach_target) continue;
    roots.push_back(info.get());
    body.push_back(emit_stage(*info, state));
  }
  return ir::PrimFunc{name, std::move(params),
                      allocate_buffers(roots, ir::make_Seq(std::move(body)))};
}

}  // namespace tessel::lower
