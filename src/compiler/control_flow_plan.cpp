// If, Loop and Scan in the plan: each body is compiled into the plan as a graph of its own
// (specialised to the types its node passes it, through the graph passes), and the runtime
// runs it through copies, jumps and loop tests:
//
//   If:    jump-unless cond -> ELSE; then-body; copy its outputs; jump -> END;
//          ELSE: else-body; copy its outputs; END:
//   Loop:  iteration = 0; condition, states = the initial values (a state is the node's
//          output); TOP: loop-test (iteration < trip count and condition) -> END; body;
//          scan slices out at the iteration; condition, states = the body's outputs;
//          iteration += 1; jump -> TOP; END:
//   Scan:  the same loop over the scanned axis, each iteration's slices copied in first.
#include <algorithm>
#include <limits>

#include "compiler/plan_builder.h"
#include "executor/node_kernel.h"
#include "ops/control/control_flow.h"
#include "passes/body_types.h"
#include "passes/pipeline.h"
#include "passes/specialize_inputs.h"
#include "support/error.h"

namespace tessel::compiler {
namespace {

using graph::TensorType;

std::shared_ptr<const runtime::NDArray> scalar(runtime::DType dtype, int64_t value) {
  auto array = std::make_shared<runtime::NDArray>(runtime::NDArray::zeros({}, dtype));
  if (dtype == runtime::DType::Bool())
    *static_cast<uint8_t*>(array->data()) = value != 0;
  else
    *static_cast<int64_t*>(array->data()) = value;
  return array;
}

/// A control-flow node as its operator's type inference saw it: its inputs' types and known
/// values, the context its signature reads, its output types and a label for its steps.
class ControlNode {
 public:
  explicit ControlNode(const graph::Node& node)
      : types_(types_of(node)),
        values_(values_of(node)),
        ctx_(node, executor::find_op(node), types_, values_, &passes::body_typer()),
        label_(node.op_type + " " + node.describe()) {}

  const ops::OpContext& ctx() const { return ctx_; }
  const std::string& label() const { return label_; }
  std::vector<TensorType> output_types() const { return ctx_.def().infer(ctx_); }

 private:
  static std::vector<TensorType> types_of(const graph::Node& node) {
    std::vector<TensorType> types;
    for (const graph::Value* in : node.inputs) types.push_back(in ? in->type : TensorType{});
    return types;
  }
  static std::vector<const runtime::NDArray*> values_of(const graph::Node& node) {
    std::vector<const runtime::NDArray*> values;
    for (const graph::Value* in : node.inputs) values.push_back(in ? in->constant.get() : nullptr);
    return values;
  }

