// ModelPlan sizes and its binary form.
//
// Layout (little-endian; strings are a u32 length then the bytes; lists a u32 count):
//   "TSLPLAN\0"  u32 version
//   name  i64 arena_bytes  i64 weights_bytes  i64 intermediate_bytes  i32 num_threads
//   batch_symbol  i64 batch_arena_bytes
//   tensors: {name, u8 dtype code, u8 dtype bits, u8 storage, u32 ndim, i64 dims[ndim],
//             i64 offset, u8 flags (1: batched), i32 dynamic_dim, i32 extent_of}
//   inputs: i32 ids   outputs: i32 ids
//   steps: {u8 kind, kernel, label, u32 nargs, i32 args[nargs], i32 target, i32 axis,
//           u8 flags (1: reverse, 2: all_trips), i32 block_rows, u32 nparams,
//           i64 params[nparams], u32 nstrings, strings[nstrings]}
// Nothing may follow the last step. The reader checks every count against the bytes left
// before allocating, so corrupted bytes cost no more memory than their own size.
#include "runtime/model_plan.h"

#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/data_dependent.h"
#include "runtime/error.h"

namespace tessel::runtime {
namespace {

constexpr char kMagic[8] = {'T', 'S', 'L', 'P', 'L', 'A', 'N', '\0'};
constexpr uint32_t kVersion = 6;
/// Offsets into the arena and the weights are multiples of this (kernels assume aligned
/// arguments).
constexpr int64_t kTensorAlignment = 64;
/// Larger arenas or weight blobs cannot be allocated on any supported machine.
constexpr int64_t kMaxBytes = int64_t{1} << 48;

class Writer {
 public:
  template <class T>
  void put(T value) {
    static_assert(std::is_integral_v<T>);
    for (size_t i = 0; i < sizeof(T); ++i)
      bytes_.push_back(
          static_cast<uint8_t>(static_cast<std::make_unsigned_t<T>>(value) >> (8 * i)));
  }
  void put_string(const std::string& s) {
    put(static_cast<uint32_t>(s.size()));
    bytes_.insert(bytes_.end(), s.begin(), s.end());
  }
  void put_ids(const std::vector<int32_t>& ids) {
    put(static_cast<uint32_t>(ids.size()));
    for (int32_t id : ids) put(id);
  }
  std::vector<uint8_t> take() { return std::move(bytes_); }

 private:
  std::vector<uint8_t> bytes_;
};

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  size_t position() const { return pos_; }
  size_t remaining() const { return size_ - pos_; }

  [[noreturn]] void fail_at(size_t position, const std::string& problem) const {
    throw Error("model plan: byte " + std::to_string(position) + ": " + problem);
  }
  [[noreturn]] void fail(const std::string& problem) const { fail_at(pos_, problem); }

  template <class T>
  T get(const char* what) {
    static_assert(std::is_integral_v<T>);
    if (remaining() < sizeof(T))
      fail("truncated: " + std::string(what) + " needs " + std::to_string(sizeof(T)) + " bytes, " +
           std::to_string(remaining()) + " left");
    std::make_unsigned_t<T> value = 0;
    for (size_t i = 0; i < sizeof(T); ++i)
      value |= static_cast<std::make_unsigned_t<T>>(data_[pos_ + i]) << (8 * i);
    pos_ += sizeof(T);
    return static_cast<T>(value);
  }

  /// A count of items that take at least `min_item_bytes` each, checked against the bytes
  /// left.
  uint32_t get_count(const char* what, size_t min_item_bytes) {
    size_t at = pos_;
    uint32_t n = get<uint32_t>(what);
    if (static_cast<uint64_t>(n) * min_item_bytes > remaining())
      fail_at(at, std::string(what) + " is " + std::to_string(n) + " but only " +
                      std::to_string(remaining()) + " bytes are left");
    return n;
  }

