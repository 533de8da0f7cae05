// ReverseSequence: reverses the first sequence_lens[b] elements along the time axis of each
// batch entry b; the rest of each sequence is copied.
#include "ops/index/index_common.h"
#include "ops/op_util.h"

namespace tessel::ops::index {
namespace {

using ir::Expr;
using te::Var;

/// The batch and time axes, checked.
std::pair<size_t, size_t> sequence_axes(const OpContext& ctx) {
  std::vector<int64_t> shape = ctx.input_shape(0);
  if (shape.size() < 2) ctx.fail("input has shape " + shape_text(shape) + ", expected rank >= 2");
  int64_t batch = ctx.attr_int("batch_axis"), time = ctx.attr_int("time_axis");
  if ((batch != 0 && batch != 1) || (time != 0 && time != 1) || batch == time)
    ctx.fail("attributes 'batch_axis' " + std::to_string(batch) + " and 'time_axis' " +
             std::to_string(time) + " must be 0 and 1 in either order");
  check_index_input(ctx, 1, "sequence_lens");
  std::vector<int64_t> lens = ctx.input_shape(1);
  if (lens.size() != 1 || lens[0] != shape[static_cast<size_t>(batch)])
    ctx.fail("sequence_lens has shape " + shape_text(lens) + ", expected [" +
             std::to_string(shape[static_cast<size_t>(batch)]) + "] for input " +
             shape_text(shape));
  return {static_cast<size_t>(batch), static_cast<size_t>(time)};
}

std::vector<te::Tensor> reverse_sequence(const OpContext& ctx, const std::vector<te::Tensor>& in) {
  auto [batch, time] = sequence_axes(ctx);
  std::vector<int64_t> shape = ctx.input_shape(0);
  te::Tensor x = in[0], lens = in[1];
  auto body = [&](const std::vector<Var>& p) {
    Expr length =
        ir::min(ir::max(ir::cast(ir::DataType::Index(), lens(p[batch])), Expr(int64_t{0})),
                Expr(shape[time]));
    std::vector<Expr> at(p.begin(), p.end());
    at[time] = ir::select(p[time] < length, length - 1 - p[time], Expr(p[time]));
    return x(at);
  };
  return {te::compute(shape_exprs(shape), body, "reverse_sequence")};
}

}  // namespace

void register_reverse_sequence_ops(OpRegistry& registry) {
  registry.add(make_op(
      "ReverseSequence", 10, PatternKind::Injective,
      {{"batch_axis", graph::AttrKind::Int, graph::Attribute::of_int(1)},
       {"time_axis", graph::AttrKind::Int, graph::Attribute::of_int(0)}},
      [](const OpContext& ctx) {
        sequence_axes(ctx);
        return std::vector{graph::TensorType::of(ctx.input_type(0).dtype, ctx.input_shape(0))};
      },
      reverse_sequence));
}

}  // namespace tessel::ops::index
