// compile_graph: fusion, one kernel per distinct group, tensors placed in weights / arena.
#include "compiler/compile_model.h"

#include <chrono>
#include <cstring>
#include <map>
#include <ostream>
#include <sstream>

#include "codegen/llvm/jit.h"
#include "codegen/llvm/target.h"
#include "compiler/concat_views.h"
#include "compiler/group_kernel.h"
#include "compiler/memory_plan.h"
#include "driver/export_model.h"
#include "passes/specialize_inputs.h"
#include "schedule/replay.h"
#include "support/error.h"

namespace tessel::compiler {
namespace {

constexpr int64_t kAlignment = 64;

int64_t align_up(int64_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

/// A symbol-safe kernel name: its index and its operators.
std::string kernel_name(size_t index, const std::string& label) {
  std::string name = "k" + std::to_string(index) + "_" + label.substr(0, 48);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

/// Builds the plan's tensor table: one tensor per graph value that a kernel or the caller
/// touches, with its storage; the weights are collected (each constant once).
class TensorTable {
 public:
  TensorTable(const graph::Graph& graph, runtime::ModelPlan& plan) : plan_(plan) {
    for (size_t i = 0; i < graph.inputs().size(); ++i) {
      int id = add(graph.inputs()[i]->name, graph.inputs()[i]->type, runtime::Storage::Input);
      plan_.tensors[id].offset = static_cast<int64_t>(i);
      plan_.inputs.push_back(id);
      ids_[graph.inputs()[i]] = id;
    }
  }

  /// The tensor of `value`, created on first use (constants go to the weights).
  int of(const graph::Value& value) {
    auto found = ids_.find(&value);
    if (found != ids_.end()) return found->second;
    int id;
    if (value.constant) {
      id = add(value.name, value.type, runtime::Storage::Weight);
      auto placed = weight_offsets_.find(value.constant.get());
      if (placed == weight_offsets_.end()) {
        placed = weight_offsets_.emplace(value.constant.get(), plan_.weights_bytes).first;
        weights_.push_back(value.constant);
        plan_.weights_bytes += align_up(static_cast<int64_t>(value.constant->nbytes()));
      }
      plan_.tensors[id].offset = placed->second;
    } else {
      TESSEL_ICHECK(value.producer, "value '", value.name,
                    "' is neither a graph input, a constant nor computed by a node");
      id = add(value.name, value.type, runtime::Storage::Arena);
    }
    ids_[&value] = id;
    return id;
  }

  /// The tensor of `value`, or -1 when nothing uses it.
  int find(const graph::Value& value) const {
    auto found = ids_.find(&value);
    return found == ids_.end() ? -1 : found->second;
  }

  /// A scratch tensor for an output the graph omits.
  int scratch(const graph::TensorType& type) {
    return add("scratch" + std::to_string(plan_.tensors.size()), type, runtime::Storage::Arena);
  }

  /// The weights blob, 64-byte aligned.
  std::shared_ptr<runtime::NDArray> weights() const {
    auto blob = std::make_shared<runtime::NDArray>(
        runtime::NDArray::zeros({plan_.weights_bytes}, runtime::DType::UInt(8)));
    for (const auto& constant : weights_) {
      auto* dst = static_cast<uint8_t*>(blob->data()) + weight_offsets_.at(constant.get());
      std::memcpy(dst, constant->data(), constant->nbytes());
    }
    return blob;
  }

 private:
  int add(const std::string& name, const graph::TensorType& type, runtime::Storage storage) {
    TESSEL_ICHECK(type.has_static_shape(), "value '", name, "' has no static type ",
                  type.to_string());
    runtime::PlanTensor tensor;
    tensor.name = name;
    tensor.dtype = graph::to_runtime_dtype(type.dtype);
    tensor.shape = type.shape();
    tensor.storage = storage;
    plan_.tensors.push_back(std::move(tensor));
    return static_cast<int>(plan_.tensors.size() - 1);
  }

  runtime::ModelPlan& plan_;
  std::map<const graph::Value*, int> ids_;
  std::map<const runtime::NDArray*, int64_t> weight_offsets_;
  std::vector<std::shared_ptr<const runtime::NDArray>> weights_;
};

/// A tensor that lives inside another's buffer: the other's id and the byte offset.
struct TensorSlice {
  int buffer = -1;
  int64_t byte_offset = 0;
};

/// Places the arena tensors: each buffer lives from the first step touching it to its last
/// reader (the graph's outputs to the end); a slice keeps its buffer alive as long as it
/// is used, and takes no memory of its own.
void place_activations(runtime::ModelPlan& plan, const std::vector<int>& in_place_of_step,
                       const std::vector<TensorSlice>& slices, CompileStats& stats) {
  std::vector<int> first(plan.tensors.size(), -1), last(plan.tensors.size(), -1);
  int end = static_cast<int>(plan.steps.size());
  auto touch = [&](int id, int step) {
    int owner = slices[id].buffer >= 0 ? slices[id].buffer : id;
    for (int t : {id, owner}) {
      if (first[t] < 0 || step < first[t]) first[t] = step;
      last[t] = std::max(last[t], step);
    }
  };
  for (int s = 0; s < end; ++s)
    for (int id : plan.steps[s].args) touch(id, s);
  for (int id : plan.outputs) touch(id, end);
  std::vector<int> buffer_of(plan.tensors.size(), -1);
  std::vector<int> tensor_of_buffer;
  std::vector<BufferRequest> requests;
  for (size_t id = 0; id < plan.tensors.size(); ++id) {
    if (plan.tensors[id].storage != runtime::Storage::Arena || slices[id].buffer >= 0) continue;
    BufferRequest request;
    request.bytes = plan.tensors[id].nbytes();
    request.first_step = std::max(first[id], 0);
    request.last_step = std::max(last[id], request.first_step);
    buffer_of[id] = static_cast<int>(requests.size());
    tensor_of_buffer.push_back(static_cast<int>(id));
    requests.push_back(request);
  }
  for (int s = 0; s < end; ++s) {
    if (in_place_of_step[s] < 0) continue;
    // in_place_of_step holds the tensor id of the input; a kernel that may run in place has
    // one output, its last argument. A slice has no buffer of its own to hand over.
    int input = in_place_of_step[s];
    const runtime::PlanStep& step = plan.steps[s];
    int output = step.args.back();
    if (buffer_of[input] < 0 || buffer_of[output] < 0) continue;
    requests[buffer_of[output]].in_place_of = buffer_of[input];
  }
  MemoryPlan memory = plan_memory(requests, kAlignment);
  for (size_t b = 0; b < requests.size(); ++b)
    plan.tensors[tensor_of_buffer[b]].offset = memory.offsets[b];
  for (size_t id = 0; id < plan.tensors.size(); ++id)
    if (slices[id].buffer >= 0)
      plan.tensors[id].offset = plan.tensors[slices[id].buffer].offset + slices[id].byte_offset;
  plan.arena_bytes = memory.arena_bytes;
  plan.intermediate_bytes = memory.total_bytes;
  stats.in_place = memory.in_place;
}

double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
      .count();
}

}  // namespace

TargetLanesScope::TargetLanesScope(const std::string& target) {
  if (!target.empty()) scope_.emplace(codegen::Target::parse(target).float_lanes());
}

TargetLanesScope::~TargetLanesScope() = default;

CompiledModel compile_graph(const graph::Graph& graph, const CompileOptions& options) {
  TargetLanesScope lanes(options.build.target);
  CompiledModel model;
  runtime::ModelPlan& plan = model.plan;
  plan.name = graph.name;
  plan.num_threads = options.num_threads;
  TensorTable table(graph, plan);
  model.groups = fuse_operators(graph, options.fusion);
  ConcatViews views = plan_concat_views(model.groups, kAlignment);
  model.stats.nodes = graph.nodes().size();

  std::map<std::string, std::string> kernel_of_key;
  FoldKernelCache fold_cache;
  // Folded constants (packed weights) the plan's tensors refer to.
  std::vector<std::unique_ptr<graph::Value>> folded_values;
  std::vector<int> in_place_of_step;
  for (size_t g = 0; g < model.groups.size(); ++g) {
    const FusedGroup& group = model.groups[g];
    if (views.in_place_groups.count(g)) {
      ++model.stats.concats_in_place;
      continue;
    }
    GroupKernel kernel = build_group_kernel(group, fold_cache);
    bool any_elements = false;
    for (size_t k = kernel.num_inputs; k < kernel.arg_values.size(); ++k)
      any_elements |= kernel.arg_values[k] &&
                      kernel.output_types[k - kernel.num_inputs].num_elements() > 0;
    runtime::PlanStep step;
    step.label = group.label();
    for (size_t a = 0; a < kernel.arg_values.size(); ++a) {
      const graph::Value* value = kernel.arg_values[a];
      step.args.push_back(value ? table.of(*value)
                                : table.scratch(kernel.output_types[a - kernel.num_inputs]));
    }
    for (auto& value : kernel.folded_values) folded_values.push_back(std::move(value));
    if (!any_elements) continue;  // empty outputs: nothing to compute
    auto [found, added] = kernel_of_key.try_emplace(kernel.key, "");
    if (added) {
      found->second = kernel_name(model.kernels.size(), step.label);
      if (options.progress)
        *options.progress << "  kernel " << model.kernels.size() + 1 << ": " << step.label
                          << " (group " << g + 1 << " of " << model.groups.size() << ")\n";
      if (options.choose_schedule)
        if (std::optional<schedule::Trace> trace = options.choose_schedule(kernel))
          kernel.schedule = std::make_shared<schedule::Schedule>(
              schedule::replay(kernel.scheduler->outputs(), *trace));
      model.kernels.push_back(lower_group_kernel(kernel, found->second, options.build));
    }
    step.kernel = found->second;
    for (const graph::Node* node : group.nodes)
      model.stats.layout_changes +=
          node->op_type == "LayoutToNCHWc" || node->op_type == "LayoutFromNCHWc";
    in_place_of_step.push_back(kernel.in_place_input >= 0 ? step.args[kernel.in_place_input] : -1);
    plan.steps.push_back(std::move(step));
  }
  for (const graph::Value* out : graph.outputs()) plan.outputs.push_back(table.of(*out));
  // The buffers' tensors first (table.of may add one), then the slices by tensor id.
  std::vector<std::pair<int, TensorSlice>> placed;
  for (const auto& [value, slice] : views.slices)
    if (int id = table.find(*value); id >= 0)
      placed.push_back({id, {table.of(*slice.buffer), slice.byte_offset}});
  std::vector<TensorSlice> slices(plan.tensors.size());
  for (const auto& [id, slice] : placed) slices[id] = slice;
  place_activations(plan, in_place_of_step, slices, model.stats);
  model.weights = table.weights();
  model.stats.kernel_launches = plan.steps.size();
  model.stats.unique_kernels = model.kernels.size();
  return model;
}

std::shared_ptr<const graph::Graph> optimize_graph(
    const graph::Graph& graph, const std::vector<graph::TensorType>& input_types,
    const std::vector<const runtime::NDArray*>& input_values, const CompileOptions& options) {
  TargetLanesScope lanes(options.build.target);
  auto start = std::chrono::steady_clock::now();
  graph::Graph specialised = passes::specialize_inputs(graph, input_types, input_values);
  auto optimised = std::make_shared<const graph::Graph>(
      passes::run_pipeline(specialised, passes::default_pipeline(options.passes), options.pipeline));
  if (options.progress)
    *options.progress << "graph passes: " << graph.nodes().size() << " -> "
                      << optimised->nodes().size() << " nodes in " << elapsed_ms(start)
                      << " ms\n";
  return optimised;
}

CompiledModel compile_model(const graph::Graph& graph,
                            const std::vector<graph::TensorType>& input_types,
                            const std::vector<const runtime::NDArray*>& input_values,
                            const CompileOptions& options) {
  std::shared_ptr<const graph::Graph> optimised =
      optimize_graph(graph, input_types, input_values, options);
  CompiledModel model = compile_graph(*optimised, options);
  model.graph = std::move(optimised);
  return model;
}

void export_model(const CompiledModel& model, const std::string& path,
                  const driver::BuildOptions& options) {
  const auto* bytes = static_cast<const uint8_t*>(model.weights->data());
  std::vector<uint8_t> weights(bytes, bytes + model.plan.weights_bytes);
  driver::export_model(model.kernels, model.plan, weights, path, options);
}

runtime::Model jit_model(CompiledModel model, const driver::BuildOptions& options) {
  codegen::JitOptions jit;
  if (!options.target.empty()) jit.target = codegen::Target::parse(options.target);
  jit.ir_out = options.llvm_ir_out;
  jit.asm_out = options.asm_out;
  auto module = std::make_shared<codegen::JitModule>(model.kernels, jit);
  struct KeepAlive {
    std::shared_ptr<codegen::JitModule> module;
    std::shared_ptr<runtime::NDArray> weights;
  };
  auto keep = std::make_shared<KeepAlive>(KeepAlive{module, model.weights});
  const void* weights = model.weights->data();
  return runtime::Model(std::move(model.plan), weights, keep,
                        [module](const std::string& name) { return module->get_function(name); });
}

std::string describe_memory(const runtime::ModelPlan& plan) {
  std::ostringstream text;
  double mib = 1024.0 * 1024.0;
  text.setf(std::ios::fixed);
  text.precision(2);
  text << "activation arena " << plan.arena_bytes / mib << " MiB (planned peak), sum of "
       << "intermediates " << plan.intermediate_bytes / mib << " MiB";
  if (plan.intermediate_bytes > 0)
    text << " (" << 100.0 * plan.arena_bytes / plan.intermediate_bytes << " %)";
  text << ", weights " << plan.weights_bytes / mib << " MiB";
  return text.str();
}

}  // namespace tessel::compiler
