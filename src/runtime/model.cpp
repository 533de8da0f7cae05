// Model: loading a compiled model library, binding the plan's tensors, running its steps.
#include "runtime/model.h"

#include <chrono>
#include <cstring>
#include <map>

#include "runtime/error.h"
#include "runtime/memory.h"
#include "runtime/module.h"
#include "runtime/thread_pool.h"

namespace tessel::runtime {
namespace {

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string describe_input(size_t i, const PlanTensor& t) {
  return "input " + std::to_string(i) + " ('" + t.name + "')";
}

bool is_aligned(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % kAllocAlignment == 0;
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

}  // namespace

void Model::FreeBytes::operator()(void* p) const noexcept {
  aligned_free(p);
}

Model Model::load(const std::string& path) {
  auto module = std::make_shared<Module>(Module::load(path));
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
    : weights_(static_cast<const uint8_t*>(weights)), keep_alive_(std::move(keep_alive)) {
  // A plan built in memory gets the checks a loaded one gets (the round trip is cheap: a
  // plan is a few kilobytes).
  std::vector<uint8_t> bytes = serialize_plan(plan);
  plan_ = deserialize_plan(bytes.data(), bytes.size());
  if (plan_.weights_bytes > 0 && !weights_)
    throw Error("model '" + plan_.name + "': no weights given for " +
                std::to_string(plan_.weights_bytes) + " bytes of weights");
  if (!is_aligned(weights_))
    throw Error("model '" + plan_.name + "': the weights are not " +
                std::to_string(kAllocAlignment) + "-byte aligned");

  std::map<std::string, tessel_kernel> found;
  for (size_t k = 0; k < plan_.steps.size(); ++k) {
    const PlanStep& step = plan_.steps[k];
    auto [it, inserted] = found.try_emplace(step.kernel, nullptr);
    if (inserted) {
      try {
        it->second = lookup_kernel(step.kernel);
      } catch (const std::exception& e) {
        throw Error("model '" + plan_.name + "': step " + std::to_string(k) + " ('" + step.label +
                    "'): cannot find kernel '" + step.kernel + "': " + e.what());
      }
    }
    if (!it->second)
      throw Error("model '" + plan_.name + "': step " + std::to_string(k) + " ('" + step.label +
                  "'): missing kernel '" + step.kernel + "'");
    kernels_.push_back(it->second);
    step_args_.emplace_back(step.args.size(), nullptr);
  }

  // Allocated once and touched now: first-touch page faults would otherwise land in the
  // first run.
  arena_.reset(static_cast<uint8_t*>(aligned_alloc_bytes(plan_.arena_bytes)));
  if (!arena_)
    throw Error("model '" + plan_.name + "': cannot allocate an arena of " +
                std::to_string(plan_.arena_bytes) + " bytes");
  std::memset(arena_.get(), 0, static_cast<size_t>(plan_.arena_bytes));
  input_data_.assign(plan_.inputs.size(), nullptr);
  staging_.resize(plan_.inputs.size());
}

const PlanTensor& Model::input(size_t i) const {
  if (i >= plan_.inputs.size())
    throw Error("model '" + plan_.name + "' has " + std::to_string(plan_.inputs.size()) +
                " inputs, asked for input " + std::to_string(i));
  return plan_.tensors[static_cast<size_t>(plan_.inputs[i])];
}

const PlanTensor& Model::output(size_t i) const {
  if (i >= plan_.outputs.size())
    throw Error("model '" + plan_.name + "' has " + std::to_string(plan_.outputs.size()) +
                " outputs, asked for output " + std::to_string(i));
  return plan_.tensors[static_cast<size_t>(plan_.outputs[i])];
}

void Model::set_num_threads(int32_t num_threads) {
  if (num_threads < 0)
    throw Error("Model::set_num_threads: " + std::to_string(num_threads) + " threads");
  num_threads_ = num_threads;
}

void Model::set_profiling(bool on) {
  profiling_ = on;
  step_times_ms_.clear();
}

void* Model::tensor_data(int32_t id) const {
  const PlanTensor& t = plan_.tensors[static_cast<size_t>(id)];
  switch (t.storage) {
    case Storage::Input:
      return const_cast<void*>(input_data_[static_cast<size_t>(t.offset)]);
    case Storage::Weight:
      // Kernels take void**; the plan never makes a weight a kernel's output.
      return const_cast<uint8_t*>(weights_) + t.offset;
    case Storage::Arena:
      return arena_.get() + t.offset;
  }
  return nullptr;
}

const void* Model::output_data(size_t i) const {
  output(i);  // checks i
  return tensor_data(plan_.outputs[i]);
}

void Model::check_inputs(const std::vector<const NDArray*>& inputs) const {
  if (inputs.size() != plan_.inputs.size())
    throw Error("model '" + plan_.name + "' takes " + std::to_string(plan_.inputs.size()) +
                " inputs, got " + std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const PlanTensor& t = input(i);
    if (!inputs[i]) throw Error(describe_input(i, t) + " is null");
    if (inputs[i]->dtype() != t.dtype)
      throw Error(describe_input(i, t) + ": expected " + t.dtype.to_string() + ", got " +
                  inputs[i]->dtype().to_string());
    if (inputs[i]->shape() != t.shape)
      throw Error(describe_input(i, t) + ": expected shape " + shape_string(t.shape) + ", got " +
                  shape_string(inputs[i]->shape()));
  }
}

void Model::run_step(size_t k) {
  const PlanStep& step = plan_.steps[k];
  std::vector<void*>& args = step_args_[k];
  for (size_t j = 0; j < args.size(); ++j) args[j] = tensor_data(step.args[j]);
  int32_t status = kernels_[k](args.data());
  if (status != TESSEL_OK)
    throw Error("model '" + plan_.name + "': step " + std::to_string(k) + " (kernel '" +
                step.kernel + "', '" + step.label + "') failed with status " +
                std::to_string(status) + ": " + tessel_last_error());
}

void Model::run_raw(const void* const* inputs, void* const* outputs) {
  for (size_t i = 0; i < plan_.inputs.size(); ++i) {
    input_data_[i] = inputs[i];
    if (is_aligned(inputs[i])) continue;
    size_t n = static_cast<size_t>(input_nbytes(i));
    if (!staging_[i]) {
      staging_[i].reset(static_cast<uint8_t*>(aligned_alloc_bytes(static_cast<int64_t>(n))));
      if (!staging_[i])
        throw Error(describe_input(i, input(i)) + ": cannot allocate an aligned copy of " +
                    std::to_string(n) + " bytes");
    }
    std::memcpy(staging_[i].get(), inputs[i], n);
    input_data_[i] = staging_[i].get();
  }
  int32_t threads = num_threads_ ? num_threads_ : plan_.num_threads;
  if (threads > 0 && runtime::num_threads() != threads) runtime::set_num_threads(threads);

  step_times_ms_.assign(profiling_ ? plan_.steps.size() : 0, 0.0);
  for (size_t k = 0; k < plan_.steps.size(); ++k) {
    if (!profiling_) {
      run_step(k);
      continue;
    }
    auto start = std::chrono::steady_clock::now();
    run_step(k);
    step_times_ms_[k] =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  if (!outputs) return;
  for (size_t i = 0; i < plan_.outputs.size(); ++i)
    if (outputs[i]) std::memcpy(outputs[i], output_data(i), static_cast<size_t>(output_nbytes(i)));
}

std::vector<NDArray> Model::run(const std::vector<const NDArray*>& inputs) {
  check_inputs(inputs);
  std::vector<const void*> data;
  for (const NDArray* a : inputs) data.push_back(a->data());
  run_raw(data.data());
  std::vector<NDArray> results;
  for (size_t i = 0; i < plan_.outputs.size(); ++i) {
    const PlanTensor& t = output(i);
    NDArray a(t.shape, t.dtype);
    std::memcpy(a.data(), output_data(i), static_cast<size_t>(t.nbytes()));
    results.push_back(std::move(a));
  }
  return results;
}

}  // namespace tessel::runtime
