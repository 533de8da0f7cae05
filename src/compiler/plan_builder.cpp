// TensorTable and PlanBuilder: kernel launches per fused group, tensors placed in the
// weights or the arena.
#include "compiler/plan_builder.h"

#include <algorithm>
#include <cstring>
#include <ostream>

#include "compiler/group_kernel.h"
#include "compiler/memory_plan.h"
#include "compiler/row_blocks.h"
#include "executor/node_kernel.h"
#include "runtime/data_dependent.h"
#include "schedule/replay.h"
#include "support/error.h"

namespace tessel::compiler {
namespace {

constexpr int64_t kAlignment = 64;

int64_t align_up(int64_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

/// A symbol-safe kernel name: its index and its operators.
std::string kernel_name(size_t index, const std::string& label) {
  std::string name = "k" + std::to_string(index) + "_" + label.substr(0, 48);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

}  // namespace

bool TensorTable::is_batched(const graph::Value& value) const {
  return batch_ && batch_->batched.count(&value) > 0;
}

void TensorTable::add_model_inputs(const graph::Graph& graph) {
  for (size_t i = 0; i < graph.inputs().size(); ++i) {
    const graph::Value& input = *graph.inputs()[i];
    int id = add(input.name, input.type, runtime::Storage::Input, is_batched(input));
    plan_.tensors[id].offset = static_cast<int64_t>(i);
    plan_.inputs.push_back(id);
    ids_[graph.inputs()[i]] = id;
  }
}

void TensorTable::bind(const graph::Value& value, int id) {
  TESSEL_ICHECK(!ids_.count(&value), "value '", value.name, "' is bound twice");
  ids_[&value] = id;
}

int TensorTable::of(const graph::Value& value) {
  auto found = ids_.find(&value);
  if (found != ids_.end()) return found->second;
  int id;
  if (value.constant) {
    id = add_weight(value.name, value.type, value.constant);
  } else {
    TESSEL_ICHECK(value.producer, "value '", value.name,
                  "' is neither a graph input, a constant nor computed by a node");
    id = add(value.name, value.type, runtime::Storage::Arena, is_batched(value));
  }
  ids_[&value] = id;
  return id;
}

int TensorTable::find(const graph::Value& value) const {
  auto found = ids_.find(&value);
  return found == ids_.end() ? -1 : found->second;
}

int TensorTable::arena(const std::string& name, const graph::TensorType& type, bool batched) {
  return add(name, type, runtime::Storage::Arena, batched);
}

int TensorTable::constant(const std::string& name, std::shared_ptr<const runtime::NDArray> data) {
  graph::TensorType type = graph::TensorType::of(graph::to_data_type(data->dtype()), data->shape());
  return add_weight(name, type, std::move(data));
}

std::shared_ptr<runtime::NDArray> TensorTable::weights() const {
  auto blob = std::make_shared<runtime::NDArray>(
      runtime::NDArray::zeros({plan_.weights_bytes}, runtime::DType::UInt(8)));
  for (const auto& constant : weights_) {
    auto* dst = static_cast<uint8_t*>(blob->data()) + weight_offsets_.at(constant.get());
    std::memcpy(dst, constant->data(), constant->nbytes());
  }
  return blob;
}

int TensorTable::add(const std::string& name, const graph::TensorType& type,
                     runtime::Storage storage, bool batched) {
  TESSEL_ICHECK(type.has_static_shape(), "value '", name, "' has no static type ",
                type.to_string());
  runtime::PlanTensor tensor;
  tensor.name = name;
  tensor.dtype = graph::to_runtime_dtype(type.dtype);
  tensor.shape = type.shape();
  tensor.storage = storage;
  tensor.batched = batched;
  plan_.tensors.push_back(std::move(tensor));
  return static_cast<int>(plan_.tensors.size() - 1);
}

int TensorTable::add_weight(const std::string& name, const graph::TensorType& type,
                            std::shared_ptr<const runtime::NDArray> data) {
  if (type.dtype.is_string())
    TESSEL_USER_ERROR("the string constant '", name, "' reaches a step of the compiled model; ",
                      "string constants are supported where they fold away at compile time");
  int id = add(name, type, runtime::Storage::Weight);
  auto placed = weight_offsets_.find(data.get());
  if (placed == weight_offsets_.end()) {
    placed = weight_offsets_.emplace(data.get(), plan_.weights_bytes).first;
    plan_.weights_bytes += align_up(static_cast<int64_t>(data->nbytes()));
    weights_.push_back(std::move(data));
  }
  plan_.tensors[id].offset = placed->second;
  return id;
}

PlanBuilder::PlanBuilder(CompiledModel& model, const CompileOptions& options,
                         const SymbolicBatch* batch)
    : model_(model), options_(options), batch_(batch), table_(model.plan, batch) {}

void PlanBuilder::build(const graph::Graph& graph) {
  model_graph_ = &graph;
  if (batch_) model_.plan.batch_symbol = batch_->symbol;
  table_.add_model_inputs(graph);
  emit_graph(graph);
  for (const graph::Value* out : graph.outputs())
    model_.plan.outputs.push_back(twin(table_.of(*out), runtime::StepKind::TrimFromBound));
  place_activations();
  model_.weights = table_.weights();
  model_.stats.unique_kernels = model_.kernels.size();
}

void PlanBuilder::emit_graph(const graph::Graph& graph) {
  std::set<const graph::Value*> run_time;
  for (const auto& [value, extent] : passes::find_run_time_extents(graph)) {
    run_time_[value] = extent;
    run_time.insert(value);
  }
  std::vector<FusedGroup> groups = fuse_operators(graph, options_.fusion);
  // Views into a batched buffer would need their own strides per sample: with a symbolic
  // batch, concatenations and slices copy.
  BufferViews views =
      batch_ ? BufferViews{} : plan_buffer_views(graph, groups, kAlignment, run_time);
  for (const auto& slice : views.slices) slices_.push_back(slice);
  model_.stats.nodes += graph.nodes().size();
  for (size_t g = 0; g < groups.size(); ++g) {
    if (views.concat_groups.count(g)) {
      ++model_.stats.concats_in_place;
      continue;
    }
    if (views.window_groups.count(g)) {
      ++model_.stats.slices_in_place;
      continue;
    }
    if (groups[g].nodes.size() == 1 && groups[g].nodes[0]->has_body()) {
      emit_control_flow(*groups[g].nodes[0]);
      continue;
    }
    if (groups[g].data_dependent()) {
      emit_data_dependent(*groups[g].nodes[0], graph);
      continue;
    }
    emit_group(groups[g], g, groups.size());
  }
  for (FusedGroup& group : groups) model_.groups.push_back(std::move(group));
}

void PlanBuilder::emit_group(const FusedGroup& group, size_t index, size_t count) {
  // A group whose values carry a run-time extent along their leading axis runs per block
  // of rows, as many blocks as the run's extent reaches.
  std::optional<RowBlocks> blocks = row_blocks(group, run_time_);
  GroupKernel kernel =
      build_group_kernel(blocks ? blocks->group : group, options_.build.target, fold_cache_);
  auto original = [&](const graph::Value* value) -> const graph::Value* {
    if (!blocks || !value) return value;
    auto found = blocks->original.find(value);
    return found == blocks->original.end() ? value : found->second;
  };
  bool any_elements = false;
  for (size_t k = kernel.num_inputs; k < kernel.arg_values.size(); ++k)
    any_elements |=
        kernel.arg_values[k] && kernel.output_types[k - kernel.num_inputs].num_elements() > 0;
  runtime::PlanStep step;
  step.label = group.label();
  step.block_rows = blocks ? static_cast<int32_t>(blocks->rows) : 0;
  // A launch touching a batched value runs per sample: its scratch outputs are per sample.
  bool batched = false;
  for (const graph::Value* value : kernel.arg_values)
    batched |= value && table_.is_batched(*original(value));
  for (size_t a = 0; a < kernel.arg_values.size(); ++a) {
    const graph::Value* value = original(kernel.arg_values[a]);
    if (!value) {
      step.args.push_back(table_.arena("scratch" + std::to_string(model_.plan.tensors.size()),
                                       kernel.output_types[a - kernel.num_inputs], batched));
      continue;
    }
    int id = table_.of(*value);
    auto extent = run_time_.find(value);
    if (a >= kernel.num_inputs && extent != run_time_.end()) {
      // The kernel writes the value padded, valid up to its source's extent.
      int source = table_.of(*extent->second.source);
      runtime::PlanTensor& t = model_.plan.tensors[static_cast<size_t>(id)];
      t.dynamic_dim = extent->second.axis;
      t.extent_of = source;
    }
    step.args.push_back(a < kernel.num_inputs ? twin(id, runtime::StepKind::PadToBound) : id);
  }
  for (auto& value : kernel.folded_values) folded_values_.push_back(std::move(value));
  if (!any_elements) return;  // empty outputs: nothing to compute
  auto [found, added] = kernel_of_key_.try_emplace(kernel.key, "");
  if (added) {
    found->second = kernel_name(model_.kernels.size(), step.label);
    if (options_.progress)
      *options_.progress << "  kernel " << model_.kernels.size() + 1 << ": " << step.label
                         << " (group " << index + 1 << " of " << count << ")\n";
    if (options_.choose_schedule)
      if (std::optional<schedule::Trace> trace = options_.choose_schedule(kernel))
        kernel.schedule = std::make_shared<schedule::Schedule>(
            schedule::replay(kernel.scheduler->outputs(), *trace));
    model_.kernels.push_back(lower_group_kernel(kernel, found->second, options_.build));
  }
  step.kernel = found->second;
  int layout_changes = 0;
  for (const graph::Node* node : group.nodes)
    layout_changes += node->op_type == "LayoutToNCHWc" || node->op_type == "LayoutFromNCHWc";
  model_.stats.layout_changes += layout_changes;
  model_.stats.layout_kernels += layout_changes == static_cast<int>(group.nodes.size());
  in_place_of_step_.push_back(kernel.in_place_input >= 0 ? step.args[kernel.in_place_input] : -1);
  model_.plan.steps.push_back(std::move(step));
  ++model_.stats.kernel_launches;
}

void PlanBuilder::emit_data_dependent(const graph::Node& node, const graph::Graph& graph) {
  std::vector<runtime::DType> dtypes;
  std::vector<std::vector<int64_t>> shapes;
  runtime::PlanStep step;
  for (const graph::Value* in : node.inputs) {
    if (!in) continue;
    step.args.push_back(twin(table_.of(*in), runtime::StepKind::TrimFromBound));
    dtypes.push_back(graph::to_runtime_dtype(in->type.dtype));
    shapes.push_back(in->type.shape());
  }
  std::optional<ops::DataDependentStep> found = executor::data_dependent_step(node);
  TESSEL_ICHECK(found.has_value(), node.describe(), " is not data-dependent");
  const ops::DataDependentStep& how = *found;
  runtime::DataDependentOutputs outputs =
      runtime::data_dependent_outputs(how.kind, how.params, dtypes, shapes);
  for (size_t k = 0; k < outputs.dtypes.size() && k < node.outputs.size(); ++k) {
    if (outputs.dynamic_dims[k] < 0 || !node.outputs[k]) continue;
    if (&graph != model_graph_)
      for (const graph::Value* out : graph.outputs())
        if (out == node.outputs[k])
          TESSEL_USER_ERROR(node.describe(), " gives '", out->name,
                            "', whose extent it finds at run time, as an output of a body; "
                            "If, Loop and Scan carry values of fixed shapes, so only a model "
                            "output may take such a value");
  }
  for (size_t k = 0; k < outputs.dtypes.size(); ++k) {
    graph::TensorType type =
        graph::TensorType::of(graph::to_data_type(outputs.dtypes[k]), outputs.capacities[k]);
    const graph::Value* out = k < node.outputs.size() ? node.outputs[k] : nullptr;
    int id = out ? table_.of(*out) : table_.arena("unused output", type);
    model_.plan.tensors[static_cast<size_t>(id)].dynamic_dim = outputs.dynamic_dims[k];
    step.args.push_back(id);
  }
  step.kind = how.kind;
  step.params = how.params;
  step.strings = how.strings;
  step.label = node.op_type;
  add_step(std::move(step));
}

int PlanBuilder::twin(int id, runtime::StepKind made_by) {
  bool pad = made_by == runtime::StepKind::PadToBound;
  const runtime::PlanTensor& t = model_.plan.tensors[static_cast<size_t>(id)];
  if (pad ? !t.is_compact_dynamic() : !t.is_padded()) return id;
  auto [found, added] = twins_.try_emplace(id, -1);
  if (!added) return found->second;
  runtime::PlanStep step;
  step.kind = made_by;
  step.label = (pad ? "pad " : "trim ") + t.name;
  runtime::PlanTensor made = t;  // `t` dangles once the tensors grow
  made.name += pad ? ".padded" : ".compact";
  made.extent_of = pad ? id : -1;
  model_.plan.tensors.push_back(std::move(made));
  found->second = static_cast<int>(model_.plan.tensors.size() - 1);
  step.args = {id, found->second};
  add_step(std::move(step));
  return found->second;
}

int PlanBuilder::add_step(runtime::PlanStep step) {
  in_place_of_step_.push_back(-1);
  model_.plan.steps.push_back(std::move(step));
  return next_step() - 1;
}

void PlanBuilder::place_activations() {
  runtime::ModelPlan& plan = model_.plan;
  // The buffers' tensors first (table_.of may add one), then the slices by tensor id.
  struct Slice {
    int buffer = -1;
    int64_t byte_offset = 0;
  };
  std::vector<std::pair<int, Slice>> placed;
  for (const auto& [value, slice] : slices_)
    if (int id = table_.find(*value); id >= 0)
      placed.push_back({id, {table_.of(*slice.buffer), slice.byte_offset}});
  std::vector<Slice> slices(plan.tensors.size());
  for (const auto& [id, slice] : placed) slices[id] = slice;

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
  // A tensor touched inside a loop and outside it carries values between iterations or
  // into and out of the loop: it lives across the whole loop. Inner loops come first.
  std::vector<std::pair<int, int>> loops = loops_;
  std::sort(loops.begin(), loops.end(),
            [](const auto& a, const auto& b) { return a.second - a.first < b.second - b.first; });
  for (const auto& [begin, finish] : loops)
    for (size_t id = 0; id < plan.tensors.size(); ++id) {
      bool inside = first[id] >= 0 && first[id] <= finish && last[id] >= begin;
      if (inside && (first[id] < begin || last[id] > finish)) {
        first[id] = std::min(first[id], begin);
        last[id] = std::max(last[id], finish);
      }
    }
  // Two arenas: the static one, and the batch arena planned for one sample (each batched
  // tensor's samples a whole number of 64-byte lines apart), which a run scales by its
  // batch size.
  model_.stats.in_place = 0;
  plan.intermediate_bytes = 0;
  for (bool batched : {false, true}) {
    std::vector<int> buffer_of(plan.tensors.size(), -1);
    std::vector<int> tensor_of_buffer;
    std::vector<BufferRequest> requests;
    for (size_t id = 0; id < plan.tensors.size(); ++id) {
      const runtime::PlanTensor& t = plan.tensors[id];
      // A compact tensor with a dynamic dimension takes memory from the run, for what it
      // found.
      if (t.storage != runtime::Storage::Arena || t.batched != batched || slices[id].buffer >= 0 ||
          t.is_compact_dynamic())
        continue;
      BufferRequest request;
      request.bytes = batched ? t.sample_stride() : t.nbytes();
      request.first_step = std::max(first[id], 0);
      request.last_step = std::max(last[id], request.first_step);
      buffer_of[id] = static_cast<int>(requests.size());
      tensor_of_buffer.push_back(static_cast<int>(id));
      requests.push_back(request);
    }
    for (int s = 0; s < end; ++s) {
      if (in_place_of_step_[s] < 0) continue;
      // in_place_of_step_ holds the tensor id of the input; a kernel that may run in place
      // has one output, its last argument. A slice has no buffer of its own to hand over.
      int input = in_place_of_step_[s];
      int output = plan.steps[s].args.back();
      if (buffer_of[input] < 0 || buffer_of[output] < 0) continue;
      requests[buffer_of[output]].in_place_of = buffer_of[input];
    }
    MemoryPlan memory = plan_memory(requests, kAlignment);
    for (size_t b = 0; b < requests.size(); ++b)
      plan.tensors[tensor_of_buffer[b]].offset = memory.offsets[b];
    (batched ? plan.batch_arena_bytes : plan.arena_bytes) = memory.arena_bytes;
    plan.intermediate_bytes += memory.total_bytes;
    model_.stats.in_place += memory.in_place;
  }
  for (size_t id = 0; id < plan.tensors.size(); ++id)
    if (slices[id].buffer >= 0)
      plan.tensors[id].offset = plan.tensors[slices[id].buffer].offset + slices[id].byte_offset;
}

}  // namespace tessel::compiler
