// Reading If, Loop and Scan nodes: their bodies, counts, axes and the types they pass on.
#include "ops/control/control_flow.h"

#include <string>

namespace tessel::ops::control {
namespace {

/// Fails unless `body` takes `formal` inputs of its own besides its captured ones.
void check_formal_inputs(const OpContext& ctx, const graph::Graph& body, size_t formal,
                         const std::string& which) {
  size_t given = body.inputs().size() - body.captured_inputs;
  if (given != formal)
    ctx.fail("its " + which + " takes " + std::to_string(given) + " inputs; it must take " +
             std::to_string(formal));
}

/// Fails unless input `i` is a scalar (or one-element tensor) of `dtype`.
void check_scalar(const OpContext& ctx, size_t i, ir::DataType dtype, const std::string& what) {
  const graph::TensorType& type = ctx.input_type(i);
  if (type.dtype != dtype || type.num_elements() != 1 || type.rank() > 1)
    ctx.fail(what + " (input " + std::to_string(i) + ") must be a " + dtype.to_string() +
             " scalar, not " + type.to_string());
}

/// `axis` in [-rank, rank) made non-negative.
int normal_axis(const OpContext& ctx, int64_t axis, int rank, const std::string& what) {
  if (axis < -rank || axis >= rank)
    ctx.fail(what + " " + std::to_string(axis) + " is out of range for rank " +
             std::to_string(rank));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

/// The attribute `name` (one entry per item, default 0), its length checked.
std::vector<int64_t> per_item(const OpContext& ctx, const std::string& name, size_t items) {
  if (!ctx.has_attr(name)) return std::vector<int64_t>(items, 0);
  std::vector<int64_t> values = ctx.attr_ints(name);
  if (values.size() != items)
    ctx.fail("attribute '" + name + "' has " + std::to_string(values.size()) + " entries for " +
             std::to_string(items) + " scanned values");
  return values;
}

/// Largest trip count of a Loop without a condition: more iterations would not finish.
constexpr int64_t kMaxUnconditionalTrips = int64_t{1} << 32;

}  // namespace

size_t first_captured_input(const OpContext& ctx, const graph::Graph& body) {
  if (body.captured_inputs > ctx.num_inputs())
    ctx.fail("its body '" + body.name + "' reads " + std::to_string(body.captured_inputs) +
             " outer values but the node passes " + std::to_string(ctx.num_inputs()) + " inputs");
  return ctx.num_inputs() - body.captured_inputs;
}

std::vector<graph::TensorType> body_output_types(const OpContext& ctx, const graph::Graph& body,
                                                 const std::vector<graph::TensorType>& formal) {
  std::vector<graph::TensorType> types = formal;
  std::vector<const runtime::NDArray*> values(formal.size(), nullptr);
  for (size_t i = first_captured_input(ctx, body); i < ctx.num_inputs(); ++i) {
    types.push_back(ctx.input_type(i));
    values.push_back(ctx.input_value(i));
  }
  return ctx.body_output_types(body, types, values);
}

IfSignature if_signature(const OpContext& ctx) {
  IfSignature sig;
  sig.then_branch = &ctx.attr_graph("then_branch");
  sig.else_branch = &ctx.attr_graph("else_branch");
  check_formal_inputs(ctx, *sig.then_branch, 0, "then_branch");
  check_formal_inputs(ctx, *sig.else_branch, 0, "else_branch");
  if (first_captured_input(ctx, *sig.then_branch) != 1)
    ctx.fail("takes one input (the condition), given " +
             std::to_string(first_captured_input(ctx, *sig.then_branch)));
  check_scalar(ctx, 0, ir::DataType::Bool(), "the condition");
  return sig;
}

LoopSignature loop_signature(const OpContext& ctx) {
  LoopSignature sig;
  sig.body = &ctx.attr_graph("body");
  size_t own = first_captured_input(ctx, *sig.body);
  if (own < 2) ctx.fail("takes the trip count and the condition (either may be empty) first");
  sig.carried = own - 2;
  check_formal_inputs(ctx, *sig.body, own, "body");
  size_t body_outputs = sig.body->outputs().size();
  if (body_outputs < 1 + sig.carried)
    ctx.fail("its body gives " + std::to_string(body_outputs) + " outputs; it must give the " +
             "condition and the " + std::to_string(sig.carried) + " carried values first");
  sig.scan_outputs = body_outputs - 1 - sig.carried;
  sig.has_trip_count = ctx.has_input(0);
  sig.has_condition = ctx.has_input(1);
  if (sig.has_trip_count) {
    check_scalar(ctx, 0, ir::DataType::Int(64), "the trip count");
    sig.trip_count = ctx.input_ints(0).at(0);
    if (sig.trip_count < 0)
      ctx.fail("the trip count " + std::to_string(sig.trip_count) + " is negative");
  }
  if (sig.has_condition) check_scalar(ctx, 1, ir::DataType::Bool(), "the condition");
  if (!sig.has_condition && !sig.has_trip_count)
    ctx.fail("has neither a trip count nor a condition: it would never stop");
  if (!sig.has_condition && sig.trip_count > kMaxUnconditionalTrips)
    ctx.fail("the trip count " + std::to_string(sig.trip_count) +
             " is absurd for a loop without a condition (at most " +
             std::to_string(kMaxUnconditionalTrips) + " iterations)");
  if (sig.scan_outputs > 0 && !sig.has_trip_count)
    ctx.fail("has " + std::to_string(sig.scan_outputs) +
             " scan outputs but no trip count: their length would depend on the values");
  sig.formal_types = {graph::TensorType::of(ir::DataType::Int(64), {}),
                      graph::TensorType::of(ir::DataType::Bool(), {})};
  for (size_t k = 0; k < sig.carried; ++k) sig.formal_types.push_back(ctx.input_type(2 + k));
  return sig;
}

ScanSignature scan_signature(const OpContext& ctx) {
  ScanSignature sig;
  sig.body = &ctx.attr_graph("body");
  // Opset 8 scans each batch entry of its inputs (axis 0) along axis 1, after an optional
  // sequence_lens input.
  bool batched = ctx.opset() < 9;
  sig.first_input = batched ? 1 : 0;
  if (batched && ctx.has_input(0))
    ctx.fail("sequence_lens is not supported: every sequence must have the full length");
  size_t own = first_captured_input(ctx, *sig.body) - sig.first_input;
  int64_t scan_inputs = ctx.attr_int("num_scan_inputs");
  if (scan_inputs < 1 || static_cast<size_t>(scan_inputs) > own)
    ctx.fail("num_scan_inputs is " + std::to_string(scan_inputs) + " for " + std::to_string(own) +
             " inputs");
  sig.scan_inputs = static_cast<size_t>(scan_inputs);
  sig.states = own - sig.scan_inputs;
  check_formal_inputs(ctx, *sig.body, own, "body");
  size_t body_outputs = sig.body->outputs().size();
  if (body_outputs < sig.states)
    ctx.fail("its body gives " + std::to_string(body_outputs) + " outputs for " +
             std::to_string(sig.states) + " states");
  sig.scan_outputs = body_outputs - sig.states;
  std::vector<int64_t> in_axes = batched ? std::vector<int64_t>(sig.scan_inputs, 0)
                                         : per_item(ctx, "scan_input_axes", sig.scan_inputs);
  std::vector<int64_t> in_dirs =
      per_item(ctx, batched ? "directions" : "scan_input_directions", sig.scan_inputs);
  sig.output_axes = batched ? std::vector<int64_t>(sig.scan_outputs, 0)
                            : per_item(ctx, "scan_output_axes", sig.scan_outputs);
  std::vector<int64_t> out_dirs = batched
                                      ? std::vector<int64_t>(sig.scan_outputs, 0)
                                      : per_item(ctx, "scan_output_directions", sig.scan_outputs);
  // The shape of input i as the body's iterations see it: without the batch axis.
  auto unbatched = [&](size_t i) {
    std::vector<int64_t> shape = ctx.input_shape(i);
    if (!batched) return shape;
    if (shape.empty()) ctx.fail("input " + std::to_string(i) + " has no batch axis");
    if (i == sig.first_input) sig.batch = shape[0];
    if (shape[0] != sig.batch)
      ctx.fail("input " + std::to_string(i) + " has a batch of " + std::to_string(shape[0]) +
               ", input " + std::to_string(sig.first_input) + " of " + std::to_string(sig.batch));
    shape.erase(shape.begin());
    return shape;
  };
  for (size_t k = 0; k < sig.states; ++k) {
    size_t input = sig.first_input + k;
    sig.formal_types.push_back(
        graph::TensorType::of(ctx.input_type(input).dtype, unbatched(input)));
  }
  for (size_t j = 0; j < sig.scan_inputs; ++j) {
    size_t input = sig.first_input + sig.states + j;
    std::vector<int64_t> shape = unbatched(input);
    std::string what = "scan_input_axes entry " + std::to_string(j);
    int axis = normal_axis(ctx, in_axes[j], static_cast<int>(shape.size()), what);
    if (j == 0) sig.length = shape[axis];
    if (shape[axis] != sig.length)
      ctx.fail("scan input " + std::to_string(j) + " has " + std::to_string(shape[axis]) +
               " elements along axis " + std::to_string(axis) + ", scan input 0 has " +
               std::to_string(sig.length));
    sig.input_axes.push_back(axis);
    sig.input_reverse.push_back(in_dirs[j] != 0);
    shape.erase(shape.begin() + axis);
    sig.formal_types.push_back(graph::TensorType::of(ctx.input_type(input).dtype, shape));
  }
  for (size_t j = 0; j < sig.scan_outputs; ++j) sig.output_reverse.push_back(out_dirs[j] != 0);
  return sig;
}

int scan_output_axis(const OpContext& ctx, const ScanSignature& sig, size_t j, int rank) {
  return normal_axis(ctx, sig.output_axes.at(j), rank,
                     "scan_output_axes entry " + std::to_string(j));
}

}  // namespace tessel::ops::control
