// Schedule construction, stage lookup, loop transformations and annotations.
#include "schedule/schedule.h"

#include <algorithm>
#include <set>

#include "support/error.h"
#include "te/dag.h"

namespace tessel::schedule {
namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "(none)" : out;
}

/// Checks a split factor (or number of parts); `what` names it in the message.
void check_split_args(const Stage& stage, const std::string& loop, int64_t factor,
                      const char* what) {
  if (factor <= 0)
    throw ScheduleError(stage.name, loop, detail::concat(what, " must be positive, got ", factor));
}

json::Array string_array(const std::vector<std::string>& items) {
  return json::Array(items.begin(), items.end());
}

}  // namespace

json::Value layout_to_json(const Layout& layout) {
  json::Array splits, order;
  for (const Layout::Split& s : layout.splits) splits.emplace_back(json::Array{s.dim, s.factor});
  for (int i : layout.order) order.emplace_back(i);
  return json::Object{{"splits", std::move(splits)}, {"order", std::move(order)}};
}

// ---- construction and lookup ----------------------------------------------------------

Schedule::Schedule(std::vector<te::Tensor> outputs) : outputs_(std::move(outputs)) {
  if (outputs_.empty()) TESSEL_USER_ERROR("a schedule needs at least one output tensor");
  // Operations of the same name (e.g. two additions of a fused group) get stages named
  // "add", "add.1", ... in topological order, so names stay stable for traces.
  for (const te::Operation& op : te::topological_order(outputs_)) {
    Stage stage = make_stage(op);
    stage.name = unique_stage_name(stage.name);
    insert_stage(stages_.size(), std::move(stage));
  }
  for (const te::Tensor& out : outputs_) mutable_stage(out).is_output = true;
}

void Schedule::register_op(const te::Operation& op, const std::string& stage) {
  op_stage_[op.get()] = stage;
  ops_.push_back(op);
}

void Schedule::insert_stage(size_t position, Stage stage) {
  TESSEL_ICHECK(position <= stages_.size(), "stage position ", position, " out of range");
  register_op(stage.op, stage.name);
  stages_.insert(stages_.begin() + static_cast<std::ptrdiff_t>(position), std::move(stage));
}

const Stage* Schedule::stage_of(const te::OperationNode* op) const {
  auto it = op_stage_.find(op);
  return it == op_stage_.end() ? nullptr : &stages_[position_of(it->second)];
}

size_t Schedule::position_of(const std::string& stage) const {
  for (size_t i = 0; i < stages_.size(); ++i)
    if (stages_[i].name == stage) return i;
  return stages_.size();
}

const Stage& Schedule::stage(const StageRef& ref) const {
  if (ref.tensor_.defined()) {
    const Stage* s = stage_of(ref.tensor_.op().get());
    if (!s) throw ScheduleError(ref.tensor_.name(), "", "the tensor is not part of this schedule");
    return *s;
  }
  size_t pos = position_of(ref.name_);
  if (pos == stages_.size()) {
    std::vector<std::string> names;
    for (const Stage& s : stages_) names.push_back(s.name);
    throw ScheduleError(ref.name_, "", "no stage of that name; stages are: " + join(names));
  }
  return stages_[pos];
}

Stage& Schedule::mutable_stage(const StageRef& ref) {
  return const_cast<Stage&>(stage(ref));
}

te::Tensor Schedule::tensor(const std::string& name) const {
  for (const Stage& s : stages_)
    for (int i = 0; i < s.op->num_outputs(); ++i)
      if (s.op->output_names[i] == name) return s.op->output(i);
  throw ScheduleError(name, "", "no tensor of that name in this schedule");
}

Stage& Schedule::compute_stage(const StageRef& ref, const char* primitive) {
  Stage& s = mutable_stage(ref);
  if (s.is_placeholder())
    throw ScheduleError(
        s.name, "",
        detail::concat(primitive, ": '", s.name, "' is a placeholder (an input), not a compute"));
  return s;
}

void Schedule::check_leaf(const Stage& stage, const std::string& loop) const {
  if (stage.leaf_position(loop) >= 0) return;
  if (!stage.find_loop(loop))
    throw ScheduleError(stage.name, loop,
                        "no such loop; the leaf loops are: " + join(stage.leaves));
  throw ScheduleError(
      stage.name, loop,
      "the loop was already split or fused; the leaf loops are: " + join(stage.leaves));
}

