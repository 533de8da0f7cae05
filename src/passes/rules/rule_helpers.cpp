// Helpers shared by the rewrite rules: float checks, per-channel broadcasts, and folding a
// per-channel scale and shift into a Conv, Gemm or MatMul.
#include <cmath>

#include "passes/rules/rules.h"
#include "support/error.h"

namespace tessel::passes {

bool is_float(const graph::Value* v) {
  return v && v->type.dtype.is_float() && v->type.dtype.is_scalar();
}

bool near(double a, double b, double rtol) {
  return std::fabs(a - b) <= rtol * std::fabs(b);
}

bool varies_along(const graph::TensorType& c, const graph::TensorType& out, int axis) {
  if (c.rank() > out.rank() || !c.has_static_shape() || !out.has_static_shape()) return false;
  for (int d = 0; d < c.rank(); ++d) {
    int od = out.rank() - c.rank() + d;
    int64_t extent = c.dims[d].value;
    if (extent != 1 && (od != axis || extent != out.dims[od].value)) return false;
  }
  return true;
}

graph::Value* channel_vector(Rewriter& rw, const graph::Value* c, int64_t channels) {
  graph::Value* flat = rw.op("Reshape", {rw.value(c), rw.ints({-1})});
  return rw.op("Expand", {flat, rw.ints({channels})});
}

bool takes_channel_affine(const MatchContext& ctx, const graph::Node& node) {
  if (node.outputs.size() != 1 || !is_float(node.outputs[0])) return false;
  auto static_or_absent = [&](size_t i) {
    return i >= node.inputs.size() || !node.inputs[i] || ctx.is_static(node.inputs[i]);
  };
  bool onnx = node.domain.empty() || node.domain == "ai.onnx";
  if (!onnx || node.inputs.size() < 2 || !ctx.is_static(node.inputs[1])) return false;
  if (node.op_type == "Conv" || node.op_type == "Gemm") return static_or_absent(2);
  return node.op_type == "MatMul" && node.inputs[1]->type.rank() == 2 &&
         node.outputs[0]->type.rank() >= 1;
}

int channel_axis(const graph::Node& node) {
  return node.op_type == "Conv" ? 1 : node.outputs[0]->type.rank() - 1;
}

void emit_channel_affine(Rewriter& rw, const graph::Node& node, graph::Value* scale,
                         graph::Value* shift) {
  std::vector<graph::Value*> inputs = {rw.value(node.inputs[0]), rw.value(node.inputs[1])};
  graph::Value* bias =
      node.inputs.size() > 2 && node.inputs[2] ? rw.value(node.inputs[2]) : nullptr;
  auto attributes = node.attributes;
  if (node.op_type == "Conv") {
    // W is [M, C/group, k...]: the scale multiplies the output channel, axis 0.
    if (scale) {
      std::vector<int64_t> shape(static_cast<size_t>(node.inputs[1]->type.rank()), 1);
      shape[0] = -1;
      inputs[1] =
          rw.op("Mul", {inputs[1], rw.op("Reshape", {scale, rw.ints(shape)})}, {}, "weight");
    }
  } else if (node.op_type == "Gemm") {
    // Y = alpha A B + beta C: B's output columns are its last axis, or its first when
    // transposed; C takes beta, then the scale, and beta becomes 1.
    if (scale) {
      const graph::Attribute* trans_b = node.attribute("transB");
      graph::Value* column_scale =
          trans_b && trans_b->i ? rw.op("Reshape", {scale, rw.ints({-1, 1})}) : scale;
      inputs[1] = rw.op("Mul", {inputs[1], column_scale}, {}, "weight");
    }
    const graph::Attribute* beta = node.attribute("beta");
    if (bias && beta && beta->f != 1)
      bias = rw.op("Mul", {bias, rw.fill(beta->f, {}, node.outputs[0]->type.dtype)});
    attributes["beta"] = graph::Attribute::of_float(1.0);
  } else {
    TESSEL_ICHECK(node.op_type == "MatMul" && !shift && !bias, "no channel affine for ",
                  node.describe());
    inputs[1] = rw.op("Mul", {inputs[1], scale}, {}, "weight");
  }
  if (bias && scale) bias = rw.op("Mul", {bias, scale}, {}, shift ? "" : "bias");
  if (shift) bias = bias ? rw.op("Add", {bias, shift}, {}, "bias") : shift;
  if (bias) inputs.push_back(bias);
  rw.add_node(node.op_type, inputs, {rw.output(0)}, attributes, node.opset);
}

}  // namespace tessel::passes
