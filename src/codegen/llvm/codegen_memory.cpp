// FunctionCodeGen: buffers — alias scopes, loads and stores (contiguous vectors, permuted
// aligned runs, gathers, scatters) and allocations (stack for Local, runtime workspace for Global).
#include <llvm/IR/MDBuilder.h>

#include <algorithm>
#include <limits>
#include <unordered_set>

#include "arith/lane_offsets.h"
#include "codegen/llvm/function_codegen.h"
#include "ir/functor.h"
#include "runtime/tessel_runtime.h"
#include "support/error.h"

namespace tessel::codegen {

using namespace ir;

namespace {

/// Global-scope buffers of constant size up to this many bytes are placed on the stack.
constexpr int64_t kMaxStackBufferBytes = 16 * 1024;

/// Every buffer of a function (parameters first), in order of first appearance.
class BufferCollector : public IRVisitor {
 public:
  void add(const Buffer& b) {
    if (seen_.insert(b->data.get()).second) buffers.push_back(b);
  }
  void visit_buffer(const Buffer& b) override { add(b); }
  std::vector<Buffer> buffers;

 private:
  std::unordered_set<const VarNode*> seen_;
};

}  // namespace

void FunctionCodeGen::make_alias_scopes() {
  BufferCollector collector;
  for (const Buffer& p : func_.params) collector.add(p);
  collector.visit(func_.body);
  // Distinct buffers are distinct memory: each gets a scope, and its accesses are declared
  // not to alias any other buffer's (LLVM's scoped no-alias analysis).
  llvm::MDBuilder md(ctx_);
  llvm::MDNode* domain = md.createAnonymousAliasScopeDomain(func_.name);
  std::vector<llvm::Metadata*> scopes;
  for (const Buffer& b : collector.buffers)
    scopes.push_back(md.createAnonymousAliasScope(domain, b->name));
  for (size_t i = 0; i < collector.buffers.size(); ++i) {
    std::vector<llvm::Metadata*> others;
    for (size_t j = 0; j < scopes.size(); ++j)
      if (j != i) others.push_back(scopes[j]);
    alias_[collector.buffers[i]->data.get()] = {
        llvm::MDNode::get(ctx_, {scopes[i]}),
        others.empty() ? nullptr : llvm::MDNode::get(ctx_, others)};
  }
}

const FunctionCodeGen::BufferInfo& FunctionCodeGen::buffer_info(const Buffer& buffer) {
  auto it = state_.buffers.find(buffer->data.get());
  if (it == state_.buffers.end())
    fail("buffer '" + buffer->name + "' is used outside its allocation (it is neither a " +
         "parameter nor an enclosing Allocate)");
  return it->second;
}

const Expr& FunctionCodeGen::flat_index(const Buffer& buffer, const std::vector<Expr>& indices,
                                        const char* what) {
  if (indices.size() != 1)
    fail(std::string(what) + " of buffer '" + buffer->name + "' has " +
         std::to_string(indices.size()) +
         " indices; the CPU backend expects flattened 1-d buffers (run storage_flatten)");
  return indices[0];
}

llvm::Value* FunctionCodeGen::element_address(const BufferInfo& info, llvm::Type* element,
                                              const Expr& index) {
  return builder_.CreateInBoundsGEP(element, info.ptr, to_i64(emit(index), index.dtype()));
}

void FunctionCodeGen::annotate(llvm::Instruction* access, const BufferInfo& info) {
  if (info.scope) access->setMetadata(llvm::LLVMContext::MD_alias_scope, info.scope);
  if (info.noalias) access->setMetadata(llvm::LLVMContext::MD_noalias, info.noalias);
}

llvm::Value* FunctionCodeGen::emit_load(const LoadNode* op) {
  const BufferInfo& info = buffer_info(op->buffer);
  const Expr& index = flat_index(op->buffer, op->indices, "load");
  DataType element = op->dtype.element();
  llvm::Type* memory = memory_type(element);
  llvm::Type* result_type = memory_type(op->dtype);
  llvm::Align align(element.bytes());
  llvm::Value* loaded = nullptr;
  const auto* ramp = index.as<RampNode>();
  const int64_t* stride = ramp ? as_const_int(ramp->stride) : nullptr;
  if (op->dtype.is_scalar() || (stride && (*stride == 1 || *stride == 0))) {
    // A scalar, a contiguous vector, or one element broadcast.
    const Expr& start = ramp ? ramp->base : index;
    llvm::Value* address = element_address(info, memory, start);
    bool broadcast = stride && *stride == 0;
    llvm::LoadInst* load =
        builder_.CreateAlignedLoad(broadcast ? memory : result_type, address, align);
    annotate(load, info);
    loaded = broadcast ? builder_.CreateVectorSplat(op->dtype.lanes, load) : load;
  } else if (llvm::Value* permuted = emit_permuted_load(op, info, index)) {
    loaded = permuted;
  } else if (llvm::Value* clamped = emit_clamped_load(op, info, index)) {
    loaded = clamped;
  } else {
    loaded = emit_gather(op, info, index);
  }
  return element.is_bool() ? builder_.CreateTrunc(loaded, llvm_type(op->dtype)) : loaded;
}

llvm::Value* FunctionCodeGen::emit_gather(const LoadNode* op, const BufferInfo& info,
                                          const Expr& index) {
  llvm::Type* memory = memory_type(op->dtype.element());
  llvm::Value* addresses = element_address(info, memory, index);
  llvm::CallInst* gather = builder_.CreateMaskedGather(memory_type(op->dtype), addresses,
                                                       llvm::Align(op->dtype.element().bytes()));
  annotate(gather, info);
  return gather;
}

namespace {

/// How the lanes of a vector load at `base + offsets[l]` read memory without a gather.
struct OffsetLoad {
  bool broadcast = false;  ///< one element, at base + start, in every lane
  int64_t start = 0;       ///< the vector read is at base + start
  std::vector<int> mask;   ///< lane l takes element mask[l] of it (empty: in order)
};

/// Lanes all reading one element (a scalar load, broadcast); lanes reading consecutive
/// elements (one vector load); every lane inside one run of `lanes` elements starting at a
/// multiple of `lanes`, in a buffer of a multiple of `lanes` elements: the whole run lies in
/// the buffer (it holds the lanes' elements), so one vector load and a permutation.
std::optional<OffsetLoad> plan_offset_load(const arith::LaneOffsets& split, int64_t lanes,
                                           int64_t buffer_size) {
  const std::vector<int64_t>& offsets = split.offsets;
  auto [low, high] = std::minmax_element(offsets.begin(), offsets.end());
  if (*low == *high) return OffsetLoad{true, *low, {}};
  bool consecutive = true;
  for (size_t l = 0; l < offsets.size(); ++l)
    consecutive = consecutive && offsets[l] == offsets[0] + static_cast<int64_t>(l);
  if (consecutive) return OffsetLoad{false, offsets[0], {}};
  if (buffer_size <= 0 || buffer_size % lanes != 0 || split.base.coef_gcd() % lanes != 0)
    return std::nullopt;
  int64_t run = (*low >= 0 ? *low : *low - lanes + 1) / lanes * lanes;
  if (*high - run >= lanes) return std::nullopt;
  OffsetLoad plan{false, run, {}};
  for (int64_t o : offsets) plan.mask.push_back(static_cast<int>(o - run));
  return plan;
}

}  // namespace

llvm::Value* FunctionCodeGen::emit_permuted_load(const LoadNode* op, const BufferInfo& info,
                                                 const Expr& index) {
  std::optional<arith::LaneOffsets> split = arith::lane_offsets(index);
  if (!split) return nullptr;
  std::optional<OffsetLoad> plan =
      plan_offset_load(*split, op->dtype.lanes, op->buffer.const_size());
  if (!plan) return nullptr;
  llvm::Type* element = memory_type(op->dtype.element());
  arith::LinearForm at = split->base;
  at.constant = plan->start;
  llvm::Value* address = element_address(info, element, arith::from_linear(at));
  llvm::LoadInst* load =
      builder_.CreateAlignedLoad(plan->broadcast ? element : memory_type(op->dtype), address,
                                 llvm::Align(op->dtype.element().bytes()));
  annotate(load, info);
  if (plan->broadcast)
    return builder_.CreateVectorSplat(static_cast<unsigned>(op->dtype.lanes), load);
  return plan->mask.empty() ? load : builder_.CreateShuffleVector(load, plan->mask);
}

llvm::Value* FunctionCodeGen::emit_clamped_load(const LoadNode* op, const BufferInfo& info,
                                                const Expr& index) {
  std::optional<arith::UnclampedIndex> unclamped = arith::strip_lane_clamps(index);
  std::optional<arith::LaneOffsets> split =
      unclamped ? arith::lane_offsets(unclamped->index) : std::nullopt;
  if (!split || !plan_offset_load(*split, op->dtype.lanes, op->buffer.const_size())) return nullptr;
  llvm::Value* in_range = emit(unclamped->in_range);
  llvm::Function* function = state_.function;
  auto* plain = llvm::BasicBlock::Create(ctx_, "clamp.none", function);
  auto* clamped = llvm::BasicBlock::Create(ctx_, "clamp.some", function);
  auto* merged = llvm::BasicBlock::Create(ctx_, "clamp.end", function);
  builder_.CreateCondBr(in_range, plain, clamped);
  builder_.SetInsertPoint(plain);
  llvm::Value* plain_value = emit_permuted_load(op, info, unclamped->index);
  llvm::BasicBlock* plain_end = builder_.GetInsertBlock();
  builder_.CreateBr(merged);
  builder_.SetInsertPoint(clamped);
  llvm::Value* clamped_value = emit_gather(op, info, index);
  llvm::BasicBlock* clamped_end = builder_.GetInsertBlock();
  builder_.CreateBr(merged);
  builder_.SetInsertPoint(merged);
  llvm::PHINode* phi = builder_.CreatePHI(plain_value->getType(), 2);
  phi->addIncoming(plain_value, plain_end);
  phi->addIncoming(clamped_value, clamped_end);
  return phi;
}

void FunctionCodeGen::emit_store(const StoreNode* op) {
  const BufferInfo& info = buffer_info(op->buffer);
  const Expr& index = flat_index(op->buffer, op->indices, "store");
  DataType type = op->value.dtype();
  DataType element = type.element();
  llvm::Type* memory = memory_type(element);
  llvm::Align align(element.bytes());
  llvm::Value* value = emit(op->value);
  if (element.is_bool()) value = builder_.CreateZExt(value, memory_type(type));
  const auto* ramp = index.as<RampNode>();
  const int64_t* stride = ramp ? as_const_int(ramp->stride) : nullptr;
  if (type.is_scalar() || (stride && *stride == 1)) {
    const Expr& start = ramp ? ramp->base : index;
    llvm::Value* address = element_address(info, memory, start);
    annotate(builder_.CreateAlignedStore(value, address, align), info);
    return;
  }
  // Any other vector index (including stride 0: the last lane wins) is a scatter.
  llvm::Value* addresses = element_address(info, memory, index);
  annotate(builder_.CreateMaskedScatter(value, addresses, align), info);
}

void FunctionCodeGen::emit_prefetch(const PrefetchNode* op) {
  const BufferInfo& info = buffer_info(op->buffer);
  llvm::Value* address = element_address(info, memory_type(op->buffer->dtype.element()), op->offset);
  // Arguments: address, read (0), temporal locality 2 (L2 and outwards: prefetcht1 on
  // x86-64), data cache (1).
  builder_.CreateIntrinsic(llvm::Intrinsic::prefetch, {address->getType()},
                           {address, builder_.getInt32(0), builder_.getInt32(2), builder_.getInt32(1)});
}

void FunctionCodeGen::emit_allocate(const AllocateNode* op) {
  const Buffer& buffer = op->buffer;
  llvm::Type* element = memory_type(buffer->dtype.element());
  llvm::Value* data = nullptr;
  // Small global buffers of constant size (per-row intermediates attached inside a loop,
  // say) live on the stack: no allocator call per iteration, and LLVM may keep them in
  // registers.
  int64_t elements = buffer.const_size();
  bool on_stack = buffer->scope == MemoryScope::Local ||
                  (buffer->scope == MemoryScope::Global && elements >= 0 &&
                   elements <= kMaxStackBufferBytes / buffer->dtype.element().bytes());
  switch (on_stack ? MemoryScope::Local : buffer->scope) {
    case MemoryScope::Local: {
      int64_t size = buffer.const_size();
      if (size < 0)
        fail("local buffer '" + buffer->name +
             "' has a non-constant shape; stack allocations need constant sizes");
      // In the entry block, so that SROA / mem2reg can keep small tiles in registers.
      data = entry_alloca(llvm::ArrayType::get(element, size), 64, buffer->name);
      break;
    }
    case MemoryScope::Global: {
      int64_t element_bytes = buffer->dtype.element().bytes();
      int64_t size = buffer.const_size();
      if (size > std::numeric_limits<int64_t>::max() / element_bytes)
        fail("buffer '" + buffer->name + "' of " + std::to_string(size) +
             " elements is too large to address");
      llvm::Value* bytes = builder_.getInt64(element_bytes);
      for (const Expr& dim : buffer->shape)
        bytes = builder_.CreateMul(bytes, to_i64(emit(dim), dim.dtype()));
      data = builder_.CreateCall(runtime_function("tessel_workspace_alloc"),
                                 {bytes, builder_.getInt64(64)}, buffer->name);
      return_if(builder_.CreateIsNull(data), builder_.getInt32(TESSEL_ERR_OUT_OF_MEMORY));
      state_.heap.push_back(data);
      break;
    }
    case MemoryScope::Shared:
      fail("buffer '" + buffer->name + "' is in shared memory, which exists only on GPUs");
  }
  const auto& alias = alias_.at(buffer->data.get());
  state_.buffers[buffer->data.get()] = BufferInfo{data, alias.first, alias.second};
  emit(op->body);
  state_.buffers.erase(buffer->data.get());
  if (!on_stack) {
    builder_.CreateCall(runtime_function("tessel_workspace_free"), {data});
    state_.heap.pop_back();
  }
}

}  // namespace tessel::codegen