void Schedule::check_transformable(const Stage& stage, const std::string& loop,
                                   const char* primitive) const {
  ir::ForKind kind = stage.find_loop(loop)->for_kind;
  if (kind != ir::ForKind::Serial)
    throw ScheduleError(
        stage.name, loop,
        detail::concat(primitive, ": the loop is annotated ", ir::for_kind_name(kind),
                       "; transform the loop before annotating it"));
  for (const Prefetch& p : stage.prefetches)
    if (p.loop == loop)
      throw ScheduleError(stage.name, loop,
                          detail::concat(primitive, ": the loop prefetches '", p.tensor,
                                         "'; transform the loop before prefetch"));
  for (const Stage& s : stages_)
    if (s.attach == AttachKind::At && s.attach_stage == stage.name && s.attach_loop == loop)
      throw ScheduleError(stage.name, loop,
                          detail::concat(primitive, ": stage '", s.name,
                                         "' is computed at this loop; transform the loop before "
                                         "compute_at"));
}

void Schedule::check_new_loop(const Stage& stage, const std::string& loop) const {
  if (stage.find_loop(loop))
    throw ScheduleError(stage.name, loop, "a loop of this name already exists");
}

std::string Schedule::unique_stage_name(const std::string& base) const {
  std::string name = base;
  for (int n = 1; position_of(name) != stages_.size(); ++n) name = base + "." + std::to_string(n);
  return name;
}

void Schedule::record(const char* primitive, json::Object args) {
  trace_.append(TraceStep{primitive, std::move(args)});
}

// ---- loop transformations -------------------------------------------------------------

std::pair<std::string, std::string> Schedule::do_split(Stage& stage, const std::string& loop,
                                                       int64_t factor, bool by_nparts) {
  const Loop parent = *stage.find_loop(loop);
  std::string outer = loop + ".outer", inner = loop + ".inner";
  stage.loops.push_back(Loop{outer, parent.kind, ir::ForKind::Serial});
  stage.loops.push_back(Loop{inner, parent.kind, ir::ForKind::Serial});
  LoopRelation rel;
  rel.kind = LoopRelation::Kind::Split;
  rel.parent = loop;
  rel.outer = outer;
  rel.inner = inner;
  rel.factor = factor;
  rel.by_nparts = by_nparts;
  stage.relations.push_back(rel);
  auto pos = stage.leaves.begin() + stage.leaf_position(loop);
  pos = stage.leaves.erase(pos);
  stage.leaves.insert(pos, {outer, inner});
  return {outer, inner};
}

std::pair<std::string, std::string> Schedule::split(const StageRef& ref, std::string loop,
                                                    int64_t factor) {
  Stage& s = compute_stage(ref, "split");
  check_leaf(s, loop);
  check_split_args(s, loop, factor, "split factor");
  check_transformable(s, loop, "split");
  check_new_loop(s, loop + ".outer");
  check_new_loop(s, loop + ".inner");
  auto result = do_split(s, loop, factor, false);
  record("split", {{"stage", s.name}, {"loop", loop}, {"factor", factor}});
  return result;
}

std::pair<std::string, std::string> Schedule::split_nparts(const StageRef& ref, std::string loop,
                                                           int64_t nparts) {
  Stage& s = compute_stage(ref, "split_nparts");
  check_leaf(s, loop);
  check_split_args(s, loop, nparts, "number of parts");
  check_transformable(s, loop, "split_nparts");
  check_new_loop(s, loop + ".outer");
  check_new_loop(s, loop + ".inner");
  auto result = do_split(s, loop, nparts, true);
  record("split_nparts", {{"stage", s.name}, {"loop", loop}, {"nparts", nparts}});
  return result;
}

TileLoops Schedule::tile(const StageRef& ref, std::string x, std::string y, int64_t x_factor,
                         int64_t y_factor) {
  Stage& s = compute_stage(ref, "tile");
  check_leaf(s, x);
  check_leaf(s, y);
  if (x == y) throw ScheduleError(s.name, y, "tile: the two loops must differ");
  check_split_args(s, x, x_factor, "tile factor");
  check_split_args(s, y, y_factor, "tile factor");
  for (const std::string& loop : {x, y}) {
    check_transformable(s, loop, "tile");
    check_new_loop(s, loop + ".outer");
    check_new_loop(s, loop + ".inner");
  }
  // The four loops take the four slots that the splits left, in tile order.
  auto [xo, xi] = do_split(s, x, x_factor, false);
  auto [yo, yi] = do_split(s, y, y_factor, false);
  std::vector<std::string> order{xo, yo, xi, yi};
  std::vector<int> slots;
  for (const std::string& l : order) slots.push_back(s.leaf_position(l));
  std::sort(slots.begin(), slots.end());
  for (size_t i = 0; i < order.size(); ++i) s.leaves[slots[i]] = order[i];
  record("tile",
         {{"stage", s.name}, {"x", x}, {"y", y}, {"x_factor", x_factor}, {"y_factor", y_factor}});
  return TileLoops{xo, yo, xi, yi};
}