  std::string get_string(const char* what) {
    uint32_t n = get_count(what, 1);
    std::string s(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return s;
  }

  int64_t get_size(const char* what) {
    size_t at = pos_;
    int64_t v = get<int64_t>(what);
    if (v < 0 || v > kMaxBytes)
      fail_at(at, std::string(what) + " is " + std::to_string(v) + ", expected 0 to 2^48");
    return v;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

bool valid_dtype(DType t) {
  switch (t.code) {
    case DTypeCode::Int:
    case DTypeCode::Float:
      return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
    case DTypeCode::UInt:
      return t.bits == 1 || t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
    case DTypeCode::BFloat:
      return t.bits == 16;
    case DTypeCode::String:
      return t.bits == 64;
  }
  return false;
}

std::string describe(int32_t id, const PlanTensor& t) {
  return "tensor " + std::to_string(id) + " ('" + t.name + "')";
}

PlanTensor read_tensor(Reader& in, int32_t id, const ModelPlan& plan,
                       std::vector<size_t>& offset_positions) {
  PlanTensor t;
  t.name = in.get_string("tensor name length");
  size_t at = in.position();
  uint8_t code = in.get<uint8_t>("dtype code");
  uint8_t bits = in.get<uint8_t>("dtype bits");
  t.dtype = DType{static_cast<DTypeCode>(code), bits};
  if (!valid_dtype(t.dtype))
    in.fail_at(at, describe(id, t) + ": invalid dtype (code " + std::to_string(code) + ", " +
                       std::to_string(bits) + " bits)");
  at = in.position();
  uint8_t storage = in.get<uint8_t>("storage");
  if (storage > static_cast<uint8_t>(Storage::Arena))
    in.fail_at(at, describe(id, t) + ": invalid storage " + std::to_string(storage));
  t.storage = static_cast<Storage>(storage);
  if (t.storage == Storage::Weight && t.dtype.is_string())
    in.fail_at(at, describe(id, t) +
                       ": a string weight (string tensors hold pointers, which a "
                       "weights blob cannot)");
  uint32_t ndim = in.get_count("ndim", sizeof(int64_t));
  int64_t bytes = t.dtype.bytes();
  for (uint32_t d = 0; d < ndim; ++d) {
    at = in.position();
    int64_t extent = in.get<int64_t>("dimension");
    if (extent < 0 || (extent != 0 && bytes > kMaxBytes / extent))
      in.fail_at(at, describe(id, t) + ": dimension " + std::to_string(d) + " is " +
                         std::to_string(extent) + " (negative, or the tensor exceeds 2^48 bytes)");
    bytes *= extent;
    t.shape.push_back(extent);
  }
  offset_positions.push_back(in.position());
  t.offset = in.get<int64_t>("offset");
  at = in.position();
  uint8_t flags = in.get<uint8_t>("tensor flags");
  if (flags > 1) in.fail_at(at, describe(id, t) + ": invalid flags " + std::to_string(flags));
  t.batched = flags & 1;
  at = in.position();
  t.dynamic_dim = in.get<int32_t>("dynamic dimension");
  if (t.dynamic_dim < -1 || t.dynamic_dim >= static_cast<int32_t>(ndim))
    in.fail_at(at, describe(id, t) + ": dynamic dimension " + std::to_string(t.dynamic_dim) +
                       " is out of range for rank " + std::to_string(ndim));
  if (t.dynamic_dim >= 0 && (t.storage != Storage::Arena || t.batched))
    in.fail_at(at, describe(id, t) + ": a dynamic dimension, but not an unbatched arena tensor");
  at = in.position();
  t.extent_of = in.get<int32_t>("extent_of");
  // Which tensor it names is checked once all are read (check_padded).
  if (t.extent_of < -1 || (t.extent_of >= 0 && t.dynamic_dim < 0))
    in.fail_at(at, describe(id, t) + ": extent_of " + std::to_string(t.extent_of) +
                       (t.extent_of < -1 ? "" : " without a dynamic dimension"));
  if (t.batched && (plan.batch_symbol.empty() || t.storage == Storage::Weight || ndim == 0))
    in.fail_at(at, describe(id, t) + ": batched, but " +
                       (plan.batch_symbol.empty() ? std::string("the plan has no symbolic batch")
                        : t.storage == Storage::Weight ? std::string("it is a weight")
                                                       : std::string("it is a scalar")));
  if (t.storage == Storage::Input) return t;  // checked against the inputs once read
  // A compact tensor with a dynamic dimension lives outside the arena, in memory the run
  // allocates; a padded one in the arena at its largest shape.
  if (t.is_compact_dynamic()) {
    if (t.offset != 0)
      in.fail_at(offset_positions.back(), describe(id, t) + ": offset " + std::to_string(t.offset) +
                                              " for a tensor with a dynamic dimension, which "
                                              "lives outside the arena (expected 0)");
    return t;
  }
  int64_t limit = t.storage == Storage::Weight ? plan.weights_bytes
                  : t.batched                  ? plan.batch_arena_bytes
                                               : plan.arena_bytes;
  const char* region = t.storage == Storage::Weight ? "weights_bytes"
                       : t.batched                  ? "batch_arena_bytes"
                                                    : "arena_bytes";
  int64_t span = t.batched ? t.sample_stride() : t.nbytes();
  if (t.offset < 0 || t.offset > limit || span > limit - t.offset)
    in.fail_at(offset_positions.back(), describe(id, t) + ": " + std::to_string(span) +
                                            " bytes at offset " + std::to_string(t.offset) +
                                            " lie outside " + region + " (" +
                                            std::to_string(limit) + ")");
  if (t.offset % kTensorAlignment != 0)
    in.fail_at(offset_positions.back(), describe(id, t) + ": offset " + std::to_string(t.offset) +
                                            " is not a multiple of " +
                                            std::to_string(kTensorAlignment));
  return t;
}

/// A padded tensor takes its extent from a compact dynamic tensor of the same largest
/// extent along the dynamic dimension.
void check_padded(const Reader& in, const ModelPlan& plan,
                  const std::vector<size_t>& offset_positions) {
  for (size_t id = 0; id < plan.tensors.size(); ++id) {
    const PlanTensor& t = plan.tensors[id];
    if (!t.is_padded()) continue;
    // extent_of lies 12 bytes past the offset (flags, dynamic dimension).
    size_t at = offset_positions[id] + 13;
    if (static_cast<size_t>(t.extent_of) >= plan.tensors.size())
      in.fail_at(at, describe(static_cast<int32_t>(id), t) + ": extent_of " +
                         std::to_string(t.extent_of) + " names no tensor");
    const PlanTensor& compact = plan.tensors[static_cast<size_t>(t.extent_of)];
    if (!compact.is_compact_dynamic() || compact.shape[static_cast<size_t>(compact.dynamic_dim)] !=
                                             t.shape[static_cast<size_t>(t.dynamic_dim)])
      in.fail_at(at, describe(static_cast<int32_t>(id), t) + ": its extent comes from " +
                         describe(t.extent_of, compact) +
                         ", which is no compact dynamic tensor of its largest extent");
  }
}

std::vector<int32_t> read_ids(Reader& in, const char* what, size_t num_tensors) {
  uint32_t n = in.get_count(what, sizeof(int32_t));
  std::vector<int32_t> ids;
  ids.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    size_t at = in.position();
    int32_t id = in.get<int32_t>("tensor id");
    if (id < 0 || static_cast<size_t>(id) >= num_tensors)
      in.fail_at(at, std::string(what) + ": tensor id " + std::to_string(id) +
                         " out of range (the plan has " + std::to_string(num_tensors) +
                         " tensors)");
    ids.push_back(id);
  }
  return ids;
}

/// Input tensor k must be the one listed k-th in `inputs`, and the other way round.
void check_inputs(const Reader& in, const ModelPlan& plan, size_t inputs_position,
                  const std::vector<size_t>& offset_positions) {
  for (size_t id = 0; id < plan.tensors.size(); ++id) {
    const PlanTensor& t = plan.tensors[id];
    if (t.storage != Storage::Input) continue;
    if (t.offset < 0 || static_cast<uint64_t>(t.offset) >= plan.inputs.size() ||
        plan.inputs[static_cast<size_t>(t.offset)] != static_cast<int32_t>(id))
      in.fail_at(offset_positions[id], describe(static_cast<int32_t>(id), t) + ": input index " +
                                           std::to_string(t.offset) +
                                           " does not list it among the " +
                                           std::to_string(plan.inputs.size()) + " inputs");
  }
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    const PlanTensor& t = plan.tensors[static_cast<size_t>(plan.inputs[i])];
    if (t.storage != Storage::Input || t.offset != static_cast<int64_t>(i))
      in.fail_at(inputs_position + 4 + 4 * i,
                 "input " + std::to_string(i) + " is " + describe(plan.inputs[i], t) +
                     ", which is not stored as input " + std::to_string(i));
  }
}

/// Fails unless data-dependent `step` names inputs the step takes and outputs of exactly the
/// types, largest shapes and dynamic dimensions it writes, in the arena: the run writes up
/// to those shapes' bytes.
void check_data_dependent(const Reader& in, size_t at, const ModelPlan& plan,
                          const std::string& what, const PlanStep& step) {
  size_t outputs = data_dependent_output_count(step.kind);
  if (step.args.size() < outputs) in.fail_at(at, what + ": too few arguments");
  std::vector<DType> types;
  std::vector<std::vector<int64_t>> shapes;
  for (size_t k = 0; k + outputs < step.args.size(); ++k) {
    const PlanTensor& t = plan.tensors[static_cast<size_t>(step.args[k])];
    if (t.is_padded())
      in.fail_at(at, what + ": reads padded " + describe(step.args[k], t) +
                         "; a step reads compact tensors");
    types.push_back(t.dtype);
    shapes.push_back(t.shape);
  }
  DataDependentOutputs expected;
  try {
    expected = data_dependent_outputs(step.kind, step.params, types, shapes);
  } catch (const Error& e) {
    in.fail_at(at, what + ": " + e.what());
  }
  for (size_t k = 0; k < outputs; ++k) {
    int32_t id = step.args[step.args.size() - outputs + k];
    const PlanTensor& t = plan.tensors[static_cast<size_t>(id)];
    if (t.storage != Storage::Arena || t.batched || t.is_padded() ||
        t.dtype != expected.dtypes[k] || t.shape != expected.capacities[k] ||
        t.dynamic_dim != expected.dynamic_dims[k])
      in.fail_at(at, what + ": output " + std::to_string(k) + " " + describe(id, t) +
                         " is not an arena tensor of the type, largest shape and dynamic "
                         "dimension the step writes");
  }
}

/// Fails unless a kernel `step` running per block of rows has padded arguments of one extent
/// along their leading dimension, a whole number of blocks long, and none batched.
void check_blocks(const Reader& in, size_t at, const ModelPlan& plan, const std::string& what,
                  const PlanStep& step) {
  if (step.block_rows == 0) return;
  auto fail = [&](const std::string& problem) { in.fail_at(at, what + ": " + problem); };
  if (step.block_rows < 0) fail("block rows " + std::to_string(step.block_rows));
  int32_t extent_of = -1;
  for (int32_t id : step.args) {
    const PlanTensor& t = plan.tensors[static_cast<size_t>(id)];
    if (t.batched) fail("runs per block of rows and touches batched " + describe(id, t));
    if (!t.is_padded()) continue;
    if (t.dynamic_dim != 0 || t.shape[0] == 0 || t.shape[0] % step.block_rows != 0 ||
        (extent_of >= 0 && t.extent_of != extent_of))
      fail("runs per block of " + std::to_string(step.block_rows) + " rows, but " +
           describe(id, t) +
           " is not padded along its leading dimension to whole blocks of the step's extent");
    extent_of = t.extent_of;
  }
  if (extent_of < 0) fail("runs per block of rows, but has no padded argument");
}

/// Fails unless `step` (number `s`, read at byte `at`) is well formed for its kind: the
/// argument count, the tensors' dtypes, shapes and storage it needs, a target within the plan.
void check_step(const Reader& in, size_t at, const ModelPlan& plan, uint32_t s,
                const PlanStep& step, uint32_t num_steps) {
  std::string what = "step " + std::to_string(s) + " (" + step_kind_name(step.kind) + ")";
  auto fail = [&](const std::string& problem) { in.fail_at(at, what + ": " + problem); };
  auto tensor = [&](size_t k) -> const PlanTensor& {
    return plan.tensors[static_cast<size_t>(step.args[k])];
  };
  auto expect_args = [&](size_t n) {
    if (step.args.size() != n)
      fail("takes " + std::to_string(n) + " arguments, has " + std::to_string(step.args.size()));
  };
  auto expect_scalar = [&](size_t k, DType dtype, const char* role) {
    if (tensor(k).dtype != dtype || tensor(k).num_elements() != 1)
      fail(std::string(role) + " " + describe(step.args[k], tensor(k)) + " is not a " +
           dtype.to_string() + " scalar");
  };
  auto expect_written = [&](size_t k) {
    if (tensor(k).storage != Storage::Arena)
      fail("writes " + describe(step.args[k], tensor(k)) + ", which is not in the arena");
  };
  auto expect_target = [&] {
    if (step.target < 0 || static_cast<uint32_t>(step.target) > num_steps)
      fail("goes to step " + std::to_string(step.target) + " of " + std::to_string(num_steps));
  };
  if ((step.kind == StepKind::Kernel) != !step.kernel.empty())
    fail(step.kind == StepKind::Kernel ? "has no kernel name" : "names a kernel");
  if (step.block_rows != 0 && step.kind != StepKind::Kernel)
    fail("has " + std::to_string(step.block_rows) + " block rows, but runs no kernel");
  if (is_data_dependent(step.kind)) return check_data_dependent(in, at, plan, what, step);
  // Only data-dependent steps and trims read or write a compact dynamic tensor: every other
  // step takes the largest shape's bytes.
  bool trims = step.kind == StepKind::PadToBound || step.kind == StepKind::TrimFromBound;
  for (size_t k = 0; k < step.args.size(); ++k)
    if (tensor(k).is_compact_dynamic() &&
        !(trims && k == (step.kind == StepKind::PadToBound ? 0u : 1u)))
      fail("touches " + describe(step.args[k], tensor(k)) +
           ", whose extent the run finds, without padding it to its largest extent");
  if (step.kind != StepKind::Kernel)
    for (size_t k = 0; k < step.args.size(); ++k)
      if (tensor(k).batched)
        fail("touches batched " + describe(step.args[k], tensor(k)) +
             "; only kernels run sample by sample");
  switch (step.kind) {
    case StepKind::Kernel:
      for (size_t k = 0; k < step.args.size(); ++k)
        if (tensor(k).dtype.is_string())
          fail("passes string " + describe(step.args[k], tensor(k)) + " to a kernel");
      return check_blocks(in, at, plan, what, step);
    case StepKind::Copy:
      expect_args(2);
      expect_written(1);
      if (tensor(0).dtype != tensor(1).dtype ||
          tensor(0).num_elements() != tensor(1).num_elements())
        fail("copies " + describe(step.args[0], tensor(0)) + " into " +
             describe(step.args[1], tensor(1)) + " of another dtype or size");
      return;
    case StepKind::JumpUnless:
      expect_args(1);
      expect_scalar(0, DType::Bool(), "condition");
      return expect_target();
    case StepKind::Jump:
      expect_args(0);
      return expect_target();
    case StepKind::LoopTest:
      expect_args(3);
      expect_scalar(0, DType::Int(64), "iteration");
      expect_scalar(1, DType::Int(64), "trip count");
      expect_scalar(2, DType::Bool(), "condition");
      return expect_target();
    case StepKind::Increment:
      expect_args(1);
      expect_scalar(0, DType::Int(64), "iteration");
      return expect_written(0);
    case StepKind::NonZero:
    case StepKind::Unique:
    case StepKind::NonMaxSuppression:
    case StepKind::Compress:
    case StepKind::TopK:
    case StepKind::StringNormalizer:
    case StepKind::CastString:
    case StepKind::ExtentOf:
      return;  // checked above
    case StepKind::PadToBound:
    case StepKind::TrimFromBound: {
      expect_args(2);
      bool pads = step.kind == StepKind::PadToBound;
      const PlanTensor& compact = tensor(pads ? 0 : 1);
      const PlanTensor& padded = tensor(pads ? 1 : 0);
      expect_written(1);
      if (!padded.is_padded() || compact.dtype != padded.dtype || compact.shape != padded.shape ||
          compact.dynamic_dim != padded.dynamic_dim)
        fail("'" + padded.name + "' is no padded twin of '" + compact.name + "'");
      if (pads && padded.extent_of != step.args[0])
        fail("'" + padded.name + "' takes its extent from another tensor than '" + compact.name +
             "'");
      return;
    }
    case StepKind::SliceIn:
    case StepKind::SliceOut: {
      expect_args(3);
      bool in_slice = step.kind == StepKind::SliceIn;
      const PlanTensor& whole = tensor(in_slice ? 0 : 1);
      const PlanTensor& slice = tensor(in_slice ? 1 : 0);
      expect_written(1);
      expect_scalar(2, DType::Int(64), "iteration");
      if (step.axis < 0 || static_cast<size_t>(step.axis) >= whole.shape.size())
        fail("axis " + std::to_string(step.axis) + " is out of range for " + whole.name);
      std::vector<int64_t> shape = whole.shape;
      shape.erase(shape.begin() + step.axis);
      if (whole.dtype != slice.dtype || shape != slice.shape)
        fail("'" + slice.name + "' is not a slice of '" + whole.name + "' along axis " +
             std::to_string(step.axis));
      return;
    }
  }
}

}  // namespace

const char* step_kind_name(StepKind kind) {
  switch (kind) {
    case StepKind::Kernel:
      return "kernel";
    case StepKind::Copy:
      return "copy";
    case StepKind::JumpUnless:
      return "jump unless";
    case StepKind::Jump:
      return "jump";
    case StepKind::LoopTest:
      return "loop test";
    case StepKind::Increment:
      return "increment";
    case StepKind::SliceIn:
      return "slice in";
    case StepKind::SliceOut:
      return "slice out";
    case StepKind::NonZero:
      return "NonZero";
    case StepKind::Unique:
      return "Unique";
    case StepKind::NonMaxSuppression:
      return "NonMaxSuppression";
    case StepKind::Compress:
      return "Compress";
    case StepKind::TopK:
      return "TopK";
    case StepKind::StringNormalizer:
      return "StringNormalizer";
    case StepKind::CastString:
      return "CastString";
    case StepKind::ExtentOf:
      return "extent of";
    case StepKind::PadToBound:
      return "pad to bound";
    case StepKind::TrimFromBound:
      return "trim from bound";
  }
  return "?";
}

int64_t PlanTensor::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t PlanTensor::nbytes() const {
  return num_elements() * dtype.bytes();
}

int64_t PlanTensor::sample_stride() const {
  return (nbytes() + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
}

std::vector<uint8_t> serialize_plan(const ModelPlan& plan) {
  Writer out;
  for (char c : kMagic) out.put(static_cast<uint8_t>(c));
  out.put(kVersion);
  out.put_string(plan.name);
  out.put(plan.arena_bytes);
  out.put(plan.weights_bytes);
  out.put(plan.intermediate_bytes);
  out.put(plan.num_threads);
  out.put_string(plan.batch_symbol);
  out.put(plan.batch_arena_bytes);
  out.put(static_cast<uint32_t>(plan.tensors.size()));
  for (const PlanTensor& t : plan.tensors) {
    out.put_string(t.name);
    out.put(static_cast<uint8_t>(t.dtype.code));
    out.put(t.dtype.bits);
    out.put(static_cast<uint8_t>(t.storage));
    out.put(static_cast<uint32_t>(t.shape.size()));
    for (int64_t d : t.shape) out.put(d);
    out.put(t.offset);
    out.put(static_cast<uint8_t>(t.batched ? 1 : 0));
    out.put(t.dynamic_dim);
    out.put(t.extent_of);
  }
  out.put_ids(plan.inputs);
  out.put_ids(plan.outputs);
  out.put(static_cast<uint32_t>(plan.steps.size()));
  for (const PlanStep& step : plan.steps) {
    out.put(static_cast<uint8_t>(step.kind));
    out.put_string(step.kernel);
    out.put_string(step.label);
    out.put_ids(step.args);
    out.put(step.target);
    out.put(step.axis);
    out.put(static_cast<uint8_t>((step.reverse ? 1 : 0) | (step.all_trips ? 2 : 0)));
    out.put(step.block_rows);
    out.put(static_cast<uint32_t>(step.params.size()));
    for (int64_t p : step.params) out.put(p);
    out.put(static_cast<uint32_t>(step.strings.size()));
    for (const std::string& text : step.strings) out.put_string(text);
  }
  return out.take();
}

ModelPlan deserialize_plan(const uint8_t* data, size_t size) {
  Reader in(data, size);
  if (size < sizeof kMagic || std::memcmp(data, kMagic, sizeof kMagic) != 0)
    in.fail("not a tessel model plan (bad magic)");
  for (size_t i = 0; i < sizeof kMagic; ++i) in.get<uint8_t>("magic");
  uint32_t version = in.get<uint32_t>("version");
  if (version != kVersion)
    in.fail_at(sizeof kMagic, "unsupported plan version " + std::to_string(version) +
                                  " (this runtime reads version " + std::to_string(kVersion) +
                                  "): the library was made by another tessel version; compile "
                                  "the model again");
  ModelPlan plan;
  plan.name = in.get_string("name length");
  plan.arena_bytes = in.get_size("arena_bytes");
  plan.weights_bytes = in.get_size("weights_bytes");
  plan.intermediate_bytes = in.get_size("intermediate_bytes");
  size_t at = in.position();
  plan.num_threads = in.get<int32_t>("num_threads");
  if (plan.num_threads < 0)
    in.fail_at(at, "num_threads is " + std::to_string(plan.num_threads) + ", expected >= 0");
  plan.batch_symbol = in.get_string("batch symbol length");
  at = in.position();
  plan.batch_arena_bytes = in.get_size("batch_arena_bytes");
  if (plan.batch_symbol.empty() && plan.batch_arena_bytes != 0)
    in.fail_at(at, "a batch arena of " + std::to_string(plan.batch_arena_bytes) +
                       " bytes without a symbolic batch");

  // A tensor takes at least 4 (name) + 3 (dtype, storage) + 4 (ndim) + 8 (offset) + 1
  // (flags) + 4 (dynamic dimension) + 4 (extent_of) bytes.
  uint32_t num_tensors = in.get_count("tensor count", 28);
  if (num_tensors > static_cast<uint32_t>(std::numeric_limits<int32_t>::max()))
    in.fail("too many tensors");
  std::vector<size_t> offset_positions;
  plan.tensors.reserve(num_tensors);
  for (uint32_t id = 0; id < num_tensors; ++id)
    plan.tensors.push_back(read_tensor(in, static_cast<int32_t>(id), plan, offset_positions));
  check_padded(in, plan, offset_positions);

  size_t inputs_position = in.position();
  plan.inputs = read_ids(in, "inputs", num_tensors);
  plan.outputs = read_ids(in, "outputs", num_tensors);
  check_inputs(in, plan, inputs_position, offset_positions);
  for (size_t i = 0; i < plan.outputs.size(); ++i)
    if (plan.tensors[static_cast<size_t>(plan.outputs[i])].is_padded())
      in.fail_at(inputs_position,
                 "output " + std::to_string(i) + " is padded " +
                     describe(plan.outputs[i], plan.tensors[static_cast<size_t>(plan.outputs[i])]) +
                     "; outputs are compact");

  // A step takes at least 1 (kind) + 4 (kernel) + 4 (label) + 4 (nargs) + 8 (target,
  // axis) + 1 (flags) + 4 (block rows) + 4 (nparams) + 4 (nstrings) bytes.
  uint32_t num_steps = in.get_count("step count", 34);
  plan.steps.reserve(num_steps);
  for (uint32_t s = 0; s < num_steps; ++s) {
    PlanStep step;
    at = in.position();
    uint8_t kind = in.get<uint8_t>("step kind");
    if (kind > static_cast<uint8_t>(StepKind::ExtentOf))
      in.fail_at(at, "step " + std::to_string(s) + " has the invalid kind " + std::to_string(kind));
    step.kind = static_cast<StepKind>(kind);
    step.kernel = in.get_string("kernel name length");
    step.label = in.get_string("label length");
    step.args = read_ids(in, "step arguments", num_tensors);
    step.target = in.get<int32_t>("step target");
    step.axis = in.get<int32_t>("step axis");
    uint8_t flags = in.get<uint8_t>("step flags");
    if (flags > 3)
      in.fail("step " + std::to_string(s) + " has the invalid flags " + std::to_string(flags));
    step.reverse = flags & 1;
    step.all_trips = flags & 2;
    step.block_rows = in.get<int32_t>("step block rows");
    uint32_t nparams = in.get_count("step parameters", sizeof(int64_t));
    for (uint32_t k = 0; k < nparams; ++k) step.params.push_back(in.get<int64_t>("step parameter"));
    uint32_t nstrings = in.get_count("step text parameters", 4);
    for (uint32_t k = 0; k < nstrings; ++k)
      step.strings.push_back(in.get_string("step text length"));
    check_step(in, at, plan, s, step, num_steps);
    plan.steps.push_back(std::move(step));
  }
  if (in.remaining() != 0)
    in.fail(std::to_string(in.remaining()) + " unexpected bytes after the last step");
  return plan;
}

}  // namespace tessel::runtime
