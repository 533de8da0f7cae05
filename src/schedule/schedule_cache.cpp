// Cache stages: cache_read copies a tensor for some readers, cache_write computes a stage
// into a cache that the stage then copies out. Both can store the cache in a Layout.
#include "ir/functor.h"
#include "schedule/schedule.h"
#include "support/error.h"
#include "te/rewrite.h"

namespace tessel::schedule {
namespace {

ir::MemoryScope parse_scope(const std::string& scope, const std::string& stage) {
  if (scope == "global") return ir::MemoryScope::Global;
  if (scope == "local") return ir::MemoryScope::Local;
  if (scope == "shared") return ir::MemoryScope::Shared;
  throw ScheduleError(stage, "",
                      "unknown memory scope '" + scope + "'; expected global, local or shared");
}

/// Axis names of a tensor's stage: its axes for a compute, "ax0", "ax1"... otherwise.
std::vector<std::string> axis_names(const te::Operation& op) {
  std::vector<std::string> names;
  for (size_t d = 0; d < op->shape.size(); ++d)
    names.push_back(op->is_placeholder() ? std::string("ax").append(std::to_string(d))
                                         : op->axis[d].var.name());
  return names;
}

std::vector<ir::IterVar> make_axes(const std::vector<ir::Expr>& shape,
                                   const std::vector<std::string>& names) {
  std::vector<ir::IterVar> axes;
  for (size_t d = 0; d < shape.size(); ++d)
    axes.push_back(
        ir::IterVar{ir::Var(names[d]), ir::make_int(0), shape[d], ir::IterKind::DataPar});
  return axes;
}

std::vector<ir::Expr> vars_of(const std::vector<ir::IterVar>& axes) {
  std::vector<ir::Expr> vars;
  for (const ir::IterVar& iv : axes) vars.push_back(iv.var);
  return vars;
}

/// The body of a cache_read copy: `tensor` at the logical index of a physical element.
/// Padding elements of a non-exact layout read a clamped element and store zero.
ir::Expr copy_body(const te::Tensor& tensor, const LayoutMap& layout,
                   const std::vector<ir::Expr>& physical) {
  std::vector<ir::Expr> logical = layout.to_logical(physical);
  ir::Expr inside;
  for (size_t d = 0; d < logical.size(); ++d) {
    if (!layout.padded(static_cast<int>(d))) continue;
    const ir::Expr& n = tensor.shape()[d];
    ir::Expr in_range = logical[d] < n;
    inside = inside.defined() ? (inside && in_range) : in_range;
    logical[d] = ir::min(logical[d], n - ir::make_int(1));
  }
  if (!inside.defined()) return tensor(logical);
  return ir::select(inside, tensor(logical), ir::make_const(tensor.dtype(), 0));
}

}  // namespace

te::Tensor Schedule::cache_read(const te::Tensor& tensor, const std::string& scope,
                                const std::vector<StageRef>& readers, const Layout& layout) {
  const Stage& source = stage(tensor);
  ir::MemoryScope memory = parse_scope(scope, source.name);
  if (readers.empty()) throw ScheduleError(source.name, "", "cache_read: no reader stage given");
  std::vector<std::string> reader_names;
  for (const StageRef& ref : readers) {
    const Stage& r = compute_stage(ref, "cache_read");
    bool reads = false;
    for (const te::Tensor& input : r.op->inputs)
      reads = reads || (stage_of(input.op().get()) == &source &&
                        input.value_index() == tensor.value_index());
    if (!reads)
      throw ScheduleError(r.name, "",
                          "cache_read: the stage does not read tensor '" + tensor.name() + "'");
    for (const std::string& seen : reader_names)
      if (seen == r.name) throw ScheduleError(r.name, "", "cache_read: reader listed twice");
    reader_names.push_back(r.name);
  }
  std::string name = unique_stage_name(tensor.name() + "." + scope);
  LayoutMap map(layout, tensor.shape(), axis_names(source.op), name);
  std::vector<ir::IterVar> axes = make_axes(map.physical_shape(), map.physical_names());
  te::Tensor cache = te::make_compute_op(name, map.physical_shape(), axes,
                                         {copy_body(tensor, map, vars_of(axes))}, {name})
                         ->output(0);

  const Stage* source_stage = &source;
  const int index = tensor.value_index();
  te::LoadRewrite redirect = [&](const te::Tensor& t, const std::vector<ir::Expr>& idx) {
    bool match = stage_of(t.op().get()) == source_stage && t.value_index() == index;
    return match ? cache(map.to_physical(idx)) : ir::Expr();
  };
  for (const std::string& r : reader_names) {
    Stage& reader = mutable_stage(r);
    reader.op = te::rewrite_op_loads(reader.op, redirect);
    register_op(reader.op, reader.name);
  }
  Stage cache_stage = make_stage(cache.op());
  cache_stage.scope = memory;
  insert_stage(position_of(source.name) + 1, std::move(cache_stage));

  json::Object args{{"tensor", tensor.name()},
                    {"scope", scope},
                    {"readers", json::Array(reader_names.begin(), reader_names.end())}};
  if (!layout.empty()) args.emplace_back("layout", layout_to_json(layout));
  record("cache_read", std::move(args));
  return cache;
}

te::Tensor Schedule::cache_write(const te::Tensor& tensor, const std::string& scope,
                                 const Layout& layout) {
  Stage& s = compute_stage(tensor, "cache_write");
  ir::MemoryScope memory = parse_scope(scope, s.name);
  if (s.op->num_outputs() != 1)
    throw ScheduleError(s.name, "", "cache_write: stages with several outputs are not supported");
  if (s.attach == AttachKind::Inline)
    throw ScheduleError(s.name, "", "cache_write: the stage is inlined");
  if (s.is_transformed())
    throw ScheduleError(s.name, "",
                        "cache_write: the stage's loops were already transformed; apply "
                        "cache_write first");
  for (const Stage& other : stages_)
    if (other.attach == AttachKind::At && other.attach_stage == s.name)
      throw ScheduleError(s.name, other.attach_loop,
                          "cache_write: stage '" + other.name + "' is computed at this loop");
  std::string name = unique_stage_name(tensor.name() + "." + scope);
  const te::Operation old = s.op;
  LayoutMap map(layout, old->shape, axis_names(old), name);
  if (!map.exact())
    throw ScheduleError(s.name, "",
                        "cache_write: a layout split must divide its dimension (padding is not "
                        "supported for cache_write)");

  // The cache computes the original body at the logical index of each physical element.
  std::vector<ir::IterVar> axes = make_axes(map.physical_shape(), map.physical_names());
  std::vector<ir::Expr> logical = map.to_logical(vars_of(axes));
  std::vector<std::pair<ir::Var, ir::Expr>> to_logical;
  for (size_t d = 0; d < old->axis.size(); ++d)
    to_logical.emplace_back(old->axis[d].var, logical[d]);
  te::Tensor cache = te::make_compute_op(name, map.physical_shape(), axes,
                                         {ir::substitute(old->bodies[0], to_logical)}, {name})
                         ->output(0);

  // The stage now copies the cache out.
  te::Operation copy =
      te::make_compute_op(old->name, old->shape, old->axis,
                          {cache(map.to_physical(vars_of(old->axis)))}, old->output_names);
  Stage fresh = make_stage(copy);
  s.op = copy;
  s.loops = fresh.loops;
  s.roots = fresh.roots;
  s.leaves = fresh.leaves;
  register_op(copy, s.name);

  Stage cache_stage = make_stage(cache.op());
  cache_stage.scope = memory;
  insert_stage(position_of(s.name), std::move(cache_stage));

  json::Object args{{"tensor", tensor.name()}, {"scope", scope}};
  if (!layout.empty()) args.emplace_back("layout", layout_to_json(layout));
  record("cache_write", std::move(args));
  return cache;
}

}  // namespace tessel::schedule
