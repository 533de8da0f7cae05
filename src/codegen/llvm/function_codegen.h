// Internal: FunctionCodeGen translates one PrimFunc of loop IR into LLVM IR.
//
// The generated function is `i32 name(ptr args)`: args[i] is the data pointer of
// params[i]; it returns 0 or the first non-zero status (a failed workspace allocation, a
// failed parallel launch). Buffers carry scoped no-alias metadata (every buffer is
// distinct memory) and 64-byte alignment assumptions. Parallel loops are outlined into
// closures `i32 <name>.parallel.<n>(i64 begin, i64 end, ptr env)` launched with
// tessel_parallel_for;
// parallel loops inside a closure run serially.
//
// The implementation is split by concern: function_codegen.cpp (functions, statements,
// loops), codegen_expr.cpp (expressions), codegen_memory.cpp (loads, stores,
// allocations), codegen_parallel.cpp (outlining), codegen_intrinsics.cpp (math calls).
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/stmt.h"

namespace tessel::codegen {

/// Translates one PrimFunc (and its parallel closures) into functions of an LLVM module.
class FunctionCodeGen {
 public:
  /// Prepares to emit `func` into `module`; `emit()` does the work.
  FunctionCodeGen(llvm::Module& module, const ir::PrimFunc& func);
  /// Emits the function (and its parallel closures). Throws CompileError for IR the CPU
  /// backend cannot run (GPU thread bindings, unflattened buffers, unbound variables...).
  void emit();

 private:
  /// What the code knows of a buffer: its address in the current function and the
  /// alias metadata of its accesses.
  struct BufferInfo {
    llvm::Value* ptr = nullptr;
    llvm::MDNode* scope = nullptr;
    llvm::MDNode* noalias = nullptr;
  };
  /// Per-function state; outlining a closure swaps it out and back.
  struct FunctionState {
    llvm::Function* function = nullptr;
    std::unordered_map<const ir::VarNode*, llvm::Value*> vars;
    std::unordered_map<const ir::VarNode*, BufferInfo> buffers;  // keyed by data variable
    std::vector<llvm::Value*> heap;  // live Global allocations, innermost last
    bool in_closure = false;
  };

  // ---- types and helpers (function_codegen.cpp) ----
  llvm::Type* llvm_type(ir::DataType t) const;
  /// The in-memory type of an element: like llvm_type, but bool is a byte.
  llvm::Type* memory_type(ir::DataType t) const;
  [[noreturn]] void fail(const std::string& message) const;
  llvm::AllocaInst* entry_alloca(llvm::Type* type, uint64_t align, const std::string& name);
  /// Converts an integer value of type `from` to i64 (sign- or zero-extending).
  llvm::Value* to_i64(llvm::Value* v, ir::DataType from);
  /// Branches to a block that frees live heap allocations and returns `status` when
  /// `failed` (i1) holds; continues in a fresh block otherwise.
  void return_if(llvm::Value* failed, llvm::Value* status);
  /// Emits `for (i = begin; i < end; ++i) body(i)`.
  void emit_loop(llvm::Value* begin, llvm::Value* end, bool is_signed, const std::string& name,
                 const std::function<void(llvm::Value*)>& body);
  /// Binds var to value; returns the previous binding (nullptr if none) for `unbind`.
  llvm::Value* bind(const ir::Var& var, llvm::Value* value);
  void unbind(const ir::Var& var, llvm::Value* previous);
  llvm::FunctionCallee runtime_function(const char* name);

  // ---- statements (function_codegen.cpp) ----
  void emit(const ir::Stmt& s);
  void emit_for(const ir::ForNode* op);
  void emit_serial_for(const ir::ForNode* op);
  void emit_if(const ir::IfThenElseNode* op);

