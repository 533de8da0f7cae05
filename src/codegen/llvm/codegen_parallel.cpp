// FunctionCodeGen: parallel loops, outlined into closures launched by tessel_parallel_for.
//
// For `parallel (i, min, extent) body`, the values the body uses from outside (buffer
// addresses, enclosing loop variables, let values) and `min` are stored into an
// environment struct on the caller's stack; the closure
//   i32 <func>.parallel.<n>(i64 begin, i64 end, ptr env)
// (the dots keep closure names apart from every PrimFunc name, which are C identifiers)
// reloads them and runs the body for i = min + begin .. min + end - 1. The launch's status
// (the first non-zero status of a chunk) is returned by the caller after freeing its
// workspaces.
#include <unordered_set>

#include "codegen/llvm/function_codegen.h"
#include "ir/functor.h"
#include "runtime/tessel_runtime.h"
#include "support/error.h"

namespace tessel::codegen {

using namespace ir;

namespace {

/// The variables (and buffer data variables) a statement uses but does not define, in
/// order of first use.
class CaptureCollector : public IRVisitor {
 public:
  std::vector<Var> captures(const Stmt& body, const Var& loop_var) {
    defined_.insert(loop_var.get());
    visit(body);
    std::vector<Var> out;
    for (const Var& v : used_)
      if (!defined_.count(v.get())) out.push_back(v);
    return out;
  }

  void visit_def(const Var& v) override { defined_.insert(v.get()); }
  void visit_Var(const VarNode* op) override { use(Var(op)); }
  void visit_buffer(const Buffer& b) override { use(b->data); }
  void visit_Allocate(const AllocateNode* op) override {
    defined_.insert(op->buffer->data.get());
    visit_children(op);
  }

 private:
  void use(const Var& v) {
    if (seen_.insert(v.get()).second) used_.push_back(v);
  }
  std::unordered_set<const VarNode*> defined_, seen_;
  std::vector<Var> used_;
};

}  // namespace

void FunctionCodeGen::emit_parallel_for(const ForNode* op) {
  std::vector<Var> captures = CaptureCollector().captures(op->body, op->var);

  // The environment: min first, then the captured values.
  std::vector<llvm::Value*> values{emit(op->min)};
  for (const Var& v : captures) {
    if (auto it = state_.vars.find(v.get()); it != state_.vars.end()) {
      values.push_back(it->second);
    } else if (auto b = state_.buffers.find(v.get()); b != state_.buffers.end()) {
      values.push_back(b->second.ptr);
    } else {
      fail("parallel loop '" + op->var.name() + "' uses '" + v.name() +
           "' outside the scope that defines it");
    }
  }
  llvm::Value* extent = to_i64(emit(op->extent), op->extent.dtype());
  std::vector<llvm::Type*> types;
  for (llvm::Value* v : values) types.push_back(v->getType());
  llvm::StructType* env_type = llvm::StructType::get(ctx_, types);
  llvm::AllocaInst* env = entry_alloca(env_type, 8, op->var.name() + ".env");
  for (size_t k = 0; k < values.size(); ++k)
    builder_.CreateStore(values[k], builder_.CreateStructGEP(env_type, env, k));

  llvm::Type* i64 = builder_.getInt64Ty();
  auto* closure_type =
      llvm::FunctionType::get(builder_.getInt32Ty(), {i64, i64, builder_.getPtrTy()}, false);
  llvm::Function* closure =
      llvm::Function::Create(closure_type, llvm::Function::InternalLinkage,
                             func_.name + ".parallel." + std::to_string(num_closures_++), module_);
  closure->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Argument* begin = closure->getArg(0);
  llvm::Argument* end = closure->getArg(1);
  llvm::Argument* env_arg = closure->getArg(2);
  begin->setName("begin");
  end->setName("end");
  env_arg->setName("env");
  env_arg->addAttr(llvm::Attribute::NoAlias);
  env_arg->addAttr(llvm::Attribute::NoCapture);
  env_arg->addAttr(llvm::Attribute::ReadOnly);
  {
    llvm::IRBuilderBase::InsertPointGuard guard(builder_);
    FunctionState parent = std::move(state_);
    state_ = FunctionState{};
    state_.function = closure;
    state_.in_closure = true;
    builder_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", closure));
    auto field = [&](size_t k) {
      return builder_.CreateLoad(types[k], builder_.CreateStructGEP(env_type, env_arg, k));
    };
    llvm::Value* min = field(0);
    for (size_t k = 0; k < captures.size(); ++k) {
      llvm::Value* v = field(k + 1);
      const VarNode* var = captures[k].get();
      if (auto b = parent.buffers.find(var); b != parent.buffers.end()) {
        // Every buffer is 64-byte aligned: parameters by contract, allocations by us.
        builder_.CreateAlignmentAssumption(module_.getDataLayout(), v, 64);
        state_.buffers[var] = BufferInfo{v, b->second.scope, b->second.noalias};
      } else {
        state_.vars[var] = v;
      }
      v->setName(captures[k].name());
    }
    bool is_signed = !op->var.dtype().is_uint();
    emit_loop(begin, end, true, op->var.name(), [&](llvm::Value* i) {
      llvm::Value* offset = builder_.CreateIntCast(i, min->getType(), is_signed);
      llvm::Value* previous = bind(op->var, builder_.CreateAdd(min, offset));
      emit(op->body);
      unbind(op->var, previous);
    });
    builder_.CreateRet(builder_.getInt32(TESSEL_OK));
    state_ = std::move(parent);
  }
  llvm::Value* status =
      builder_.CreateCall(runtime_function("tessel_parallel_for"), {extent, closure, env});
  return_if(builder_.CreateICmpNE(status, builder_.getInt32(TESSEL_OK)), status);
}

}  // namespace tessel::codegen
