// FunctionCodeGen: math intrinsics.
//
// float32 exp, log, tanh, sigmoid and erf use our vectorisable approximations
// (math_approx.h); float16 and bfloat16 intrinsics are computed in float32. float64 uses
// LLVM's intrinsics (exp, log: libm per lane for vectors) and libm's tanh / erf per lane.
// sqrt, abs, floor, ceil, round, trunc map to LLVM intrinsics (single instructions on
// x86 and AArch64); pow is llvm.pow (libm per lane).
#include <llvm/IR/Intrinsics.h>

#include "codegen/llvm/function_codegen.h"
#include "codegen/llvm/math_approx.h"
#include "support/error.h"

namespace tessel::codegen {

using namespace ir;

namespace {

/// Calls the libm function `name` (double -> double) on each lane of `x`.
llvm::Value* call_libm_per_lane(llvm::IRBuilderBase& b, llvm::Module& module, const char* name,
                                llvm::Value* x) {
  llvm::Type* f64 = b.getDoubleTy();
  llvm::FunctionCallee callee =
      module.getOrInsertFunction(name, llvm::FunctionType::get(f64, {f64}, false));
  auto* f = llvm::cast<llvm::Function>(callee.getCallee());
  f->addFnAttr(llvm::Attribute::NoUnwind);
  f->addFnAttr(llvm::Attribute::WillReturn);
  f->setDoesNotAccessMemory();
  auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
  if (!vector) return b.CreateCall(callee, {x});
  llvm::Value* out = llvm::PoisonValue::get(vector);
  for (unsigned i = 0; i < vector->getNumElements(); ++i)
    out = b.CreateInsertElement(out, b.CreateCall(callee, {b.CreateExtractElement(x, i)}), i);
  return out;
}

}  // namespace

llvm::Value* FunctionCodeGen::emit_call(const CallNode* op) {
  std::vector<llvm::Value*> args;
  for (const Expr& a : op->args) args.push_back(emit(a));
  DataType t = op->dtype;
  if (!t.is_float()) {  // abs is the one integer intrinsic
    TESSEL_ICHECK(op->op == Intrinsic::abs, "integer ", intrinsic_name(op->op));
    if (!t.is_int()) return args[0];  // unsigned and bool
    return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, args[0], builder_.getFalse());
  }
  if (t.bits != 16) return emit_math(op->op, args, t);
  // 16-bit floats are computed in float32 (no libcalls for half / bfloat arithmetic).
  DataType wide = DataType::Float(32, t.lanes);
  for (llvm::Value*& a : args) a = builder_.CreateFPExt(a, llvm_type(wide));
  return narrow_float(emit_math(op->op, args, wide), t);
}

llvm::Value* FunctionCodeGen::emit_math(Intrinsic op, const std::vector<llvm::Value*>& args,
                                        DataType t) {
  llvm::Value* x = args[0];
  auto unary = [&](llvm::Intrinsic::ID id) { return builder_.CreateUnaryIntrinsic(id, x); };
  switch (op) {
    case Intrinsic::abs:
      return unary(llvm::Intrinsic::fabs);
    case Intrinsic::sqrt:
      return unary(llvm::Intrinsic::sqrt);
    case Intrinsic::rsqrt:
      return builder_.CreateFDiv(llvm::ConstantFP::get(x->getType(), 1.0),
                                 unary(llvm::Intrinsic::sqrt));
    case Intrinsic::floor:
      return unary(llvm::Intrinsic::floor);
    case Intrinsic::ceil:
      return unary(llvm::Intrinsic::ceil);
    case Intrinsic::trunc:
      return unary(llvm::Intrinsic::trunc);
    case Intrinsic::round:
      return unary(llvm::Intrinsic::round);
    case Intrinsic::pow:
      return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, args[1]);
    case Intrinsic::exp:
      return t.bits == 64 ? unary(llvm::Intrinsic::exp) : approx_exp_f32(builder_, x);
    case Intrinsic::log:
      return t.bits == 64 ? unary(llvm::Intrinsic::log) : approx_log_f32(builder_, x);
    case Intrinsic::tanh:
      return t.bits == 64 ? call_libm_per_lane(builder_, module_, "tanh", x)
                          : approx_tanh_f32(builder_, x);
    case Intrinsic::erf:
      return t.bits == 64 ? call_libm_per_lane(builder_, module_, "erf", x)
                          : approx_erf_f32(builder_, x);
    case Intrinsic::sigmoid:
      return emit_sigmoid(builder_, x, [&](llvm::Value* v) {
        return t.bits == 64 ? builder_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, v)
                            : approx_exp_f32(builder_, v);
      });
  }
  TESSEL_INTERNAL_ERROR("unhandled intrinsic ", intrinsic_name(op));
}

}  // namespace tessel::codegen
