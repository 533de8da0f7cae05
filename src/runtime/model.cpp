// Model: loading a compiled model library and checking its plan and kernels; RunContext:
// binding the plan's tensors to one run's data and running the steps.
#include "runtime/model.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <map>

#include "runtime/data_dependent.h"
#include "runtime/error.h"
#include "runtime/host_cpu.h"
#include "runtime/memory.h"
#include "runtime/module.h"
#include "runtime/thread_pool.h"

namespace tessel::runtime {

struct ModelCode {
  ModelPlan plan;
  const uint8_t* weights = nullptr;
  std::shared_ptr<void> keep_alive;
  /// Each step's kernel.
  std::vector<tessel_kernel> kernels;
  /// Per step: whether it touches a batched tensor, so runs once per sample.
  std::vector<bool> batched_steps;
};

namespace {

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string describe_input(size_t i, const PlanTensor& t) {
  return "input " + std::to_string(i) + " ('" + t.name + "')";
}

/// plan.tensors[ids[i]], where ids are the plan's inputs or outputs (`what`).
const PlanTensor& plan_tensor(const ModelPlan& plan, const std::vector<int32_t>& ids, size_t i,
                              const char* what) {
  if (i >= ids.size())
    throw Error("model '" + plan.name + "' has " + std::to_string(ids.size()) + " " + what +
                "s, asked for " + what + " " + std::to_string(i));
  return plan.tensors[static_cast<size_t>(ids[i])];
}

bool is_aligned(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % kAllocAlignment == 0;
}

/// `t`'s shape in a run: its leading extent for `batch` samples when batched, its dynamic
/// dimension `extent` long when it has one.
std::vector<int64_t> run_shape(const PlanTensor& t, int64_t batch, int64_t extent) {
  std::vector<int64_t> shape = t.shape;
  if (t.batched) shape[0] *= batch;
  if (t.dynamic_dim >= 0) shape[static_cast<size_t>(t.dynamic_dim)] = extent;
  return shape;
}

int64_t bytes_of(const std::vector<int64_t>& shape, DType dtype) {
  int64_t n = dtype.bytes();
  for (int64_t d : shape) n *= d;
  return n;
}

/// Throws when `module` needs instruction-set features this processor lacks (a library
/// without the symbol predates it and is not checked).
void check_cpu_features(const Module& module) {
  const auto* needed = static_cast<const char*>(module.find_symbol(kFeaturesSymbol));
  if (!needed) return;
  std::string missing = missing_cpu_features(needed);
  if (missing.empty()) return;
  const auto* target = static_cast<const char*>(module.find_symbol(kTargetSymbol));
  std::string cpu = host_cpu().name.empty() ? "" : " (" + host_cpu().name + ")";
  throw Error("'" + module.path() + "' was compiled for '" + (target ? target : "?") +
              "' and needs " + missing + ", which this processor" + cpu +
              " lacks: compile the model for this machine (the default target) or for a "
              "target whose features it has");
}

/// The size stored in the uint64_t data symbol `name` of `module`.
uint64_t read_size_symbol(const Module& module, const char* name) {
  const void* p = module.find_symbol(name);
  if (!p)
    throw Error("'" + module.path() + "' is not a tessel model library: it has no symbol '" + name +
                "'");
  uint64_t value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

/// The checked, shared part of a model (see the Model constructor).
std::shared_ptr<const ModelCode> make_code(
    const ModelPlan& given, const void* weights, std::shared_ptr<void> keep_alive,
    const std::function<tessel_kernel(const std::string&)>& lookup_kernel) {
  auto code = std::make_shared<ModelCode>();
  // A plan built in memory gets the checks a loaded one gets (the round trip is cheap: a
  // plan is a few kilobytes).
  std::vector<uint8_t> bytes = serialize_plan(given);
  code->plan = deserialize_plan(bytes.data(), bytes.size());
  code->weights = static_cast<const uint8_t*>(weights);
  code->keep_alive = std::move(keep_alive);
  const ModelPlan& plan = code->plan;
  if (plan.weights_bytes > 0 && !weights)
    throw Error("model '" + plan.name + "': no weights given for " +
                std::to_string(plan.weights_bytes) + " bytes of weights");
  if (!is_aligned(weights))
    throw Error("model '" + plan.name + "': the weights are not " +
                std::to_string(kAllocAlignment) + "-byte aligned");

  std::map<std::string, tessel_kernel> found;
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    const PlanStep& step = plan.steps[k];
    bool batched = false;
    for (int32_t id : step.args) batched |= plan.tensors[static_cast<size_t>(id)].batched;
    code->batched_steps.push_back(batched);
    if (step.kind != StepKind::Kernel) {
      code->kernels.push_back(nullptr);
      continue;
    }
    auto [it, inserted] = found.try_emplace(step.kernel, nullptr);
    if (inserted) {
      try {
        it->second = lookup_kernel(step.kernel);
      } catch (const std::exception& e) {
        throw Error("model '" + plan.name + "': step " + std::to_string(k) + " ('" + step.label +
                    "'): cannot find kernel '" + step.kernel + "': " + e.what());
      }
    }
    if (!it->second)
      throw Error("model '" + plan.name + "': step " + std::to_string(k) + " ('" + step.label +
                  "'): missing kernel '" + step.kernel + "'");
    code->kernels.push_back(it->second);
  }
  return code;
}

}  // namespace

void RunContext::FreeBytes::operator()(void* p) const noexcept {
  aligned_free(p);
}

uint8_t* RunContext::Buffer::reserve(int64_t bytes, const std::string& what) {
  if (bytes <= capacity) return data.get();
  data.reset(static_cast<uint8_t*>(aligned_alloc_bytes(bytes)));
  capacity = data ? bytes : 0;
  if (!data) throw Error(what + ": cannot allocate " + std::to_string(bytes) + " bytes");
  // Touched now: first-touch page faults would otherwise land in the run.
  std::memset(data.get(), 0, static_cast<size_t>(bytes));
  return data.get();
}

Model Model::load(const std::string& path) {
  auto module = std::make_shared<Module>(Module::load(path));
  check_cpu_features(*module);
  uint64_t plan_size = read_size_symbol(*module, kPlanSizeSymbol);
  uint64_t weights_size = read_size_symbol(*module, kWeightsSizeSymbol);
  const void* plan_bytes = module->find_symbol(kPlanSymbol);
  const void* weights = module->find_symbol(kWeightsSymbol);
  if (!plan_bytes || !weights)
    throw Error("'" + path + "' is not a tessel model library: it has no symbol '" +
                (plan_bytes ? kWeightsSymbol : kPlanSymbol) + "'");
  ModelPlan plan;
  try {
    plan = deserialize_plan(static_cast<const uint8_t*>(plan_bytes), plan_size);
  } catch (const Error& e) {
    throw Error("'" + path + "': " + e.what());
  }
  if (weights_size != static_cast<uint64_t>(plan.weights_bytes))
    throw Error("'" + path + "': the library holds " + std::to_string(weights_size) +
                " bytes of weights, its plan expects " + std::to_string(plan.weights_bytes));
  Module* m = module.get();
  return Model(std::move(plan), weights, std::move(module),
               [m](const std::string& name) { return m->get_function(name); });
}

Model::Model(ModelPlan plan, const void* weights, std::shared_ptr<void> keep_alive,
             const std::function<tessel_kernel(const std::string&)>& lookup_kernel)
    : code_(make_code(plan, weights, std::move(keep_alive), lookup_kernel)), context_(*this) {}

RunContext::RunContext(const Model& model) : code_(model.code_) {
  const ModelPlan& plan = code_->plan;
  // Allocated once and touched now: first-touch page faults would otherwise land in the
  // first run.
  arena_.reset(static_cast<uint8_t*>(aligned_alloc_bytes(plan.arena_bytes)));
  if (!arena_)
    throw Error("model '" + plan.name + "': cannot allocate an arena of " +
                std::to_string(plan.arena_bytes) + " bytes");
  std::memset(arena_.get(), 0, static_cast<size_t>(plan.arena_bytes));
  batch_arena_.reserve(plan.batch_arena_bytes, "model '" + plan.name + "': the batch arena");
  for (const PlanStep& step : plan.steps) step_args_.emplace_back(step.args.size(), nullptr);
  input_data_.assign(plan.inputs.size(), nullptr);
  input_strides_.assign(plan.inputs.size(), 0);
  staging_.resize(plan.inputs.size());
  output_staging_.resize(plan.outputs.size());
  output_staged_.assign(plan.outputs.size(), false);
  for (const PlanTensor& t : plan.tensors)
    dynamic_extents_.push_back(t.dynamic_dim >= 0 ? t.shape[static_cast<size_t>(t.dynamic_dim)]
                                                  : 0);
  dynamic_buffers_.resize(plan.tensors.size());
}

const ModelPlan& Model::plan() const {
  return code_->plan;
}

const PlanTensor& Model::input(size_t i) const {
  return plan_tensor(code_->plan, code_->plan.inputs, i, "input");
}

const PlanTensor& Model::output(size_t i) const {
  return plan_tensor(code_->plan, code_->plan.outputs, i, "output");
}

void Model::set_num_threads(int32_t num_threads) {
  if (num_threads < 0)
    throw Error("Model::set_num_threads: " + std::to_string(num_threads) + " threads");
  num_threads_ = num_threads;
}

void RunContext::set_profiling(bool on) {
  profiling_ = on;
  step_times_ms_.clear();
}

void* RunContext::tensor_data(int32_t id) const {
  const PlanTensor& t = code_->plan.tensors[static_cast<size_t>(id)];
  switch (t.storage) {
    case Storage::Input:
      return const_cast<void*>(input_data_[static_cast<size_t>(t.offset)]);
    case Storage::Weight:
      // Kernels take void**; the plan never makes a weight a kernel's output.
      return const_cast<uint8_t*>(code_->weights) + t.offset;
    case Storage::Arena:
      if (t.is_compact_dynamic()) return dynamic_buffers_[static_cast<size_t>(id)].data.get();
      return t.batched ? batch_arena_.data.get() + batch_size_ * t.offset : arena_.get() + t.offset;
  }
  return nullptr;
}

int64_t RunContext::sample_stride(int32_t id) const {
  const PlanTensor& t = code_->plan.tensors[static_cast<size_t>(id)];
  if (!t.batched) return 0;
  return t.storage == Storage::Input ? input_strides_[static_cast<size_t>(t.offset)]
                                     : t.sample_stride();
}

int64_t RunContext::run_extent(int32_t id) const {
  const PlanTensor& t = code_->plan.tensors[static_cast<size_t>(id)];
  return dynamic_extents_[static_cast<size_t>(t.is_padded() ? t.extent_of : id)];
}

const void* RunContext::output_data(size_t i) const {
  plan_tensor(code_->plan, code_->plan.outputs, i, "output");  // checks i
  if (output_staged_[i]) return output_staging_[i].data.get();
  return tensor_data(code_->plan.outputs[i]);
}

void RunContext::set_batch_size(int64_t n) {
  const ModelPlan& plan = code_->plan;
  if (n < 1 || (plan.batch_symbol.empty() && n != 1))
    throw Error("model '" + plan.name + "': batch size " + std::to_string(n) + ": " +
                (plan.batch_symbol.empty() ? "the model was compiled for static shapes (batch 1)"
                                           : "a batch holds one sample or more"));
  if (plan.batch_arena_bytes > 0 &&
      n > std::numeric_limits<int64_t>::max() / plan.batch_arena_bytes)
    throw Error("model '" + plan.name + "': batch size " + std::to_string(n) + " is too large");
  batch_arena_.reserve(
      n * plan.batch_arena_bytes,
      "model '" + plan.name + "': the batch arena of " + std::to_string(n) + " samples");
  batch_size_ = n;
}

std::vector<int64_t> RunContext::input_shape(size_t i) const {
  return run_shape(plan_tensor(code_->plan, code_->plan.inputs, i, "input"), batch_size_, 0);
}

std::vector<int64_t> RunContext::output_shape(size_t i) const {
  const PlanTensor& t = plan_tensor(code_->plan, code_->plan.outputs, i, "output");
  return run_shape(t, batch_size_, run_extent(code_->plan.outputs[i]));
}

int64_t RunContext::input_nbytes(size_t i) const {
  const PlanTensor& t = plan_tensor(code_->plan, code_->plan.inputs, i, "input");
  return t.nbytes() * (t.batched ? batch_size_ : 1);
}

int64_t RunContext::output_nbytes(size_t i) const {
  return bytes_of(output_shape(i),
                  code_->plan.tensors[static_cast<size_t>(code_->plan.outputs[i])].dtype);
}

void Model::check_context(const RunContext& context) const {
  if (context.code_ != code_)
    throw Error("model '" + code_->plan.name + "': the run context was made for another model ('" +
                context.code_->plan.name + "')");
}

int64_t Model::check_inputs(const std::vector<const NDArray*>& inputs) const {
  const ModelPlan& plan = code_->plan;
  if (inputs.size() != plan.inputs.size())
    throw Error("model '" + plan.name + "' takes " + std::to_string(plan.inputs.size()) +
                " inputs, got " + std::to_string(inputs.size()));
  int64_t batch = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const PlanTensor& t = input(i);
    if (!inputs[i]) throw Error(describe_input(i, t) + " is null");
    if (inputs[i]->dtype() != t.dtype)
      throw Error(describe_input(i, t) + ": expected " + t.dtype.to_string() + ", got " +
                  inputs[i]->dtype().to_string());
    const std::vector<int64_t>& shape = inputs[i]->shape();
    if (t.batched && shape.size() == t.shape.size() && !shape.empty() && t.shape[0] > 0 &&
        shape[0] > 0 && shape[0] % t.shape[0] == 0 &&
        std::equal(shape.begin() + 1, shape.end(), t.shape.begin() + 1)) {
      int64_t n = shape[0] / t.shape[0];
      if (batch && n != batch)
        throw Error(describe_input(i, t) + " holds " + std::to_string(n) + " samples of '" +
                    plan.batch_symbol + "', another input " + std::to_string(batch));
      batch = n;
      continue;
    }
    if (t.batched)
      throw Error(describe_input(i, t) + ": expected shape " + shape_string(t.shape) +
                  " with the leading extent times the batch size '" + plan.batch_symbol +
                  "', got " + shape_string(shape));
    if (shape != t.shape)
      throw Error(describe_input(i, t) + ": expected shape " + shape_string(t.shape) + ", got " +
                  shape_string(shape));
  }
  return batch ? batch : 1;
}

