// Pad: grows (or, with negative pads, crops) every dimension at both ends; the new elements
// are a constant ('constant'), the mirror image of the data without repeating the border
// ('reflect') or the nearest border element ('edge').
//
// Opsets 2-10 take the pads and the constant as attributes; from opset 11 the pads are an
// input whose value is needed at compile time and the constant an optional scalar input,
// read by the kernel.
#include "ops/index/index_common.h"
#include "ops/op_util.h"

namespace tessel::ops::index {
namespace {

using ir::Expr;
using te::Var;

struct PadForm {
  std::string mode;
  std::vector<int64_t> in, begin, out;
};

PadForm pad_form(const OpContext& ctx) {
  PadForm f{attr_choice(ctx, "mode", {"constant", "reflect", "edge"}), ctx.input_shape(0), {}, {}};
  if (ctx.opset() >= 11 && ctx.has_input(3)) ctx.fail("input 'axes' (opset 18) is not supported");
  std::vector<int64_t> pads = ctx.opset() >= 11 ? ctx.input_ints(1) : ctx.attr_ints("pads");
  size_t rank = f.in.size();
  if (pads.size() != 2 * rank)
    ctx.fail("pads have " + std::to_string(pads.size()) + " values, expected " +
             std::to_string(2 * rank) + " (begin and end of each of the " + std::to_string(rank) +
             " dimensions)");
  for (size_t d = 0; d < rank; ++d) {
    f.begin.push_back(pads[d]);
    f.out.push_back(f.in[d] + pads[d] + pads[rank + d]);
    if (f.out[d] < 0)
      ctx.fail("pads " + shape_text(pads) + " crop dimension " + std::to_string(d) + " of " +
               shape_text(f.in) + " below zero");
    if (f.mode != "constant" && f.in[d] == 0 && f.out[d] > 0)
      ctx.fail("mode '" + f.mode + "' cannot pad dimension " + std::to_string(d) +
               ", which is empty");
  }
  return f;
}

/// The position in [0, n) that reflect mode reads for the position s relative to the data.
Expr reflect(const Expr& s, int64_t n) {
  if (n == 1) return Expr(int64_t{0});
  int64_t period = 2 * (n - 1);
  Expr t = s % period;
  return ir::select(t < n, t, period - t);
}

std::vector<te::Tensor> pad_compute(const OpContext& ctx, const std::vector<te::Tensor>& in) {
  PadForm f = pad_form(ctx);
  te::Tensor data = in[0];
  ir::DataType dtype = data.dtype();
  Expr value = ir::make_const(dtype, 0);
  if (ctx.opset() < 11) {
    value = ir::make_const(dtype, ctx.attr_float("value"));
  } else if (ctx.has_input(2)) {
    const te::Tensor& constant = in[2];
    if (te::shape_size(ctx.input_shape(2)) != 1)
      ctx.fail("constant_value has shape " + shape_text(ctx.input_shape(2)) +
               ", expected a scalar");
    value = ir::cast(dtype, constant(std::vector<Expr>(constant.shape().size(), int64_t{0})));
  }
  auto body = [&](const std::vector<Var>& o) {
    std::vector<Expr> at;
    std::vector<Expr> inside;
    for (size_t d = 0; d < o.size(); ++d) {
      int64_t n = f.in[d];
      bool padded = f.begin[d] != 0 || f.out[d] != n;
      Expr s = f.begin[d] == 0 ? Expr(o[d]) : o[d] - f.begin[d];
      if (!padded) {
        at.push_back(s);
      } else if (f.mode == "reflect") {
        at.push_back(reflect(s, n));
      } else {
        at.push_back(clamp_index(s, n));
        if (f.begin[d] > 0) inside.push_back(s >= Expr(int64_t{0}));
        if (f.out[d] - f.begin[d] > n) inside.push_back(s < n);
      }
    }
    if (f.mode != "constant" || inside.empty()) return data(at);
    return ir::select(all_of(inside), data(at), value);
  };
  return {te::compute(shape_exprs(f.out), body, "pad")};
}

}  // namespace

void register_pad_ops(OpRegistry& registry) {
  registry.add(make_op("Pad", 2, PatternKind::Injective,
                       {{"mode", graph::AttrKind::String, graph::Attribute::of_string("constant")},
                        {"pads", graph::AttrKind::Ints, std::nullopt},
                        {"value", graph::AttrKind::Float, graph::Attribute::of_float(0)}},
                       [](const OpContext& ctx) {
                         return std::vector{
                             graph::TensorType::of(ctx.input_type(0).dtype, pad_form(ctx).out)};
                       },
                       pad_compute, {1}));
}

}  // namespace tessel::ops::index