std::string Schedule::fuse(const StageRef& ref, std::string outer, std::string inner) {
  Stage& s = compute_stage(ref, "fuse");
  check_leaf(s, outer);
  check_leaf(s, inner);
  if (s.leaf_position(outer) + 1 != s.leaf_position(inner))
    throw ScheduleError(s.name, inner,
                        "fuse: loop '" + inner + "' must come immediately after loop '" + outer +
                            "'; the leaf loops are: " + join(s.leaves));
  ir::IterKind kind = s.find_loop(outer)->kind;
  if (kind != s.find_loop(inner)->kind)
    throw ScheduleError(s.name, inner,
                        "fuse: cannot fuse a reduction loop with a data-parallel loop ('" + outer +
                            "' and '" + inner + "')");
  check_transformable(s, outer, "fuse");
  check_transformable(s, inner, "fuse");
  std::string fused = outer + "." + inner + ".fused";
  check_new_loop(s, fused);
  s.loops.push_back(Loop{fused, kind, ir::ForKind::Serial});
  LoopRelation rel;
  rel.kind = LoopRelation::Kind::Fuse;
  rel.outer = outer;
  rel.inner = inner;
  rel.fused = fused;
  s.relations.push_back(rel);
  auto pos = s.leaves.erase(s.leaves.begin() + s.leaf_position(outer),
                            s.leaves.begin() + s.leaf_position(inner) + 1);
  s.leaves.insert(pos, fused);
  record("fuse", {{"stage", s.name}, {"outer", outer}, {"inner", inner}});
  return fused;
}

void Schedule::reorder(const StageRef& ref, std::vector<std::string> loops) {
  Stage& s = compute_stage(ref, "reorder");
  std::set<std::string> seen;
  std::vector<int> slots;
  for (const std::string& loop : loops) {
    check_leaf(s, loop);
    if (!seen.insert(loop).second)
      throw ScheduleError(s.name, loop, "reorder: the loop is listed twice");
    slots.push_back(s.leaf_position(loop));
  }
  std::sort(slots.begin(), slots.end());
  for (size_t i = 0; i < loops.size(); ++i) s.leaves[slots[i]] = loops[i];
  record("reorder", {{"stage", s.name}, {"loops", string_array(loops)}});
}

// ---- annotations ----------------------------------------------------------------------

void Schedule::annotate(const StageRef& ref, const std::string& loop, ir::ForKind kind,
                        const char* primitive) {
  Stage& s = compute_stage(ref, primitive);
  check_leaf(s, loop);
  Loop& l = *s.find_loop(loop);
  if (l.kind == ir::IterKind::Reduce && kind != ir::ForKind::Unrolled)
    throw ScheduleError(
        s.name, loop,
        detail::concat(primitive,
                       ": the loop is a reduction loop; only "
                       "data-parallel loops can be ",
                       primitive == std::string("parallel") ? "parallelized" : "vectorized"));
  if (l.for_kind != ir::ForKind::Serial && l.for_kind != kind)
    throw ScheduleError(s.name, loop,
                        detail::concat(primitive, ": the loop is already annotated ",
                                       ir::for_kind_name(l.for_kind)));
  l.for_kind = kind;
  record(primitive, {{"stage", s.name}, {"loop", loop}});
}

void Schedule::parallel(const StageRef& stage, std::string loop) {
  annotate(stage, loop, ir::ForKind::Parallel, "parallel");
}
void Schedule::vectorize(const StageRef& stage, std::string loop) {
  annotate(stage, loop, ir::ForKind::Vectorized, "vectorize");
}
void Schedule::unroll(const StageRef& stage, std::string loop) {
  annotate(stage, loop, ir::ForKind::Unrolled, "unroll");
}

void Schedule::prefetch(const StageRef& ref, std::string loop, const te::Tensor& tensor) {
  Stage& s = compute_stage(ref, "prefetch");
  check_leaf(s, loop);
  if (s.find_loop(loop)->for_kind == ir::ForKind::Vectorized)
    throw ScheduleError(s.name, loop, "prefetch: the loop is vectorized");
  if (!tensor.defined() || !stage_of(tensor.op().get()))
    throw ScheduleError(s.name, loop, "prefetch: the tensor is not a tensor of the schedule");
  const Stage& data = *stage_of(tensor.op().get());
  if (&data == &s)
    throw ScheduleError(s.name, loop, "prefetch: a stage cannot prefetch its own output");
  if (!data.is_placeholder() && data.attach != AttachKind::Root)
    throw ScheduleError(s.name, loop,
                        detail::concat("prefetch: '", tensor.name(),
                                       "' is not computed at the root; only function arguments "
                                       "and stages computed at the root can be prefetched"));
  for (const Prefetch& p : s.prefetches)
    if (p.loop == loop && p.tensor == tensor.name())
      throw ScheduleError(s.name, loop,
                          detail::concat("prefetch: the loop prefetches '", tensor.name(),
                                         "' already"));
  s.prefetches.push_back({loop, tensor.name()});
  record("prefetch", {{"stage", s.name}, {"loop", loop}, {"tensor", tensor.name()}});
}

}  // namespace tessel::schedule
