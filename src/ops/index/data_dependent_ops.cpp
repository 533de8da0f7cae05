// NonZero, Unique and NonMaxSuppression: operators whose output extents depend on input
// values; and tessel.RunTimeExtent, the extent such an output has in a run. The runtime runs them
// (runtime/data_dependent.h); their inferred types are the largest outputs the input shapes allow,
// which the plan sizes their storage for. With constant inputs, constant folding runs them at
// compile time and the outputs take their exact shapes.
#include "ops/data_dependent_types.h"
#include "ops/index/index_common.h"
#include "ops/op_util.h"

namespace tessel::ops::index {
namespace {

using graph::Attribute;
using graph::AttrKind;

OpDef data_dependent_op(std::string name, int since, std::vector<AttrSpec> attributes,
                        DataDependentFn step) {
  OpDef def;
  def.name = std::move(name);
  def.since_version = since;
  def.attributes = std::move(attributes);
  def.pattern = PatternKind::Opaque;
  def.infer = [step](const OpContext& ctx) { return largest_outputs(ctx, *step(ctx)); };
  def.data_dependent = std::move(step);
  return def;
}

std::optional<DataDependentStep> unique_step(const OpContext& ctx) {
  if (ctx.input_type(0).dtype.is_bool()) ctx.fail("input X must be numeric, found bool");
  int64_t axis = -1;
  if (ctx.has_attr("axis"))
    axis = normalize_axis(ctx, ctx.attr_int("axis"), ctx.input_type(0).rank());
  return DataDependentStep{runtime::StepKind::Unique, {axis, ctx.attr_int("sorted") != 0 ? 1 : 0}};
}

std::optional<DataDependentStep> nms_step(const OpContext& ctx) {
  int64_t center = ctx.attr_int("center_point_box");
  if (center != 0 && center != 1)
    ctx.fail("center_point_box must be 0 or 1, found " + std::to_string(center));
  return DataDependentStep{runtime::StepKind::NonMaxSuppression,
                           {center, ctx.has_input(2), ctx.has_input(3), ctx.has_input(4)}};
}

}  // namespace

void register_data_dependent_ops(OpRegistry& registry) {
  registry.add(data_dependent_op("NonZero", 9, {}, [](const OpContext&) {
    return std::optional{DataDependentStep{runtime::StepKind::NonZero, {}}};
  }));
  registry.add(data_dependent_op(
      "Unique", 11,
      {{"axis", AttrKind::Int, std::nullopt}, {"sorted", AttrKind::Int, Attribute::of_int(1)}},
      unique_step));
  registry.add(data_dependent_op("NonMaxSuppression", 10,
                                 {{"center_point_box", AttrKind::Int, Attribute::of_int(0)}},
                                 nms_step));
  // The extent of one axis of its input in this run, an int64 scalar (for
  // mask_run_time_padding: the run's extent of a value the kernels compute padded).
  OpDef extent = data_dependent_op(
      "RunTimeExtent", 1, {{"axis", AttrKind::Int, std::nullopt, true}}, [](const OpContext& ctx) {
        int64_t axis = normalize_axis(ctx, ctx.attr_int("axis"), ctx.input_type(0).rank());
        return std::optional{DataDependentStep{runtime::StepKind::ExtentOf, {axis}}};
      });
  extent.domain = "tessel";
  registry.add(std::move(extent));
}

}  // namespace tessel::ops::index
