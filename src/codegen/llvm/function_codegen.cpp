// FunctionCodeGen: function setup, types, statements and loops.
#include "codegen/llvm/function_codegen.h"

#include <llvm/IR/MDBuilder.h>

#include "runtime/tessel_runtime.h"
#include "support/error.h"

namespace tessel::codegen {

using namespace ir;

namespace {

llvm::FastMathFlags default_fast_math() {
  // The IR allows contraction (a*b+c -> fma) and reassociation (vectorised reductions);
  // no finite-math or no-NaN assumptions.
  llvm::FastMathFlags flags;
  flags.setAllowContract();
  flags.setAllowReassoc();
  return flags;
}

}  // namespace

FunctionCodeGen::FunctionCodeGen(llvm::Module& module, const PrimFunc& func)
    : module_(module), ctx_(module.getContext()), func_(func), builder_(module.getContext()) {
  builder_.setFastMathFlags(default_fast_math());
}

void FunctionCodeGen::fail(const std::string& message) const {
  TESSEL_USER_ERROR("codegen of '", func_.name, "': ", message);
}

llvm::Type* FunctionCodeGen::llvm_type(DataType t) const {
  llvm::Type* element = nullptr;
  switch (t.code) {
    case TypeCode::Int:
    case TypeCode::UInt:
      element = llvm::Type::getIntNTy(ctx_, t.bits);
      break;
    case TypeCode::Float:
      if (t.bits == 16)
        element = llvm::Type::getHalfTy(ctx_);
      else if (t.bits == 32)
        element = llvm::Type::getFloatTy(ctx_);
      else if (t.bits == 64)
        element = llvm::Type::getDoubleTy(ctx_);
      break;
    case TypeCode::BFloat:
      if (t.bits == 16) element = llvm::Type::getBFloatTy(ctx_);
      break;
    case TypeCode::Handle:
      element = llvm::PointerType::getUnqual(ctx_);
      break;
    case TypeCode::String:  // strings live in host steps only
      break;
  }
  if (!element) fail("type " + t.to_string() + " has no machine representation");
  return t.lanes == 1 ? element : llvm::FixedVectorType::get(element, t.lanes);
}

llvm::Type* FunctionCodeGen::memory_type(DataType t) const {
  return llvm_type(t.is_bool() ? DataType::Int(8, t.lanes) : t);
}

llvm::AllocaInst* FunctionCodeGen::entry_alloca(llvm::Type* type, uint64_t align,
                                                const std::string& name) {
  llvm::BasicBlock& entry = state_.function->getEntryBlock();
  llvm::IRBuilder<> at_entry(&entry, entry.begin());
  llvm::AllocaInst* slot = at_entry.CreateAlloca(type, nullptr, name);
  slot->setAlignment(llvm::Align(align));
  return slot;
}

llvm::Value* FunctionCodeGen::to_i64(llvm::Value* v, DataType from) {
  llvm::Type* to = llvm_type(DataType::Int(64, from.lanes));
  return builder_.CreateIntCast(v, to, from.is_int());
}

llvm::Value* FunctionCodeGen::bind(const Var& var, llvm::Value* value) {
  auto it = state_.vars.find(var.get());
  llvm::Value* previous = it == state_.vars.end() ? nullptr : it->second;
  state_.vars[var.get()] = value;
  if (!value->hasName()) value->setName(var.name());
  return previous;
}

void FunctionCodeGen::unbind(const Var& var, llvm::Value* previous) {
  if (previous)
    state_.vars[var.get()] = previous;
  else
    state_.vars.erase(var.get());
}

llvm::FunctionCallee FunctionCodeGen::runtime_function(const char* name) {
  llvm::Type* i32 = builder_.getInt32Ty();
  llvm::Type* i64 = builder_.getInt64Ty();
  llvm::Type* ptr = builder_.getPtrTy();
  std::string n = name;
  llvm::FunctionType* type = nullptr;
  if (n == "tessel_parallel_for")
    type = llvm::FunctionType::get(i32, {i64, ptr, ptr}, false);
  else if (n == "tessel_workspace_alloc")
    type = llvm::FunctionType::get(ptr, {i64, i64}, false);
  else if (n == "tessel_workspace_free")
    type = llvm::FunctionType::get(i32, {ptr}, false);
  TESSEL_ICHECK(type, "unknown runtime function ", n);
  llvm::FunctionCallee callee = module_.getOrInsertFunction(name, type);
  auto* f = llvm::cast<llvm::Function>(callee.getCallee());
  f->addFnAttr(llvm::Attribute::NoUnwind);
  if (n == "tessel_workspace_alloc") f->addRetAttr(llvm::Attribute::NoAlias);
  return callee;
}

void FunctionCodeGen::return_if(llvm::Value* failed, llvm::Value* status) {
  llvm::BasicBlock* error = llvm::BasicBlock::Create(ctx_, "error", state_.function);
  llvm::BasicBlock* ok = llvm::BasicBlock::Create(ctx_, "ok", state_.function);
  builder_.CreateCondBr(failed, error, ok, llvm::MDBuilder(ctx_).createUnlikelyBranchWeights());
  builder_.SetInsertPoint(error);
  for (auto it = state_.heap.rbegin(); it != state_.heap.rend(); ++it)
    builder_.CreateCall(runtime_function("tessel_workspace_free"), {*it});
  builder_.CreateRet(status);
  builder_.SetInsertPoint(ok);
}

void FunctionCodeGen::emit_loop(llvm::Value* begin, llvm::Value* end, bool is_signed,
                                const std::string& name,
                                const std::function<void(llvm::Value*)>& body) {
  llvm::BasicBlock* preheader = builder_.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, name + ".header", state_.function);
  llvm::BasicBlock* body_block = llvm::BasicBlock::Create(ctx_, name + ".body", state_.function);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, name + ".exit", state_.function);
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  llvm::PHINode* i = builder_.CreatePHI(begin->getType(), 2, name);
  i->addIncoming(begin, preheader);
  llvm::Value* more = is_signed ? builder_.CreateICmpSLT(i, end) : builder_.CreateICmpULT(i, end);
  builder_.CreateCondBr(more, body_block, exit);
  builder_.SetInsertPoint(body_block);
  body(i);
  // i < end, so i + 1 cannot wrap.
  llvm::Value* next = builder_.CreateAdd(i, llvm::ConstantInt::get(i->getType(), 1), name + ".next",
                                         /*HasNUW=*/!is_signed, /*HasNSW=*/is_signed);
  i->addIncoming(next, builder_.GetInsertBlock());
  builder_.CreateBr(header);
  builder_.SetInsertPoint(exit);
}

