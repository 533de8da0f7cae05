// If, Loop and Scan in the registry: attribute schemas and type inference. They have no
// compute: the compiler compiles their bodies and the runtime runs them.
#include "ops/control/control_flow.h"
#include "ops/op_def.h"
#include "ops/registry.h"

namespace tessel::ops {
namespace {

using graph::AttrKind;
using graph::TensorType;

/// Fails unless body output `k` keeps the type `expected` of what it stands for.
void check_same_type(const OpContext& ctx, const TensorType& given, const TensorType& expected,
                     const std::string& what) {
  if (given != expected)
    ctx.fail(what + " has type " + given.to_string() + " where " + expected.to_string() +
             " goes in: tessel compiles every iteration with one static type");
}

std::vector<TensorType> infer_if(const OpContext& ctx) {
  control::IfSignature sig = control::if_signature(ctx);
  std::vector<TensorType> then_types = control::body_output_types(ctx, *sig.then_branch, {});
  std::vector<TensorType> else_types = control::body_output_types(ctx, *sig.else_branch, {});
  if (then_types.size() != else_types.size())
    ctx.fail("then_branch gives " + std::to_string(then_types.size()) + " outputs, else_branch " +
             std::to_string(else_types.size()));
  for (size_t k = 0; k < then_types.size(); ++k)
    if (then_types[k] != else_types[k])
      ctx.fail("output " + std::to_string(k) + " is " + then_types[k].to_string() +
               " from then_branch and " + else_types[k].to_string() +
               " from else_branch: tessel compiles both branches with one static type");
  return then_types;
}

std::vector<TensorType> infer_loop(const OpContext& ctx) {
  control::LoopSignature sig = control::loop_signature(ctx);
  std::vector<TensorType> body = control::body_output_types(ctx, *sig.body, sig.formal_types);
  if (body[0].dtype != ir::DataType::Bool() || body[0].num_elements() != 1)
    ctx.fail("the body's condition output is " + body[0].to_string() + ", not a bool scalar");
  std::vector<TensorType> types;
  for (size_t k = 0; k < sig.carried; ++k) {
    check_same_type(ctx, body[1 + k], sig.formal_types[2 + k],
                    "loop-carried value " + std::to_string(k) + " out of the body");
    types.push_back(body[1 + k]);
  }
  for (size_t j = 0; j < sig.scan_outputs; ++j) {
    std::vector<int64_t> shape = body[1 + sig.carried + j].shape();
    shape.insert(shape.begin(), sig.trip_count);
    types.push_back(TensorType::of(body[1 + sig.carried + j].dtype, shape));
  }
  return types;
}

std::vector<TensorType> infer_scan(const OpContext& ctx) {
  control::ScanSignature sig = control::scan_signature(ctx);
  std::vector<TensorType> body = control::body_output_types(ctx, *sig.body, sig.formal_types);
  // Opset 8 stacks the batch entries' results along a leading axis.
  auto batched = [&](TensorType type) {
    if (sig.batch > 0) type.dims.insert(type.dims.begin(), graph::Dim::of(sig.batch));
    return type;
  };
  std::vector<TensorType> types;
  for (size_t k = 0; k < sig.states; ++k) {
    check_same_type(ctx, body[k], sig.formal_types[k],
                    "state " + std::to_string(k) + " out of the body");
    types.push_back(batched(body[k]));
  }
  for (size_t j = 0; j < sig.scan_outputs; ++j) {
    const TensorType& slice = body[sig.states + j];
    std::vector<int64_t> shape = slice.shape();
    int axis = control::scan_output_axis(ctx, sig, j, slice.rank() + 1);
    shape.insert(shape.begin() + axis, sig.length);
    types.push_back(batched(TensorType::of(slice.dtype, shape)));
  }
  return types;
}

OpDef control_def(const std::string& name, int since, std::vector<AttrSpec> attributes,
                  InferFn infer) {
  OpDef def;
  def.name = name;
  def.since_version = since;
  def.attributes = std::move(attributes);
  def.pattern = PatternKind::Opaque;
  def.infer = std::move(infer);
  return def;
}

}  // namespace

void register_control_flow_ops(OpRegistry& registry) {
  registry.add(control_def("If", 1,
                           {{"then_branch", AttrKind::Graph, std::nullopt, true},
                            {"else_branch", AttrKind::Graph, std::nullopt, true}},
                           infer_if));
  OpDef loop = control_def("Loop", 1, {{"body", AttrKind::Graph, std::nullopt, true}}, infer_loop);
  loop.value_inputs = {0};
  registry.add(std::move(loop));
  registry.add(control_def("Scan", 8,
                           {{"body", AttrKind::Graph, std::nullopt, true},
                            {"directions", AttrKind::Ints, std::nullopt},
                            {"num_scan_inputs", AttrKind::Int, std::nullopt, true},
                            {"scan_input_axes", AttrKind::Ints, std::nullopt},
                            {"scan_input_directions", AttrKind::Ints, std::nullopt},
                            {"scan_output_axes", AttrKind::Ints, std::nullopt},
                            {"scan_output_directions", AttrKind::Ints, std::nullopt}},
                           infer_scan));
}

}  // namespace tessel::ops
