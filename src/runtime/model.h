// Model: a compiled model ready to run — its plan, its weights and its kernels — and
// RunContext, the mutable state of one run (activation arena, aligned input copies, kernel
// arguments, step times).
//
// A compiled model library (driver::export_model) is one shared library that exports the
// plan's kernels plus four data symbols:
//   tessel_model_plan          the serialised ModelPlan (serialize_plan)
//   tessel_model_plan_size     uint64_t, its size in bytes
//   tessel_model_weights       the weights blob, 64-byte aligned
//   tessel_model_weights_size  uint64_t, its size in bytes (the plan's weights_bytes)
//   tessel_model_target        the target description it was compiled for (a C string)
//   tessel_model_features      the instruction-set features its code needs, comma-separated
// Model::load reads them with the runtime alone (no compiler, no LLVM), and refuses a
// library whose features this processor lacks, naming them, before any of its code runs. The JIT path builds
// a Model from a plan, weights in memory and a kernel lookup instead.
//
// Threads: the plan, weights and kernels never change once a Model is built, and are shared
// with its contexts. The const members of Model may be called from many threads at once, so
// many threads can run one Model, each through a RunContext of its own. A context serves one
// run at a time. The overloads without a context use the Model's own context (allocated and
// touched at construction, so the first run takes no page faults): they are for one thread
// at a time, as are set_num_threads and set_profiling.
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
inline constexpr const char* kTargetSymbol = "tessel_model_target";
inline constexpr const char* kFeaturesSymbol = "tessel_model_features";

class Model;
/// The immutable part of a Model (plan, weights, kernels, what keeps them alive), shared by
/// the Model and its contexts; defined in model.cpp.
struct ModelCode;

/// The mutable state of one run of a Model. Made for one Model, it stays valid when that
/// Model is moved or destroyed (it shares the plan and kernels). Move-only.
class RunContext {
 public:
  /// A context for `model`: allocates (and touches) an arena of plan().arena_bytes.
  explicit RunContext(const Model& model);

  RunContext(RunContext&&) noexcept = default;
  RunContext& operator=(RunContext&&) noexcept = default;
  RunContext(const RunContext&) = delete;
  RunContext& operator=(const RunContext&) = delete;
  ~RunContext() = default;

  /// Output i of this context's last run, its samples one after the other: valid until its
  /// next run (an output that is an input passed through points to that input's data, or to
  /// its aligned copy). A string output's elements point to text the context keeps until
  /// its next run.
  const void* output_data(size_t i) const;

  /// The batch size of this context's runs (1 at first). A model compiled with a symbolic
  /// batch runs any size n >= 1: its batched inputs and outputs then hold n samples (the
  /// batch arena grows to fit, once per new largest size); a model with static shapes runs
  /// only 1. Throws Error for another size.
  void set_batch_size(int64_t n);
  int64_t batch_size() const { return batch_size_; }
  /// Shape and size in bytes of input / output i at this context's batch size.
  std::vector<int64_t> input_shape(size_t i) const;
  std::vector<int64_t> output_shape(size_t i) const;
  int64_t input_nbytes(size_t i) const;
  int64_t output_nbytes(size_t i) const;

  /// When on, runs through this context time each step; step_times_ms()[k] is step k's time
  /// in the last run, summed over its runs inside loops (empty when profiling is off).
  void set_profiling(bool on);
  const std::vector<double>& step_times_ms() const { return step_times_ms_; }

 private:
  friend class Model;
  struct FreeBytes {
    void operator()(void* p) const noexcept;
  };
  using Bytes = std::unique_ptr<uint8_t, FreeBytes>;

  /// A buffer of at least `bytes` that keeps its capacity.
  struct Buffer {
    Bytes data;
    int64_t capacity = 0;
    /// Grows the buffer (contents lost); throws Error naming `what` when it cannot.
    uint8_t* reserve(int64_t bytes, const std::string& what);
  };

  /// The data of tensor `id` in the current run (its first sample, when batched).
  void* tensor_data(int32_t id) const;
  /// Bytes from one sample of tensor `id` to the next (0 for an unbatched tensor).
  int64_t sample_stride(int32_t id) const;
  /// The extent tensor `id` (compact or padded) has along its dynamic dimension in this run.
  int64_t run_extent(int32_t id) const;
  /// Points the inputs at `inputs`, copying misaligned ones (and batched ones whose samples
  /// would start misaligned) into aligned staging buffers.
  void bind_inputs(const void* const* inputs);
  void run_steps();
  /// Runs step k; returns the step to run next.
  size_t run_step(size_t k);
  /// How many blocks of rows the run's extent reaches, for a kernel step over blocks.
  int64_t blocks_reached(const PlanStep& step) const;
  /// Points `args` at sample (or block of rows) n of the arguments of kernel step `step`.
  void bind_sample(const PlanStep& step, int64_t n, void** args) const;
  /// Whether a kernel step of `samples` samples runs them in parallel, a few whole samples
  /// per thread, rather than one after the other, each kernel parallel within its sample.
  bool samples_side_by_side(int64_t samples) const;
  /// A kernel step's samples [begin, end) (a parallel body; env: a SampleLaunch).
  struct SampleLaunch {
    const RunContext* context;
    const PlanStep* step;
    tessel_kernel kernel;
  };
  static int32_t run_samples(int64_t begin, int64_t end, void* env);
  /// Copies the batched outputs whose samples lie apart into contiguous buffers.
  void gather_outputs();