void FunctionCodeGen::emit() {
  make_alias_scopes();
  llvm::Type* ptr = builder_.getPtrTy();
  auto* type = llvm::FunctionType::get(builder_.getInt32Ty(), {ptr}, false);
  llvm::Function* function =
      llvm::Function::Create(type, llvm::Function::ExternalLinkage, func_.name, module_);
  function->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Argument* args = function->getArg(0);
  args->setName("args");
  args->addAttr(llvm::Attribute::NoAlias);
  args->addAttr(llvm::Attribute::NoCapture);
  args->addAttr(llvm::Attribute::ReadOnly);
  state_.function = function;
  builder_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", function));
  const llvm::DataLayout& layout = module_.getDataLayout();
  for (size_t i = 0; i < func_.params.size(); ++i) {
    const Buffer& param = func_.params[i];
    llvm::Value* slot = builder_.CreateConstInBoundsGEP1_64(ptr, args, i);
    llvm::Value* data = builder_.CreateLoad(ptr, slot, param->name);
    builder_.CreateAlignmentAssumption(layout, data, 64);
    const auto& alias = alias_.at(param->data.get());
    state_.buffers[param->data.get()] = BufferInfo{data, alias.first, alias.second};
  }
  emit(func_.body);
  builder_.CreateRet(builder_.getInt32(TESSEL_OK));
}

// ---- statements -------------------------------------------------------------------------

void FunctionCodeGen::emit(const Stmt& s) {
  switch (s.kind()) {
    case StmtKind::For:
      return emit_for(s.as<ForNode>());
    case StmtKind::Store:
      return emit_store(s.as<StoreNode>());
    case StmtKind::Allocate:
      return emit_allocate(s.as<AllocateNode>());
    case StmtKind::IfThenElse:
      return emit_if(s.as<IfThenElseNode>());
    case StmtKind::LetStmt: {
      const auto* op = s.as<LetStmtNode>();
      llvm::Value* previous = bind(op->var, emit(op->value));
      emit(op->body);
      return unbind(op->var, previous);
    }
    case StmtKind::Seq:
      for (const Stmt& item : s.as<SeqNode>()->seq) emit(item);
      return;
    case StmtKind::Evaluate:
      emit(s.as<EvaluateNode>()->value);  // pure: kept only for its (absent) effects
      return;
    case StmtKind::Prefetch:
      return emit_prefetch(s.as<PrefetchNode>());
  }
  TESSEL_INTERNAL_ERROR("unknown statement kind ", static_cast<int>(s.kind()));
}

void FunctionCodeGen::emit_for(const ForNode* op) {
  switch (op->for_kind) {
    case ForKind::Serial:
    case ForKind::Vectorized:  // not vectorized by the passes: a plain loop (LLVM may still)
    case ForKind::Unrolled:
      return emit_serial_for(op);
    case ForKind::Parallel:
      if (state_.in_closure) return emit_serial_for(op);  // nested: one level of threads
      return emit_parallel_for(op);
    case ForKind::ThreadBinding:
      fail("loop '" + op->var.name() + "' is bound to GPU thread axis '" + op->thread_tag +
           "'; the CPU target cannot run thread-bound loops");
  }
  TESSEL_INTERNAL_ERROR("unknown loop kind ", static_cast<int>(op->for_kind));
}

void FunctionCodeGen::emit_serial_for(const ForNode* op) {
  llvm::Value* min = emit(op->min);
  llvm::Value* end = builder_.CreateAdd(min, emit(op->extent), op->var.name() + ".end");
  emit_loop(min, end, !op->var.dtype().is_uint(), op->var.name(), [&](llvm::Value* i) {
    llvm::Value* previous = bind(op->var, i);
    emit(op->body);
    unbind(op->var, previous);
  });
}

void FunctionCodeGen::emit_if(const IfThenElseNode* op) {
  llvm::Value* condition = emit(op->condition);
  llvm::BasicBlock* then_block = llvm::BasicBlock::Create(ctx_, "then", state_.function);
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(ctx_, "endif", state_.function);
  llvm::BasicBlock* else_block =
      op->else_case.defined() ? llvm::BasicBlock::Create(ctx_, "else", state_.function) : merge;
  builder_.CreateCondBr(condition, then_block, else_block);
  builder_.SetInsertPoint(then_block);
  emit(op->then_case);
  builder_.CreateBr(merge);
  if (op->else_case.defined()) {
    builder_.SetInsertPoint(else_block);
    emit(op->else_case);
    builder_.CreateBr(merge);
  }
  builder_.SetInsertPoint(merge);
}

}  // namespace tessel::codegen