  std::vector<TensorType> types_;
  std::vector<const runtime::NDArray*> values_;
  ops::OpContext ctx_;
  std::string label_;
};

runtime::PlanStep control_step(runtime::StepKind kind, std::vector<int32_t> args,
                               const std::string& label) {
  runtime::PlanStep step;
  step.kind = kind;
  step.args = std::move(args);
  step.label = label;
  return step;
}

/// `body` as compiled for inputs of `types` (and, where given, `values`).
std::shared_ptr<const graph::Graph> optimize_body(
    const graph::Graph& body, const std::vector<TensorType>& types,
    const std::vector<const runtime::NDArray*>& values, const CompileOptions& options) {
  return std::make_shared<const graph::Graph>(
      passes::run_pipeline(passes::specialize_inputs(body, types, values, false),
                           passes::default_pipeline(options.build.target, options.passes)));
}

}  // namespace

std::vector<CompiledBody> compiled_bodies(const graph::Node& node, const CompileOptions& options) {
  ControlNode control(node);
  auto compile = [&](const graph::Graph& body, std::vector<TensorType> types) {
    std::vector<const runtime::NDArray*> values(types.size(), nullptr);
    for (size_t i = ops::control::first_captured_input(control.ctx(), body); i < node.inputs.size();
         ++i) {
      types.push_back(node.inputs[i]->type);
      values.push_back(node.inputs[i]->constant.get());
    }
    return optimize_body(body, types, values, options);
  };
  if (node.op_type == "If") {
    ops::control::IfSignature sig = ops::control::if_signature(control.ctx());
    return {{compile(*sig.then_branch, {}), 1}, {compile(*sig.else_branch, {}), 1}};
  }
  if (node.op_type == "Loop") {
    ops::control::LoopSignature sig = ops::control::loop_signature(control.ctx());
    return {{compile(*sig.body, sig.formal_types), sig.has_trip_count ? sig.trip_count : 1}};
  }
  TESSEL_ICHECK(node.op_type == "Scan", node.describe(), ": a body that is not If, Loop or Scan's");
  ops::control::ScanSignature sig = ops::control::scan_signature(control.ctx());
  return {{compile(*sig.body, sig.formal_types), sig.length * std::max<int64_t>(sig.batch, 1)}};
}

void PlanBuilder::emit_control_flow(const graph::Node& node) {
  if (node.op_type == "If") return emit_if(node);
  if (node.op_type == "Loop") return emit_loop(node);
  if (node.op_type == "Scan") return emit_scan(node);
  TESSEL_INTERNAL_ERROR(node.describe(), ": a node with a body that is not If, Loop or Scan");
}

PlanBuilder::BodyArgs PlanBuilder::node_args(const graph::Node& node, size_t first) {
  BodyArgs args;
  for (size_t i = first; i < node.inputs.size(); ++i)
    args.add(table_.of(*node.inputs[i]), node.inputs[i]->type, node.inputs[i]->constant.get());
  return args;
}

std::vector<int> PlanBuilder::emit_body(const graph::Graph& body, const BodyArgs& args) {
  TESSEL_ICHECK(args.ids.size() == body.inputs().size(), "body '", body.name, "' takes ",
                body.inputs().size(), " inputs, given ", args.ids.size());
  std::shared_ptr<const graph::Graph> compiled =
      optimize_body(body, args.types, args.values, options_);
  // The passes keep the names of the body's inputs; those given as values became constants.
  std::map<std::string, int> id_of_name;
  for (size_t i = 0; i < args.ids.size(); ++i) id_of_name[body.inputs()[i]->name] = args.ids[i];
  for (const graph::Value* in : compiled->inputs()) table_.bind(*in, id_of_name.at(in->name));
  emit_graph(*compiled);
  std::vector<int> outputs;
  for (const graph::Value* out : compiled->outputs()) outputs.push_back(table_.of(*out));
  model_.bodies.push_back(std::move(compiled));
  return outputs;
}

void PlanBuilder::emit_copies(const std::vector<int>& from, const std::vector<int>& to,
                              const std::string& label) {
  // A source that another copy overwrites (states swapped by the body) is saved first.
  std::vector<int> sources = from;
  for (size_t k = 0; k < from.size(); ++k)
    for (size_t m = 0; m < to.size(); ++m) {
      if (m == k || to[m] != from[k] || from[m] == to[m]) continue;
      const runtime::PlanTensor& t = model_.plan.tensors[static_cast<size_t>(from[k])];
      sources[k] =
          table_.arena(t.name + ".saved", TensorType::of(graph::to_data_type(t.dtype), t.shape));
      add_step(control_step(runtime::StepKind::Copy, {from[k], sources[k]}, label));
      break;
    }
  for (size_t k = 0; k < to.size(); ++k)
    if (from[k] != to[k])
      add_step(control_step(runtime::StepKind::Copy, {sources[k], to[k]}, label));
}

void PlanBuilder::emit_if(const graph::Node& node) {
  ControlNode control(node);
  const std::string& label = control.label();
  ops::control::IfSignature sig = ops::control::if_signature(control.ctx());
  BodyArgs captured = node_args(node, 1);
  int branch =
      add_step(control_step(runtime::StepKind::JumpUnless, {table_.of(*node.inputs[0])}, label));
  auto run_branch = [&](const graph::Graph& body) {
    std::vector<int> results = emit_body(body, captured);
    std::vector<int> from, to;
    for (size_t k = 0; k < node.outputs.size(); ++k)
      if (node.outputs[k]) {
        from.push_back(results.at(k));
        to.push_back(table_.of(*node.outputs[k]));
      }
    emit_copies(from, to, label);
  };
  run_branch(*sig.then_branch);
  int jump = add_step(control_step(runtime::StepKind::Jump, {}, label));
  model_.plan.steps[branch].target = next_step();
  run_branch(*sig.else_branch);
  model_.plan.steps[jump].target = next_step();
}

void PlanBuilder::emit_loop(const graph::Node& node) {
  ControlNode control(node);
  const std::string& label = control.label();
  ops::control::LoopSignature sig = ops::control::loop_signature(control.ctx());
  std::vector<TensorType> output_types = control.output_types();
  auto output = [&](size_t k) {
    const graph::Value* out = k < node.outputs.size() ? node.outputs[k] : nullptr;
    return out ? table_.of(*out) : table_.arena("unused output", output_types.at(k));
  };
  int iteration = table_.arena("iteration", sig.formal_types[0]);
  int trips = sig.has_trip_count
                  ? table_.of(*node.inputs[0])
                  : table_.constant("no trip count", scalar(runtime::DType::Int(64),
                                                            std::numeric_limits<int64_t>::max()));
  int condition = sig.has_condition ? table_.arena("condition", sig.formal_types[1])
                                    : table_.constant("true", scalar(runtime::DType::Bool(), 1));
  // Before the loop: the iteration, the condition and the states (the node's outputs) start.
  std::vector<int> from = {table_.constant("zero", scalar(runtime::DType::Int(64), 0))};
  std::vector<int> to = {iteration};
  if (sig.has_condition) {
    from.push_back(table_.of(*node.inputs[1]));
    to.push_back(condition);
  }
  BodyArgs args;
  args.add(iteration, sig.formal_types[0]);
  args.add(condition, sig.formal_types[1]);
  for (size_t k = 0; k < sig.carried; ++k) {
    from.push_back(table_.of(*node.inputs[2 + k]));
    to.push_back(output(k));
    args.add(to.back(), sig.formal_types[2 + k]);
  }
  emit_copies(from, to, label);

  runtime::PlanStep test =
      control_step(runtime::StepKind::LoopTest, {iteration, trips, condition}, label);
  test.all_trips = sig.scan_outputs > 0;
  int top = add_step(std::move(test));
  BodyArgs captured = node_args(node, 2 + sig.carried);
  for (size_t i = 0; i < captured.ids.size(); ++i)
    args.add(captured.ids[i], captured.types[i], captured.values[i]);
  std::vector<int> results = emit_body(*sig.body, args);
  for (size_t j = 0; j < sig.scan_outputs; ++j) {
    size_t k = sig.carried + j;
    add_step(control_step(runtime::StepKind::SliceOut, {results.at(1 + k), output(k), iteration},
                          label));
  }
  // The next iteration's condition and states: the body's outputs, past the iteration.
  from.assign(results.begin() + (sig.has_condition ? 0 : 1),
              results.begin() + static_cast<long>(1 + sig.carried));
  to.assign(args.ids.begin() + (sig.has_condition ? 1 : 2),
            args.ids.begin() + static_cast<long>(2 + sig.carried));
  emit_copies(from, to, label);
  emit_loop_end(iteration, top, label);
}

void PlanBuilder::emit_scan(const graph::Node& node) {
  ControlNode control(node);
  const std::string& label = control.label();
  ops::control::ScanSignature sig = ops::control::scan_signature(control.ctx());
  std::vector<TensorType> output_types = control.output_types();
  std::vector<int> initial, scanned, outputs;
  for (size_t k = 0; k < sig.states + sig.scan_inputs; ++k)
    (k < sig.states ? initial : scanned).push_back(table_.of(*node.inputs[sig.first_input + k]));
  for (size_t k = 0; k < sig.states + sig.scan_outputs; ++k) {
    const graph::Value* out = k < node.outputs.size() ? node.outputs[k] : nullptr;
    outputs.push_back(out ? table_.of(*out) : table_.arena("unused output", output_types.at(k)));
  }
  BodyArgs captured = node_args(node, ops::control::first_captured_input(control.ctx(), *sig.body));
  auto scan = [&](const std::vector<int>& initial_ids, const std::vector<int>& scanned_ids,
                  const std::vector<int>& output_ids) {
    int iteration = table_.arena("iteration", TensorType::of(ir::DataType::Int(64), {}));
    int trips = table_.constant("scan length", scalar(runtime::DType::Int(64), sig.length));
    int condition = table_.constant("true", scalar(runtime::DType::Bool(), 1));
    std::vector<int> states(output_ids.begin(), output_ids.begin() + static_cast<long>(sig.states));
    std::vector<int> from = {table_.constant("zero", scalar(runtime::DType::Int(64), 0))};
    std::vector<int> to = {iteration};
    from.insert(from.end(), initial_ids.begin(), initial_ids.end());
    to.insert(to.end(), states.begin(), states.end());
    emit_copies(from, to, label);
    int top =
        add_step(control_step(runtime::StepKind::LoopTest, {iteration, trips, condition}, label));
    BodyArgs args;
    for (size_t k = 0; k < sig.states; ++k) args.add(states[k], sig.formal_types[k]);
    for (size_t j = 0; j < sig.scan_inputs; ++j) {
      const TensorType& type = sig.formal_types[sig.states + j];
      int slice = table_.arena("scan slice", type);
      runtime::PlanStep in =
          control_step(runtime::StepKind::SliceIn, {scanned_ids[j], slice, iteration}, label);
      in.axis = sig.input_axes[j];
      in.reverse = sig.input_reverse[j];
      add_step(std::move(in));
      args.add(slice, type);
    }
    for (size_t i = 0; i < captured.ids.size(); ++i)
      args.add(captured.ids[i], captured.types[i], captured.values[i]);
    std::vector<int> results = emit_body(*sig.body, args);
    for (size_t j = 0; j < sig.scan_outputs; ++j) {
      size_t k = sig.states + j;
      const runtime::PlanTensor& whole = model_.plan.tensors[static_cast<size_t>(output_ids[k])];
      runtime::PlanStep out = control_step(runtime::StepKind::SliceOut,
                                           {results.at(k), output_ids[k], iteration}, label);
      out.axis = ops::control::scan_output_axis(control.ctx(), sig, j,
                                                static_cast<int>(whole.shape.size()));
      out.reverse = sig.output_reverse[j];
      add_step(std::move(out));
    }
    emit_copies(std::vector<int>(results.begin(), results.begin() + static_cast<long>(sig.states)),
                states, label);
    emit_loop_end(iteration, top, label);
  };
  if (sig.batch == 0) return scan(initial, scanned, outputs);
  // Opset 8: the scan above once per batch entry, on slices along axis 0.
  int entry = table_.arena("batch entry", TensorType::of(ir::DataType::Int(64), {}));
  int entries = table_.constant("batch", scalar(runtime::DType::Int(64), sig.batch));
  int condition = table_.constant("true", scalar(runtime::DType::Bool(), 1));
  emit_copies({table_.constant("zero", scalar(runtime::DType::Int(64), 0))}, {entry}, label);
  int top = add_step(control_step(runtime::StepKind::LoopTest, {entry, entries, condition}, label));
  auto entry_of = [&](const std::vector<int>& wholes) {
    std::vector<int> slices;
    for (int whole : wholes) {
      const runtime::PlanTensor& t = model_.plan.tensors[static_cast<size_t>(whole)];
      std::vector<int64_t> shape(t.shape.begin() + 1, t.shape.end());
      slices.push_back(
          table_.arena(t.name + ".entry", TensorType::of(graph::to_data_type(t.dtype), shape)));
    }
    return slices;
  };
  std::vector<int> initial_entry = entry_of(initial), scanned_entry = entry_of(scanned);
  std::vector<int> output_entry = entry_of(outputs);
  for (size_t k = 0; k < initial.size(); ++k)
    add_step(
        control_step(runtime::StepKind::SliceIn, {initial[k], initial_entry[k], entry}, label));
  for (size_t k = 0; k < scanned.size(); ++k)
    add_step(
        control_step(runtime::StepKind::SliceIn, {scanned[k], scanned_entry[k], entry}, label));
  scan(initial_entry, scanned_entry, output_entry);
  for (size_t k = 0; k < outputs.size(); ++k)
    add_step(
        control_step(runtime::StepKind::SliceOut, {output_entry[k], outputs[k], entry}, label));
  emit_loop_end(entry, top, label);
}

void PlanBuilder::emit_loop_end(int iteration, int top, const std::string& label) {
  add_step(control_step(runtime::StepKind::Increment, {iteration}, label));
  runtime::PlanStep back = control_step(runtime::StepKind::Jump, {}, label);
  back.target = top;
  int last = add_step(std::move(back));
  model_.plan.steps[top].target = next_step();
  loops_.push_back({top, last});
}

}  // namespace tessel::compiler