  // ---- expressions (codegen_expr.cpp) ----
  llvm::Value* emit(const ir::Expr& e);
  llvm::Value* emit_binary(ir::ExprKind kind, const ir::Expr& a, const ir::Expr& b, ir::DataType t);
  llvm::Value* emit_arith(ir::ExprKind kind, llvm::Value* a, llvm::Value* b, ir::DataType t);
  llvm::Value* emit_div_mod(bool is_div, llvm::Value* a, llvm::Value* b, const ir::Expr& divisor,
                            ir::DataType t);
  /// The divisor b of a / b or a % b made safe for LLVM's division instructions, which
  /// are undefined (and trap on x86) for b == 0 and for INT_MIN / -1: 1 replaces b there,
  /// so INT_MIN / -1 wraps to INT_MIN with remainder 0 and x / 0 gives x (the IR leaves
  /// division by zero undefined; this only keeps kernels from crashing). Folds away for
  /// constant divisors.
  llvm::Value* safe_divisor(llvm::Value* a, llvm::Value* b, bool is_signed);
  llvm::Value* emit_compare(ir::ExprKind kind, llvm::Value* a, llvm::Value* b, ir::DataType t);
  llvm::Value* emit_cast(llvm::Value* v, ir::DataType from, ir::DataType to);
  /// Rounds a wider float value to the float type `to` (to nearest even). bfloat16 is
  /// rounded with integer operations: LLVM would call a runtime helper (__truncsfbf2)
  /// that older compiler runtimes lack.
  llvm::Value* narrow_float(llvm::Value* v, ir::DataType to);
  llvm::Value* emit_ramp(const ir::RampNode* op);
  llvm::Value* emit_var(const ir::VarNode* op);

  // ---- memory (codegen_memory.cpp) ----
  const BufferInfo& buffer_info(const ir::Buffer& buffer);
  const ir::Expr& flat_index(const ir::Buffer& buffer, const std::vector<ir::Expr>& indices,
                             const char* what);
  /// The address of element `index` (a scalar, or a vector of addresses for a vector).
  llvm::Value* element_address(const BufferInfo& info, llvm::Type* element, const ir::Expr& index);
  void annotate(llvm::Instruction* access, const BufferInfo& info);
  llvm::Value* emit_load(const ir::LoadNode* op);
  /// A vector load whose lanes read one element, consecutive elements or elements of one
  /// aligned run of the buffer, as a broadcast, a vector load, or a load of the run and a
  /// permutation; nullptr (emitting nothing) when the index is not of that form.
  llvm::Value* emit_permuted_load(const ir::LoadNode* op, const BufferInfo& info,
                                  const ir::Expr& index);
  /// A vector load whose index is such a load's clamped (arith::strip_lane_clamps): it reads
  /// that way where no clamp acts and gathers elsewhere, behind a branch on the clamps'
  /// condition; nullptr (emitting nothing) when the index is not of that form.
  llvm::Value* emit_clamped_load(const ir::LoadNode* op, const BufferInfo& info,
                                 const ir::Expr& index);
  /// A vector load lane by lane.
  llvm::Value* emit_gather(const ir::LoadNode* op, const BufferInfo& info, const ir::Expr& index);
  void emit_store(const ir::StoreNode* op);
  /// llvm.prefetch of the element's cache line for reading, into the L2 cache.
  void emit_prefetch(const ir::PrefetchNode* op);
  void emit_allocate(const ir::AllocateNode* op);
  void make_alias_scopes();

  // ---- parallel loops (codegen_parallel.cpp) ----
  void emit_parallel_for(const ir::ForNode* op);

  // ---- math intrinsics (codegen_intrinsics.cpp) ----
  llvm::Value* emit_call(const ir::CallNode* op);
  /// An intrinsic on integer or bool values of type `t` (abs, fmod, bitwise, shifts).
  llvm::Value* emit_integer_intrinsic(ir::Intrinsic op, const std::vector<llvm::Value*>& args,
                                      ir::DataType t);
  /// A float intrinsic on float32 or float64 values.
  llvm::Value* emit_math(ir::Intrinsic op, const std::vector<llvm::Value*>& args, ir::DataType t);

  llvm::Module& module_;
  llvm::LLVMContext& ctx_;
  const ir::PrimFunc& func_;
  llvm::IRBuilder<> builder_;
  FunctionState state_;
  /// Alias scope and no-alias list of every buffer of the PrimFunc, by data variable.
  std::unordered_map<const ir::VarNode*, std::pair<llvm::MDNode*, llvm::MDNode*>> alias_;
  int num_closures_ = 0;
};

}  // namespace tessel::codegen
