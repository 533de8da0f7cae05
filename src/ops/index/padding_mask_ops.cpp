// tessel.MaskPadding: what lets a kernel reduce over an axis whose extent the run finds
// (passes/mask_run_time_padding.h). It replaces every element past that extent (an int64
// scalar, from tessel.RunTimeExtent, data_dependent_ops.cpp) along the axis by the identity
// of a reduction, so that the padding adds nothing to a sum, nothing to a maximum, and so on.
#include "ir/expr.h"
#include "ops/index/index_common.h"
#include "ops/op_util.h"

namespace tessel::ops::index {
namespace {

using graph::AttrKind;

/// The reduction whose identity fills the padding.
ir::ReduceOp fill_reduction(const OpContext& ctx) {
  std::string fill = attr_choice(ctx, "fill", {"sum", "prod", "max", "min"});
  return fill == "sum"    ? ir::ReduceOp::Sum
         : fill == "prod" ? ir::ReduceOp::Prod
         : fill == "max"  ? ir::ReduceOp::Max
                          : ir::ReduceOp::Min;
}

OpDef mask_padding_def() {
  OpDef def;
  def.name = "MaskPadding";
  def.domain = "tessel";
  def.since_version = 1;
  def.attributes = {{"axis", AttrKind::Int, std::nullopt, true},
                    {"fill", AttrKind::String, std::nullopt, true}};
  def.pattern = PatternKind::Broadcast;
  def.infer = [](const OpContext& ctx) {
    const graph::TensorType& extent = ctx.input_type(1);
    if (extent.dtype != ir::DataType::Int(64) || extent.rank() != 0)
      ctx.fail("input 1 (the extent) must be an int64 scalar, found " + extent.to_string());
    normalize_axis(ctx, ctx.attr_int("axis"), ctx.input_type(0).rank());
    fill_reduction(ctx);
    return std::vector{ctx.input_type(0)};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    const te::Tensor& x = in[0];
    const te::Tensor& extent = in[1];
    size_t axis =
        static_cast<size_t>(normalize_axis(ctx, ctx.attr_int("axis"), ctx.input_type(0).rank()));
    ir::Expr fill = ir::reduce_identity(fill_reduction(ctx), x.dtype());
    return std::vector{te::compute(
        x.shape(),
        [&](const std::vector<te::Var>& i) {
          ir::Expr valid =
              ir::cast(ir::DataType::Int(64), i[axis]) < extent(std::vector<ir::Expr>{});
          return ir::select(valid, x(std::vector<ir::Expr>(i.begin(), i.end())), fill);
        },
        "masked")};
  };
  return def;
}

}  // namespace

void register_padding_mask_ops(OpRegistry& registry) {
  registry.add(mask_padding_def());
}

}  // namespace tessel::ops::index
