// ModelPlan: what a compiled model runs, as plain data the runtime can read without the
// compiler.
//
// A plan lists the model's tensors and where each one lives (a graph input, the weights blob
// or the activation arena), and its steps in order: kernel launches, each naming the tensors
// it takes as arguments (inputs first, then outputs, as the kernel was built), and the
// copies, jumps and loop tests that control flow (If, Loop, Scan) compiles to. The compiler
// fills it (memory planning decides the arena offsets); a compiled model library carries it
// serialised next to its kernels and weights; runtime::Model runs it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/ndarray.h"

namespace tessel::runtime {

/// Where a plan tensor's data lives.
enum class Storage : uint8_t {
  Input = 0,   ///< the caller's input `offset` (an index into ModelPlan::inputs)
  Weight = 1,  ///< `offset` bytes into the weights blob
  Arena = 2,   ///< `offset` bytes into the activation arena
};

struct PlanTensor {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  Storage storage = Storage::Arena;
  /// Input index, or byte offset into the weights blob or the arena (a multiple of 64).
  int64_t offset = 0;
  /// Whether the tensor carries the batch of a model with a symbolic batch (an input or an
  /// arena tensor, never a weight): `shape` is one sample's, and a run of N samples holds N
  /// of them one after the other, shape[0] * N rows. A batched arena tensor lives in the
  /// batch arena: sample n of it at N * offset + n * sample_stride() bytes, so the planned
  /// offsets of one sample, scaled by N, keep tensors that live at once apart.
  bool batched = false;
  /// The dimension whose extent the run finds (-1: none); `shape` then holds the largest
  /// extent. Without `extent_of`, a data-dependent step (or TrimFromBound) sets the extent,
  /// and the tensor lives outside the arena (offset 0), compact, in memory the run allocates
  /// for the extent found.
  int32_t dynamic_dim = -1;
  /// A tensor that kernels read or write *padded*: in the arena at its largest shape, valid
  /// up to the run's extent along `dynamic_dim` (nothing valid is computed from what lies
  /// after); the extent is that of the compact tensor `extent_of` (-1: not padded).
  int32_t extent_of = -1;

  /// Whether the tensor is compact with an extent the run finds (outside the arena).
  bool is_compact_dynamic() const { return dynamic_dim >= 0 && extent_of < 0; }
  /// Whether the tensor is padded to its largest extent (see `extent_of`).
  bool is_padded() const { return extent_of >= 0; }

  /// The product of the shape (1 for a scalar).
  int64_t num_elements() const;
  /// The size of the data in bytes (bool takes one byte per element).
  int64_t nbytes() const;
  /// Bytes from one sample to the next in the batch arena: nbytes() rounded up to 64, so
  /// that every sample starts aligned.
  int64_t sample_stride() const;
};

/// What a step does. Besides kernel launches, a plan has the few steps that control flow
/// (If, Loop, Scan) compiles to: copies, jumps, a loop test and slices of scanned tensors.
enum class StepKind : uint8_t {
  Kernel = 0,      ///< runs `kernel` on `args`
  Copy = 1,        ///< args {from, to}: copies the data (same dtype and element count)
  JumpUnless = 2,  ///< args {cond}: goes to step `target` when the bool `cond` is false
  Jump = 3,        ///< goes to step `target`
  /// args {iteration, trip count, condition}: goes to step `target` (the loop's end) unless
  /// iteration < trip count (int64 scalars) and the bool condition holds; with `all_trips`,
  /// ending before the trip count is an error (the loop's scan outputs need every trip).
  LoopTest = 4,
  Increment = 5,  ///< args {iteration}: adds one to the int64 scalar
  /// args {whole, slice, iteration}: copies the iteration-th slice along `axis` of whole
  /// (counted from the end when `reverse`) into slice, whose shape is whole's without axis.
  SliceIn = 6,
  /// args {slice, whole, iteration}: the reverse, into the iteration-th slice of whole.
  SliceOut = 7,
  /// args {inputs..., outputs...}: operators whose output extents depend on input values,
  /// run by the runtime (runtime/data_dependent.h), with `params`; each output with a
  /// dynamic dimension gets its extent from the run.
  NonZero = 8,
  Unique = 9,
  NonMaxSuppression = 10,
  Compress = 11,
  TopK = 12,
  /// args {input, output}: string operators run the same way (runtime/string_ops.h).
  StringNormalizer = 13,
  CastString = 14,
  /// args {compact, padded}: copies a compact dynamic tensor into its padded twin (same
  /// dtype, shape and dynamic dimension, extent_of the compact one), zeros after the extent.
  PadToBound = 15,
  /// args {padded, compact}: the reverse, setting the compact tensor's extent.
  TrimFromBound = 16,
  /// args {input, extent}: the extent of the input's dimension `params[0]` in this run, an
  /// int64 scalar (a data-dependent step: kernels masking padding read it).
  ExtentOf = 17,
};
const char* step_kind_name(StepKind kind);

/// One step of the plan: most are kernel launches.
struct PlanStep {
  StepKind kind = StepKind::Kernel;
  /// The kernel's symbol (`int32_t kernel(void** args)`); empty for other kinds.
  std::string kernel;
  /// What the step computes, for profiles: the fused operators, e.g. "Conv+Add+Relu".
  std::string label;
  /// Tensor ids of the kernel's arguments, in its parameter order (or the step kind's).
  std::vector<int32_t> args;
  /// Jumps and LoopTest: the step to go to.
  int32_t target = 0;
  /// SliceIn and SliceOut: the sliced axis of the whole tensor, and its direction.
  int32_t axis = 0;
  bool reverse = false;
  /// LoopTest: every trip must run.
  bool all_trips = false;
  /// Kernels: 0, or the rows of one block when the kernel computes one block of rows of
  /// its padded arguments (their dynamic dimension the leading one): it then runs once per
  /// block the run's extent reaches, each launch one block further into them.
  int32_t block_rows = 0;
  /// Data-dependent steps: their parameters (runtime/data_dependent.h), and text ones
  /// (StringNormalizer's stop words).
  std::vector<int64_t> params = {};
  std::vector<std::string> strings = {};
};

struct ModelPlan {
  std::string name;
  std::vector<PlanTensor> tensors;
  /// Tensor ids of the model's inputs and outputs, in order. An output may be any tensor
  /// (an arena tensor, a weight, or an input passed through).
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::vector<PlanStep> steps;
  /// Bytes of the activation arena (the planned peak) and of the weights blob.
  int64_t arena_bytes = 0;
  int64_t weights_bytes = 0;
  /// Sum of the sizes of all intermediate tensors, i.e. the arena size without reuse.
  int64_t intermediate_bytes = 0;
  /// Threads the model was compiled for (0: the runtime's default).
  int32_t num_threads = 0;
  /// The name of the symbolic batch dimension ("N"; empty: static shapes) and the bytes of
  /// the batch arena per sample. Kernel steps touching a batched tensor run once per sample,
  /// on that sample's slices of their batched arguments; other steps touch none.
  std::string batch_symbol;
  int64_t batch_arena_bytes = 0;
};

/// The plan as bytes (a versioned little-endian format), and back. deserialize_plan checks
/// everything it reads (magic, version, counts, ids, offsets within the arena and the
/// weights) and throws runtime::Error naming the byte offset of the first problem.
std::vector<uint8_t> serialize_plan(const ModelPlan& plan);
ModelPlan deserialize_plan(const uint8_t* data, size_t size);

}  // namespace tessel::runtime