void RunContext::bind_inputs(const void* const* inputs) {
  const ModelPlan& plan = code_->plan;
  strings_.clear();
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    const PlanTensor& t = plan_tensor(plan, plan.inputs, i, "input");
    int64_t bytes = t.nbytes();
    input_data_[i] = inputs[i];
    input_strides_[i] = t.batched ? bytes : 0;
    // Kernels take aligned arguments: every sample of a batched input must start aligned.
    bool samples_aligned = !t.batched || batch_size_ == 1 || bytes % kAllocAlignment == 0;
    if (is_aligned(inputs[i]) && samples_aligned) continue;
    int64_t stride = t.batched ? t.sample_stride() : bytes;
    int64_t samples = t.batched ? batch_size_ : 1;
    uint8_t* copy =
        staging_[i].reserve(stride * samples, describe_input(i, t) + ": an aligned copy");
    for (int64_t n = 0; n < samples; ++n)
      std::memcpy(copy + n * stride, static_cast<const uint8_t*>(inputs[i]) + n * bytes,
                  static_cast<size_t>(bytes));
    input_data_[i] = copy;
    input_strides_[i] = t.batched ? stride : 0;
  }
}

void RunContext::gather_outputs() {
  const ModelPlan& plan = code_->plan;
  for (size_t i = 0; i < plan.outputs.size(); ++i) {
    int32_t id = plan.outputs[i];
    const PlanTensor& t = plan.tensors[static_cast<size_t>(id)];
    int64_t stride = sample_stride(id), bytes = t.nbytes();
    output_staged_[i] = t.batched && batch_size_ > 1 && stride != bytes;
    if (!output_staged_[i]) continue;
    uint8_t* out = output_staging_[i].reserve(bytes * batch_size_, "output '" + t.name + "'");
    const auto* samples = static_cast<const uint8_t*>(tensor_data(id));
    for (int64_t n = 0; n < batch_size_; ++n)
      std::memcpy(out + n * bytes, samples + n * stride, static_cast<size_t>(bytes));
  }
}

