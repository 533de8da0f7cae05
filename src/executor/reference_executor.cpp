// ReferenceExecutor: plan compilation (folding, kernels) and execution.
#include "executor/reference_executor.h"

#include "executor/graph_inputs.h"

#include <set>
#include <sstream>

#include "ops/registry.h"
#include "support/error.h"

namespace tessel::executor {

namespace {

/// What the plan knows of one value: its type and, when known at compile time, its data.
struct Slot {
  graph::TensorType type;
  std::shared_ptr<const runtime::NDArray> constant;
  /// Index of the graph input it is bound to, or -1.
  int input = -1;
};

/// One kernel launch: the slots of its arguments (inputs, then outputs).
struct Step {
  std::shared_ptr<driver::Kernel> kernel;
  std::vector<size_t> input_slots;
  std::vector<size_t> output_slots;
};


}  // namespace

struct ReferenceExecutor::Plan {
  std::vector<Slot> slots;
  std::vector<Step> steps;
  std::vector<size_t> output_slots;
};

ReferenceExecutor::ReferenceExecutor(const graph::Graph& graph, ExecutorOptions options)
    : graph_(graph), options_(std::move(options)) {
  graph::verify(graph_);
  value_dependent_ = executor::value_dependent_inputs(graph_);
}

ReferenceExecutor::~ReferenceExecutor() = default;

std::unique_ptr<ReferenceExecutor::Plan> ReferenceExecutor::compile(
    const std::vector<const runtime::NDArray*>& inputs) const {
  auto plan = std::make_unique<Plan>();
  std::map<const graph::Value*, size_t> slot_of;
  for (const auto& value : graph_.values()) {
    slot_of[value.get()] = plan->slots.size();
    Slot slot;
    if (value->is_constant()) {
      slot.type = value->type;
      slot.constant = value->constant;
    }
    plan->slots.push_back(std::move(slot));
  }
  for (size_t i = 0; i < graph_.inputs().size(); ++i) {
    Slot& slot = plan->slots[slot_of.at(graph_.inputs()[i])];
    slot.type = graph::TensorType::of(graph::to_data_type(inputs[i]->dtype()), inputs[i]->shape());
    slot.input = static_cast<int>(i);
    if (value_dependent_[i]) slot.constant = std::make_shared<const runtime::NDArray>(inputs[i]->copy());
  }
  for (const auto& node_ptr : graph_.nodes()) {
    const graph::Node& node = *node_ptr;
    std::vector<graph::TensorType> types(node.inputs.size());
    std::vector<const runtime::NDArray*> values(node.inputs.size(), nullptr);
    bool all_known = true;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (!node.inputs[i]) continue;
      const Slot& slot = plan->slots[slot_of.at(node.inputs[i])];
      types[i] = slot.type;
      values[i] = slot.constant.get();
      all_known &= values[i] != nullptr;
    }
    NodeKernel compiled = compile_node(node, types, values, options_.build);
    std::vector<size_t> outs;
    for (size_t k = 0; k < compiled.output_types.size(); ++k) {
      const graph::Value* out = k < node.outputs.size() ? node.outputs[k] : nullptr;
      size_t index = out ? slot_of.at(out) : plan->slots.size();
      if (!out) plan->slots.emplace_back();
      plan->slots[index].type = compiled.output_types[k];
      outs.push_back(index);
    }
    if (!compiled.folded.empty()) {
      for (size_t k = 0; k < compiled.folded.size() && k < outs.size(); ++k)
        plan->slots[outs[k]].constant = compiled.folded[k];
      continue;
    }
    Step step;
    step.kernel = compiled.kernel;
    for (size_t i : compiled.kernel_inputs) step.input_slots.push_back(slot_of.at(node.inputs[i]));
    for (size_t k : compiled.kernel_outputs) step.output_slots.push_back(outs[k]);
    if (all_known) {
      // Every input is known: evaluate now and keep the results as constants.
      std::vector<runtime::NDArray> results = run_compiled(node, compiled, values);
      for (size_t k = 0; k < results.size() && k < outs.size(); ++k)
        plan->slots[outs[k]].constant = std::make_shared<const runtime::NDArray>(std::move(results[k]));
      continue;
    }
    plan->steps.push_back(std::move(step));
  }
  for (const graph::Value* out : graph_.outputs()) plan->output_slots.push_back(slot_of.at(out));
  return plan;
}

ReferenceExecutor::Plan& ReferenceExecutor::plan_for(const std::vector<const runtime::NDArray*>& inputs) {
  std::string key = compilation_key(graph_, value_dependent_, inputs);
  auto& plan = plans_[key];
  if (!plan) plan = compile(inputs);
  last_plan_ = plan.get();
  return *plan;
}

void ReferenceExecutor::prepare(const std::vector<const runtime::NDArray*>& inputs) { plan_for(inputs); }

size_t ReferenceExecutor::num_kernels() const { return last_plan_ ? last_plan_->steps.size() : 0; }

std::vector<runtime::NDArray> ReferenceExecutor::run(const std::vector<const runtime::NDArray*>& inputs) {
  Plan& plan = plan_for(inputs);
  std::vector<runtime::NDArray> owned(plan.slots.size());
  std::vector<const runtime::NDArray*> data(plan.slots.size(), nullptr);
  for (size_t s = 0; s < plan.slots.size(); ++s) {
    const Slot& slot = plan.slots[s];
    if (slot.constant) data[s] = slot.constant.get();
    else if (slot.input >= 0) data[s] = inputs[static_cast<size_t>(slot.input)];
  }
  for (const Step& step : plan.steps) {
    std::vector<void*> args;
    for (size_t s : step.input_slots) args.push_back(const_cast<void*>(data[s]->data()));
    for (size_t s : step.output_slots) {
      const graph::TensorType& type = plan.slots[s].type;
      owned[s] = runtime::NDArray(type.shape(), graph::to_runtime_dtype(type.dtype));
      data[s] = &owned[s];
      args.push_back(owned[s].data());
    }
    if (step.kernel) step.kernel->run(args);
  }
  std::vector<runtime::NDArray> results;
  for (size_t s : plan.output_slots) {
    TESSEL_ICHECK(data[s] != nullptr, "graph output slot ", s, " was never computed");
    results.push_back(data[s]->copy());
  }
  return results;
}

}  // namespace tessel::executor
