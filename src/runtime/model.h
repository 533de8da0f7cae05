// Model: a compiled model ready to run — its plan, its weights, its kernels and one
// activation arena.
//
// A compiled model library (driver::export_model) is one shared library that exports the
// plan's kernels plus four data symbols:
//   tessel_model_plan          the serialised ModelPlan (serialize_plan)
//   tessel_model_plan_size     uint64_t, its size in bytes
//   tessel_model_weights       the weights blob, 64-byte aligned
//   tessel_model_weights_size  uint64_t, its size in bytes (the plan's weights_bytes)
// Model::load reads them with the runtime alone (no compiler, no LLVM). The JIT path builds
// a Model from a plan, weights in memory and a kernel lookup instead.
//
// A Model is not thread-safe: run() reuses one arena (allocated and touched once, at
// construction) and per-input staging buffers; use one Model per thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/model_plan.h"
#include "runtime/ndarray.h"
#include "runtime/tessel_runtime.h"

namespace tessel::runtime {

/// The data symbols of a compiled model library (see the file comment).
inline constexpr const char* kPlanSymbol = "tessel_model_plan";
inline constexpr const char* kPlanSizeSymbol = "tessel_model_plan_size";
inline constexpr const char* kWeightsSymbol = "tessel_model_weights";
inline constexpr const char* kWeightsSizeSymbol = "tessel_model_weights_size";

class Model {
 public:
  /// Loads the compiled model library at `path`. Throws Error for a file that is missing or
  /// not a loadable library, a library without the model symbols, a corrupted plan, weights
  /// whose size differs from the plan's, or a step whose kernel the library lacks.
  static Model load(const std::string& path);

  /// A model over `plan` (validated as load() validates it), reading its weights from
  /// `weights` (64-byte aligned, plan.weights_bytes long, never written) and its kernels
  /// through `lookup_kernel` (called once per distinct kernel name; it returns nullptr or
  /// throws for an unknown one). `keep_alive` owns whatever the weights and kernels live in.
  Model(ModelPlan plan, const void* weights, std::shared_ptr<void> keep_alive,
        const std::function<tessel_kernel(const std::string&)>& lookup_kernel);

  Model(Model&&) noexcept = default;
  Model& operator=(Model&&) noexcept = default;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  ~Model() = default;

  /// Runs the model and returns its outputs, in plan order. Throws Error naming the input
  /// (index and name) for a wrong input count, dtype or shape, and naming the step when a
  /// kernel fails. Inputs that are not 64-byte aligned are copied into aligned buffers.
  std::vector<NDArray> run(const std::vector<const NDArray*>& inputs);

  /// The raw form: inputs[i] points to input i's data (input_nbytes(i) bytes, any alignment),
  /// no check. Afterwards output_data(i) holds output i; when `outputs` is given, output i is
  /// also copied to outputs[i] (output_nbytes(i) bytes; a null entry is skipped).
  void run_raw(const void* const* inputs, void* const* outputs = nullptr);

  /// Output i of the last run: valid until the next run (an output that is an input passed
  /// through points to that input's data, or to its aligned copy).
  const void* output_data(size_t i) const;

  size_t num_inputs() const { return plan_.inputs.size(); }
  size_t num_outputs() const { return plan_.outputs.size(); }
  const PlanTensor& input(size_t i) const;
  const PlanTensor& output(size_t i) const;
  int64_t input_nbytes(size_t i) const { return input(i).nbytes(); }
  int64_t output_nbytes(size_t i) const { return output(i).nbytes(); }
  const ModelPlan& plan() const { return plan_; }

  /// Threads for parallel loops during run(): 0 (the default) applies the plan's
  /// num_threads when it is non-zero and leaves the runtime's setting otherwise; n > 0
  /// applies n. Throws Error when negative.
  void set_num_threads(int32_t num_threads);

  /// When on, run() times each step; step_times_ms()[k] is step k's time in the last run
  /// (empty when profiling is off).
  void set_profiling(bool on);
  const std::vector<double>& step_times_ms() const { return step_times_ms_; }

 private:
  struct FreeBytes {
    void operator()(void* p) const noexcept;
  };
  using Bytes = std::unique_ptr<uint8_t, FreeBytes>;

  /// The data of tensor `id` in the current run.
  void* tensor_data(int32_t id) const;
  void check_inputs(const std::vector<const NDArray*>& inputs) const;
  void run_step(size_t k);

  ModelPlan plan_;
  const uint8_t* weights_ = nullptr;
  std::shared_ptr<void> keep_alive_;
  Bytes arena_;
  /// Each step's kernel and its argument pointers (bound by each run).
  std::vector<tessel_kernel> kernels_;
  std::vector<std::vector<void*>> step_args_;
  /// The data of each input in the current run, and aligned copies for misaligned ones.
  std::vector<const void*> input_data_;
  std::vector<Bytes> staging_;
  int32_t num_threads_ = 0;
  bool profiling_ = false;
  std::vector<double> step_times_ms_;
};

}  // namespace tessel::runtime
