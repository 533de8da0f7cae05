// FunctionCodeGen: math intrinsics.
//
// float32 exp, log, tanh, sigmoid and erf use our vectorisable approximations
// (math_approx.h); float16 and bfloat16 are computed in float32. float64 uses LLVM's
// intrinsics (exp, log: libm per lane for vectors) and libm's tanh / erf per lane.
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
  llvm::Value* x = args[0];
  DataType t = op->dtype;
  switch (op->op) {
    case Intrinsic::abs:
      if (t.is_float()) return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
      if (!t.is_int()) return x;  // unsigned and bool
      return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, builder_.getFalse());
    case Intrinsic::sqrt:
      return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
    case Intrinsic::rsqrt:
      return builder_.CreateFDiv(llvm::ConstantFP::get(x->getType(), 1.0),
                                 builder_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x));
    case Intrinsic::floor:
      return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x);
    case Intrinsic::ceil:
      return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x);
    case Intrinsic::trunc:
      return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, x);
    case Intrinsic::round:
      return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::round, x);
    case Intrinsic::pow:
      return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, args[1]);
    case Intrinsic::exp:
    case Intrinsic::log:
    case Intrinsic::tanh:
    case Intrinsic::sigmoid:
    case Intrinsic::erf:
      break;
  }
  if (t.bits == 64) {
    auto exp64 = [&](llvm::Value* v) {
      return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, v);
    };
    switch (op->op) {
      case Intrinsic::exp:
        return exp64(x);
      case Intrinsic::log:
        return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::log, x);
      case Intrinsic::sigmoid:
        return emit_sigmoid(builder_, x, exp64);
      case Intrinsic::tanh:
        return call_libm_per_lane(builder_, module_, "tanh", x);
      case Intrinsic::erf:
        return call_libm_per_lane(builder_, module_, "erf", x);
      default:
        break;
    }
    TESSEL_INTERNAL_ERROR("unhandled float64 intrinsic ", intrinsic_name(op->op));
  }
  // float32, or a 16-bit float computed in float32.
  llvm::Type* f32 = llvm_type(DataType::Float(32, t.lanes));
  llvm::Value* x32 = t.bits == 32 ? x : builder_.CreateFPExt(x, f32);
  llvm::Value* r = nullptr;
  switch (op->op) {
    case Intrinsic::exp:
      r = approx_exp_f32(builder_, x32);
      break;
    case Intrinsic::log:
      r = approx_log_f32(builder_, x32);
      break;
    case Intrinsic::tanh:
      r = approx_tanh_f32(builder_, x32);
      break;
    case Intrinsic::erf:
      r = approx_erf_f32(builder_, x32);
      break;
    case Intrinsic::sigmoid:
      r = emit_sigmoid(builder_, x32, [&](llvm::Value* v) { return approx_exp_f32(builder_, v); });
      break;
    default:
      TESSEL_INTERNAL_ERROR("unhandled intrinsic ", intrinsic_name(op->op));
  }
  return t.bits == 32 ? r : builder_.CreateFPTrunc(r, llvm_type(t));
}

}  // namespace tessel::codegen