  std::shared_ptr<const ModelCode> code_;
  Bytes arena_;
  int64_t batch_size_ = 1;
  Buffer batch_arena_;
  /// Each step's argument pointers (bound by each run).
  std::vector<std::vector<void*>> step_args_;
  /// The data of each input in the current run, the bytes from one of its samples to the
  /// next there, and aligned copies for misaligned ones.
  std::vector<const void*> input_data_;
  std::vector<int64_t> input_strides_;
  std::vector<Buffer> staging_;
  /// Contiguous copies of batched outputs (gather_outputs), empty for the others.
  std::vector<Buffer> output_staging_;
  std::vector<bool> output_staged_;
  /// Per compact tensor with a dynamic dimension: its extent in the last run (the planned
  /// largest one before any), and its memory, allocated by the run for the shape its step
  /// found (kept, and grown only, from run to run); empty for the other tensors (a padded
  /// tensor lives in the arena and takes its extent from a compact one).
  std::vector<int64_t> dynamic_extents_;
  std::vector<Buffer> dynamic_buffers_;
  bool profiling_ = false;
  std::vector<double> step_times_ms_;
  /// The text of the string tensors this run's steps made.
  StringStore strings_;
};

/// A compiled model: its plan, weights and kernels, and a context of its own.
class Model {
 public:
  /// Loads the compiled model library at `path`. Throws Error naming the path for a file
  /// that is missing, truncated or not a loadable library, a library without the model
  /// symbols, a corrupted plan or one of another version (a library made by another tessel
  /// version), weights whose size differs from the plan's, or a step whose kernel the
  /// library lacks.
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

  /// Runs the model through `context` (made for this model) and returns its outputs, in
  /// plan order. Throws Error naming the input (index and name) for a wrong input count,
  /// dtype or shape, and naming the step when a kernel fails. Inputs that are not 64-byte
  /// aligned are copied into aligned buffers. A model with a symbolic batch takes the batch
  /// size from its batched inputs (their leading extent, a multiple of one sample's, the
  /// same multiple for all) and sets it on the context.
  std::vector<NDArray> run(RunContext& context, const std::vector<const NDArray*>& inputs) const;
  /// run(context, inputs) through the Model's own context.
  std::vector<NDArray> run(const std::vector<const NDArray*>& inputs);

  /// The raw form, at the context's batch size: inputs[i] points to input i's data
  /// (context.input_nbytes(i) bytes, any alignment), no check. Afterwards
  /// context.output_data(i) holds output i; when `outputs` is given, output i is also copied
  /// to outputs[i] (context.output_nbytes(i) bytes; a null entry is skipped).
  void run_raw(RunContext& context, const void* const* inputs,
               void* const* outputs = nullptr) const;
  /// run_raw through the Model's own context.
  void run_raw(const void* const* inputs, void* const* outputs = nullptr);

  /// Output i of the last run through the Model's own context (see RunContext::output_data).
  const void* output_data(size_t i) const { return context_.output_data(i); }

  size_t num_inputs() const { return plan().inputs.size(); }
  size_t num_outputs() const { return plan().outputs.size(); }
  /// Input / output i as planned (a batched one's shape is one sample's).
  const PlanTensor& input(size_t i) const;
  const PlanTensor& output(size_t i) const;
  /// Sizes at the batch size of the Model's own context.
  int64_t input_nbytes(size_t i) const { return context_.input_nbytes(i); }
  int64_t output_nbytes(size_t i) const { return context_.output_nbytes(i); }
  const ModelPlan& plan() const;

  /// Threads for parallel loops during runs: 0 (the default) applies the plan's
  /// num_threads when it is non-zero and leaves the runtime's setting otherwise; n > 0
  /// applies n. The setting is the runtime's (one pool for the process): runs of models
  /// that ask for different counts at once rebuild the pool in turn. A run inside a
  /// parallel body applies nothing (its loops run serially). Throws Error when negative.
  void set_num_threads(int32_t num_threads);

  /// Profiling of the Model's own context (see RunContext::set_profiling).
  void set_profiling(bool on) { context_.set_profiling(on); }
  const std::vector<double>& step_times_ms() const { return context_.step_times_ms(); }

  /// The Model's own context, used by the overloads without one.
  RunContext& context() { return context_; }

 private:
  friend class RunContext;
  /// Throws Error unless `context` was made for this model.
  void check_context(const RunContext& context) const;
  /// Checks the inputs' count, dtypes and shapes; returns the batch size they hold.
  int64_t check_inputs(const std::vector<const NDArray*>& inputs) const;

  std::shared_ptr<const ModelCode> code_;
  int32_t num_threads_ = 0;
  RunContext context_;
};

}  // namespace tessel::runtime