namespace {

int64_t read_int64(const void* p) {
  int64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// Copies slice `index` along the axis of `whole` (viewed as [outer, length, inner bytes])
/// into `slice`, or back when `into_whole`.
void copy_slice(const PlanTensor& whole_tensor, int32_t axis, int64_t index, uint8_t* whole,
                uint8_t* slice, bool into_whole) {
  int64_t outer = 1, inner = whole_tensor.dtype.bytes();
  for (int32_t d = 0; d < axis; ++d) outer *= whole_tensor.shape[d];
  for (size_t d = static_cast<size_t>(axis) + 1; d < whole_tensor.shape.size(); ++d)
    inner *= whole_tensor.shape[d];
  int64_t length = whole_tensor.shape[static_cast<size_t>(axis)];
  for (int64_t o = 0; o < outer; ++o) {
    uint8_t* in_whole = whole + (o * length + index) * inner;
    uint8_t* in_slice = slice + o * inner;
    std::memcpy(into_whole ? in_whole : in_slice, into_whole ? in_slice : in_whole,
                static_cast<size_t>(inner));
  }
}

/// A tensor with a dynamic dimension viewed as [outer, largest extent, inner bytes].
struct DynamicRows {
  int64_t outer = 1, largest = 0, inner = 0;
  explicit DynamicRows(const PlanTensor& t) : inner(t.dtype.bytes()) {
    size_t dim = static_cast<size_t>(t.dynamic_dim);
    for (size_t d = 0; d < dim; ++d) outer *= t.shape[d];
    for (size_t d = dim + 1; d < t.shape.size(); ++d) inner *= t.shape[d];
    largest = t.shape[dim];
  }
};

/// Copies the first `extent` positions along the dynamic dimension between a compact
/// tensor and its padded twin (into the padded one when `pad`, zeroing the rest there).
void copy_between_compact_and_padded(const PlanTensor& t, int64_t extent, uint8_t* compact,
                                     uint8_t* padded, bool pad) {
  DynamicRows rows(t);
  size_t valid = static_cast<size_t>(extent * rows.inner);
  for (int64_t o = 0; o < rows.outer; ++o) {
    uint8_t* in_compact = compact + o * extent * rows.inner;
    uint8_t* in_padded = padded + o * rows.largest * rows.inner;
    if (valid == 0) {  // an empty compact tensor may have no memory at all
      if (pad) std::memset(in_padded, 0, static_cast<size_t>(rows.largest * rows.inner));
      continue;
    }
    if (!pad) {
      std::memcpy(in_compact, in_padded, valid);
      continue;
    }
    std::memcpy(in_padded, in_compact, valid);
    std::memset(in_padded + valid, 0, static_cast<size_t>((rows.largest - extent) * rows.inner));
  }
}

}  // namespace

void RunContext::bind_sample(const PlanStep& step, int64_t n, void** args) const {
  for (size_t j = 0; j < step.args.size(); ++j) {
    int32_t id = step.args[j];
    const PlanTensor& t = code_->plan.tensors[static_cast<size_t>(id)];
    // A block of rows of a padded argument; the others whole at every launch.
    int64_t stride = step.block_rows == 0 ? sample_stride(id)
                     : t.is_padded()      ? t.nbytes() / t.shape[0] * step.block_rows
                                          : 0;
    args[j] = static_cast<uint8_t*>(tensor_data(id)) + n * stride;
  }
}

int64_t RunContext::blocks_reached(const PlanStep& step) const {
  for (int32_t id : step.args)
    if (code_->plan.tensors[static_cast<size_t>(id)].is_padded())
      return (run_extent(id) + step.block_rows - 1) / step.block_rows;
  return 0;
}

bool RunContext::samples_side_by_side(int64_t samples) const {
  // Whole samples per thread beat every kernel splitting each sample between the threads
  // when they share out evenly (or nearly so: several samples each); kernels then run
  // their loops serially, as in any parallel body.
  if (samples <= 1 || in_parallel_region()) return false;
  int64_t threads = num_threads();
  return threads > 1 && (samples % threads == 0 || samples >= 4 * threads);
}

int32_t RunContext::run_samples(int64_t begin, int64_t end, void* env) {
  const auto& launch = *static_cast<const SampleLaunch*>(env);
  std::vector<void*> args(launch.step->args.size());
  for (int64_t n = begin; n < end; ++n) {
    launch.context->bind_sample(*launch.step, n, args.data());
    if (int32_t status = launch.kernel(args.data())) return status;
  }
  return TESSEL_OK;
}

size_t RunContext::run_step(size_t k) {
  const ModelPlan& plan = code_->plan;
  const PlanStep& step = plan.steps[k];
  auto data = [&](size_t a) { return static_cast<uint8_t*>(tensor_data(step.args[a])); };
  auto fail = [&](const std::string& problem) {
    throw Error("model '" + plan.name + "': step " + std::to_string(k) + " (" +
                step_kind_name(step.kind) + ", '" + step.label + "'): " + problem);
  };
  // A compact tensor read before any step of this run wrote it has no memory for its
  // extent (a plan out of order).
  auto readable = [&](size_t a) {
    int32_t id = step.args[a];
    const PlanTensor& t = plan.tensors[static_cast<size_t>(id)];
    if (t.is_compact_dynamic() && dynamic_buffers_[static_cast<size_t>(id)].capacity <
                                      bytes_of(run_shape(t, 1, run_extent(id)), t.dtype))
      fail("reads '" + t.name + "' before a step wrote it");
    return data(a);
  };
  switch (step.kind) {
    case StepKind::Kernel: {
      std::vector<void*>& args = step_args_[k];
      // A step touching batched tensors runs once per sample, on the samples' slices; one
      // over blocks of rows once per block.
      int64_t samples = code_->batched_steps[k] ? batch_size_
                        : step.block_rows > 0   ? blocks_reached(step)
                                                : 1;
      if (samples_side_by_side(samples)) {
        SampleLaunch launch{this, &step, code_->kernels[k]};
        std::string error;
        if (int32_t status = parallel_for(samples, run_samples, &launch, &error))
          fail("kernel '" + step.kernel + "' failed with status " + std::to_string(status) +
               " on samples run side by side" + (error.empty() ? "" : ": " + error));
        return k + 1;
      }
      for (int64_t n = 0; n < samples; ++n) {
        bind_sample(step, n, args.data());
        int32_t status = code_->kernels[k](args.data());
        if (status != TESSEL_OK)
          fail("kernel '" + step.kernel + "' failed with status " + std::to_string(status) +
               (samples > 1 ? (step.block_rows ? " on block " : " on sample ") + std::to_string(n)
                            : std::string()) +
               ": " + tessel_last_error());
      }
      return k + 1;
    }
    case StepKind::Copy:
      std::memmove(data(1), data(0),
                   static_cast<size_t>(plan.tensors[static_cast<size_t>(step.args[1])].nbytes()));
      return k + 1;
    case StepKind::JumpUnless:
      return *data(0) ? k + 1 : static_cast<size_t>(step.target);
    case StepKind::Jump:
      return static_cast<size_t>(step.target);
    case StepKind::LoopTest: {
      int64_t iteration = read_int64(data(0)), trips = read_int64(data(1));
      if (iteration < trips && *data(2)) return k + 1;
      if (step.all_trips && iteration < trips)
        fail("the loop stopped after " + std::to_string(iteration) + " of its " +
             std::to_string(trips) + " trips; its scan outputs were compiled for every trip");
      return static_cast<size_t>(step.target);
    }
    case StepKind::Increment: {
      int64_t next = read_int64(data(0)) + 1;
      std::memcpy(data(0), &next, sizeof next);
      return k + 1;
    }
    case StepKind::NonZero:
    case StepKind::Unique:
    case StepKind::NonMaxSuppression:
    case StepKind::Compress:
    case StepKind::TopK:
    case StepKind::StringNormalizer:
    case StepKind::CastString:
    case StepKind::ExtentOf: {
      size_t outputs = data_dependent_output_count(step.kind);
      size_t first_output = step.args.size() - outputs;
      std::vector<ConstView> inputs;
      for (size_t a = 0; a < first_output; ++a) {
        const PlanTensor& t = plan.tensors[static_cast<size_t>(step.args[a])];
        inputs.push_back({readable(a), t.dtype, run_shape(t, 1, run_extent(step.args[a]))});
      }
      // An output with a dynamic dimension takes memory for the shape the step found; the
      // others have their planned place.
      auto allocate = [&](size_t o, const std::vector<int64_t>& shape) -> void* {
        int32_t id = step.args[first_output + o];
        const PlanTensor& t = plan.tensors[static_cast<size_t>(id)];
        if (t.dynamic_dim < 0) return tensor_data(id);
        int64_t bytes = std::max<int64_t>(bytes_of(shape, t.dtype), 1);
        return dynamic_buffers_[static_cast<size_t>(id)].reserve(
            bytes, "model '" + plan.name + "': output '" + t.name + "'");
      };
      std::vector<std::vector<int64_t>> shapes;
      try {
        shapes =
            run_data_dependent(step.kind, step.params, step.strings, inputs, allocate, strings_);
      } catch (const Error& e) {
        fail(e.what());
      }
      for (size_t o = 0; o < outputs; ++o) {
        int32_t id = step.args[step.args.size() - outputs + o];
        int32_t dim = plan.tensors[static_cast<size_t>(id)].dynamic_dim;
        if (dim >= 0)
          dynamic_extents_[static_cast<size_t>(id)] = shapes[o][static_cast<size_t>(dim)];
      }
      return k + 1;
    }
    case StepKind::PadToBound:
    case StepKind::TrimFromBound: {
      bool pad = step.kind == StepKind::PadToBound;
      int32_t compact = step.args[pad ? 0 : 1];
      const PlanTensor& t = plan.tensors[static_cast<size_t>(compact)];
      int64_t extent = run_extent(step.args[0]);  // the source's, compact or padded
      if (!pad) {
        dynamic_extents_[static_cast<size_t>(compact)] = extent;
        dynamic_buffers_[static_cast<size_t>(compact)].reserve(
            std::max<int64_t>(bytes_of(run_shape(t, 1, extent), t.dtype), 1),
            "model '" + plan.name + "': '" + t.name + "'");
      }
      copy_between_compact_and_padded(t, extent, pad ? readable(0) : data(1), data(pad ? 1 : 0),
                                      pad);
      return k + 1;
    }
    case StepKind::SliceIn:
    case StepKind::SliceOut: {
      bool out = step.kind == StepKind::SliceOut;
      const PlanTensor& whole = plan.tensors[static_cast<size_t>(step.args[out ? 1 : 0])];
      int64_t length = whole.shape[static_cast<size_t>(step.axis)];
      int64_t iteration = read_int64(data(2));
      if (iteration < 0 || iteration >= length)
        fail("iteration " + std::to_string(iteration) + " is outside the " +
             std::to_string(length) + " slices of '" + whole.name + "'");
      int64_t index = step.reverse ? length - 1 - iteration : iteration;
      copy_slice(whole, step.axis, index, data(out ? 1 : 0), data(out ? 0 : 1), out);
      return k + 1;
    }
  }
  throw Error("model '" + plan.name + "': step " + std::to_string(k) + " has an unknown kind");
}

void RunContext::run_steps() {
  size_t steps = code_->plan.steps.size();
  step_times_ms_.assign(profiling_ ? steps : 0, 0.0);
  for (size_t k = 0; k < steps;) {
    if (!profiling_) {
      k = run_step(k);
      continue;
    }
    auto start = std::chrono::steady_clock::now();
    size_t next = run_step(k);
    step_times_ms_[k] +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    k = next;
  }
}

void Model::run_raw(RunContext& context, const void* const* inputs, void* const* outputs) const {
  check_context(context);
  context.bind_inputs(inputs);
  // Inside a parallel body the kernels' loops run serially and the pool cannot be changed.
  int32_t threads = num_threads_ ? num_threads_ : code_->plan.num_threads;
  if (threads > 0 && !in_parallel_region() && runtime::num_threads() != threads)
    runtime::set_num_threads(threads);
  context.run_steps();
  context.gather_outputs();
  if (!outputs) return;
  for (size_t i = 0; i < num_outputs(); ++i)
    if (outputs[i])
      std::memcpy(outputs[i], context.output_data(i),
                  static_cast<size_t>(context.output_nbytes(i)));
}

void Model::run_raw(const void* const* inputs, void* const* outputs) {
  run_raw(context_, inputs, outputs);
}

std::vector<NDArray> Model::run(RunContext& context,
                                const std::vector<const NDArray*>& inputs) const {
  check_context(context);
  context.set_batch_size(check_inputs(inputs));
  std::vector<const void*> data;
  for (const NDArray* a : inputs) data.push_back(a->data());
  run_raw(context, data.data());
  std::vector<NDArray> results;
  for (size_t i = 0; i < num_outputs(); ++i) {
    NDArray a(context.output_shape(i), output(i).dtype);
    if (a.dtype().is_string())  // the array keeps its own copy of the text
      for (int64_t k = 0; k < a.size(); ++k)
        a.set_string(k, string_element(context.output_data(i), k));
    else
      std::memcpy(a.data(), context.output_data(i), static_cast<size_t>(context.output_nbytes(i)));
    results.push_back(std::move(a));
  }
  return results;
}

std::vector<NDArray> Model::run(const std::vector<const NDArray*>& inputs) {
  return run(context_, inputs);
}

}  // namespace tessel::runtime
