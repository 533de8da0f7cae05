// The optimizer steps of domain ai.onnx.preview.training: Adagrad, Momentum (standard and
// Nesterov) and Adam. Each takes a learning rate R and a step count T (scalars), then n
// tensors to optimise, their gradients and their accumulators, and gives the n updated
// tensors and their updated accumulators: element-wise formulas, one compute per output.
#include "ops/op_def.h"
#include "ops/op_util.h"
#include "ops/registry.h"
#include "ops/shape/shape_ops.h"
#include "te/compute.h"

namespace tessel::ops {
namespace {

using graph::AttrKind;

/// The node's groups: after R and T, `groups` lists of n inputs each (X, G, then the
/// accumulators), all of X's shape.
size_t tensors_per_group(const OpContext& ctx, size_t groups) {
  size_t rest = ctx.num_inputs() < 2 ? 0 : ctx.num_inputs() - 2;
  if (rest == 0 || rest % groups != 0)
    ctx.fail("takes R, T and " + std::to_string(groups) + " lists of equal length, given " +
             std::to_string(ctx.num_inputs()) + " inputs");
  size_t n = rest / groups;
  for (size_t i = 0; i < 2; ++i)
    if (ctx.input_type(i).num_elements() != 1)
      ctx.fail(std::string(i == 0 ? "R" : "T") + " must be a scalar, found " +
               ctx.input_type(i).to_string());
  if (ctx.input_type(1).dtype != ir::DataType::Int(64))
    ctx.fail("T must be int64, found " + ctx.input_type(1).to_string());
  for (size_t g = 0; g < groups; ++g)
    for (size_t k = 0; k < n; ++k) {
      size_t i = 2 + g * n + k;
      if (ctx.input_type(i) != ctx.input_type(2 + k))
        ctx.fail("input " + std::to_string(i) + " " + ctx.input_type(i).to_string() +
                 " differs from the tensor it belongs to, " + ctx.input_type(2 + k).to_string());
    }
  return n;
}

/// The outputs' types: the n tensors' types, once per output list.
std::vector<graph::TensorType> optimizer_types(const OpContext& ctx, size_t groups,
                                               size_t output_lists) {
  size_t n = tensors_per_group(ctx, groups);
  std::vector<graph::TensorType> types;
  for (size_t list = 0; list < output_lists; ++list)
    for (size_t k = 0; k < n; ++k) types.push_back(ctx.input_type(2 + k));
  return types;
}

/// A scalar input's one element.
ir::Expr scalar(const te::Tensor& t) {
  return t(std::vector<ir::Expr>(t.shape().size(), ir::Expr(int64_t{0})));
}

/// The values of one tensor's update at an element: its inputs (X, G, accumulators) and
/// R and T as the tensor's element type.
struct Element {
  ir::DataType dtype;
  ir::Expr r, t;
  std::vector<ir::Expr> in;
};
/// The updated values of one element, one per output list.
using UpdateFn = std::function<std::vector<ir::Expr>(const OpContext&, const Element&)>;

OpDef optimizer_op(const std::string& name, size_t groups, std::vector<AttrSpec> attributes,
                   UpdateFn update) {
  OpDef def;
  def.name = name;
  def.domain = "ai.onnx.preview.training";
  def.since_version = 1;
  def.attributes = std::move(attributes);
  def.pattern = PatternKind::Opaque;
  size_t lists = groups - 1;  // the tensors and each accumulator, not the gradients
  def.infer = [groups, lists](const OpContext& ctx) { return optimizer_types(ctx, groups, lists); };
  def.compute = [name, groups, lists, update](const OpContext& ctx,
                                              const std::vector<te::Tensor>& in) {
    size_t n = tensors_per_group(ctx, groups);
    std::vector<te::Tensor> outputs(lists * n);
    for (size_t k = 0; k < n; ++k) {
      ir::DataType dtype = ctx.input_type(2 + k).dtype;
      for (size_t list = 0; list < lists; ++list)
        outputs[list * n + k] = te::compute_body(
            shape_exprs(ctx.input_shape(2 + k)),
            [&](const std::vector<te::Var>& index) {
              std::vector<ir::Expr> at(index.begin(), index.end());
              Element e{dtype, ir::cast(dtype, scalar(in[0])), ir::cast(dtype, scalar(in[1])), {}};
              for (size_t g = 0; g < groups; ++g) e.in.push_back(in[2 + g * n + k](at));
              return update(ctx, e).at(list);
            },
            name + "_" + std::to_string(list) + "_" + std::to_string(k));
    }
    return outputs;
  };
  return def;
}

/// Attribute `name` as a constant of the element's type.
ir::Expr attr(const OpContext& ctx, const Element& e, const std::string& name) {
  return ir::make_const(e.dtype, ctx.attr_float(name));
}

/// Adagrad: H' = H + G'^2, X' = X - R / (1 + T decay) * G' / (sqrt(H') + epsilon), with
/// G' = G + norm_coefficient X.
std::vector<ir::Expr> adagrad(const OpContext& ctx, const Element& e) {
  ir::Expr x = e.in[0], h = e.in[2];
  ir::Expr g = e.in[1] + attr(ctx, e, "norm_coefficient") * x;
  ir::Expr rate = e.r / (ir::Expr(1.0) + e.t * attr(ctx, e, "decay_factor"));
  ir::Expr h_new = h + g * g;
  return {x - rate * g / (ir::sqrt(h_new) + attr(ctx, e, "epsilon")), h_new};
}

/// Momentum: V' = alpha V + beta' G' (beta' = beta after the first step, 1 on it), then
/// X' = X - R V' (standard) or X - R (G' + alpha V') (nesterov).
std::vector<ir::Expr> momentum(const OpContext& ctx, const Element& e) {
  std::string mode = ctx.attr_string("mode");
  if (mode != "standard" && mode != "nesterov")
    ctx.fail("attribute 'mode' is '" + mode + "', expected 'standard' or 'nesterov'");
  ir::Expr x = e.in[0], v = e.in[2], alpha = attr(ctx, e, "alpha");
  ir::Expr g = e.in[1] + attr(ctx, e, "norm_coefficient") * x;
  ir::Expr beta =
      ir::select(e.t > ir::Expr(0.0), attr(ctx, e, "beta"), ir::make_const(e.dtype, 1.0));
  ir::Expr v_new = alpha * v + beta * g;
  ir::Expr step = mode == "standard" ? v_new : g + alpha * v_new;
  return {x - e.r * step, v_new};
}

/// Adam: V' = alpha V + (1 - alpha) G', H' = beta H + (1 - beta) G'^2, then
/// X' = (X - R' V' / (sqrt(H') + epsilon)) (1 - norm_coefficient_post), with the rate
/// R' = R sqrt(1 - beta^T) / (1 - alpha^T) after the first step.
std::vector<ir::Expr> adam(const OpContext& ctx, const Element& e) {
  ir::Expr x = e.in[0], v = e.in[2], h = e.in[3];
  ir::Expr alpha = attr(ctx, e, "alpha"), beta = attr(ctx, e, "beta");
  ir::Expr one = ir::make_const(e.dtype, 1.0);
  ir::Expr g = e.in[1] + attr(ctx, e, "norm_coefficient") * x;
  ir::Expr v_new = alpha * v + (one - alpha) * g;
  ir::Expr h_new = beta * h + (one - beta) * g * g;
  ir::Expr corrected = e.r * ir::sqrt(one - ir::pow(beta, e.t)) / (one - ir::pow(alpha, e.t));
  ir::Expr rate = ir::select(e.t > ir::Expr(0.0), corrected, e.r);
  ir::Expr x_new = x - rate * v_new / (ir::sqrt(h_new) + attr(ctx, e, "epsilon"));
  return {x_new * (one - attr(ctx, e, "norm_coefficient_post")), v_new, h_new};
}

graph::Attribute real(double v) {
  return graph::Attribute::of_float(v);
}

}  // namespace

void register_training_ops(OpRegistry& registry) {
  registry.add(optimizer_op("Adagrad", 3,
                            {{"decay_factor", AttrKind::Float, real(0.0)},
                             {"epsilon", AttrKind::Float, real(0.0)},
                             {"norm_coefficient", AttrKind::Float, real(0.0)}},
                            adagrad));
  registry.add(optimizer_op("Momentum", 3,
                            {{"alpha", AttrKind::Float, std::nullopt, true},
                             {"beta", AttrKind::Float, std::nullopt, true},
                             {"mode", AttrKind::String, std::nullopt, true},
                             {"norm_coefficient", AttrKind::Float, std::nullopt, true}},
                            momentum));
  registry.add(optimizer_op("Adam", 4,
                            {{"alpha", AttrKind::Float, real(0.9)},
                             {"beta", AttrKind::Float, real(0.999)},
                             {"epsilon", AttrKind::Float, real(0.0)},
                             {"norm_coefficient", AttrKind::Float, real(0.0)},
                             {"norm_coefficient_post", AttrKind::Float, real(0.0)}},
                            adam));
}

}  // namespace tessel::ops
