// FunctionCodeGen: intrinsics.
//
// exp, log, tanh, erf and sigmoid of float32 and 16-bit floats never get here: tir's
// expand_math (run by the pipeline, and by build_llvm_module on whatever it is given)
// rewrites them into arithmetic. What remains of them is float64: exp and log use LLVM's
// intrinsics (libm per lane for vectors), sigmoid a stable form around llvm.exp, tanh and
// erf call libm per lane like the trigonometric and hyperbolic functions of either width
// (sinf / sin, ...; libm_symbols.h binds them in the JIT). 16-bit float math is computed
// in float32. sqrt, abs, floor, ceil, round (roundeven), trunc map to LLVM intrinsics
// (single instructions on x86 with SSE4.1 and on AArch64); fma is llvm.fmuladd without
// fast-math flags: one fused instruction where the target has one (x86 with FMA3, AArch64,
// RISC-V with F and D), else a multiply and an add, which LLVM does not reassociate either
// (llvm.fma would call libm's fmaf per lane there); pow is llvm.pow and float fmod is frem
// (libm per lane). reinterpret is a bitcast. Bitwise and shift intrinsics are single
// integer instructions plus a select for the out-of-range shift amounts.
#include <llvm/IR/Intrinsics.h>

#include <string>

#include "codegen/llvm/function_codegen.h"
#include "support/error.h"

namespace tessel::codegen {

using namespace ir;

namespace {

/// Calls the libm function `name` (T -> T or (T, T) -> T for the element type T of the
/// arguments) on each lane of the arguments.
llvm::Value* call_libm_per_lane(llvm::IRBuilderBase& b, llvm::Module& module,
                                const std::string& name, const std::vector<llvm::Value*>& args) {
  llvm::Type* element = args[0]->getType()->getScalarType();
  std::vector<llvm::Type*> params(args.size(), element);
  llvm::FunctionCallee callee =
      module.getOrInsertFunction(name, llvm::FunctionType::get(element, params, false));
  auto* f = llvm::cast<llvm::Function>(callee.getCallee());
  f->addFnAttr(llvm::Attribute::NoUnwind);
  f->addFnAttr(llvm::Attribute::WillReturn);
  f->setDoesNotAccessMemory();
  auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(args[0]->getType());
  if (!vector) return b.CreateCall(callee, args);
  llvm::Value* out = llvm::PoisonValue::get(vector);
  for (unsigned i = 0; i < vector->getNumElements(); ++i) {
    std::vector<llvm::Value*> lane;
    for (llvm::Value* a : args) lane.push_back(b.CreateExtractElement(a, i));
    out = b.CreateInsertElement(out, b.CreateCall(callee, lane), i);
  }
  return out;
}

/// sigmoid(x) = 1 / (1 + exp(-x)), written as s = 1 / (1 + exp(-|x|)) and
/// x >= 0 ? s : exp(-|x|) * s, which keeps full relative accuracy for large |x|.
llvm::Value* emit_sigmoid(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Value* e = b.CreateUnaryIntrinsic(
      llvm::Intrinsic::exp, b.CreateFNeg(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x)));
  llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
  llvm::Value* s = b.CreateFDiv(one, b.CreateFAdd(one, e));
  return b.CreateSelect(b.CreateFCmpOGE(x, llvm::ConstantFP::get(x->getType(), 0.0)), s,
                        b.CreateFMul(e, s));
}

}  // namespace

llvm::Value* FunctionCodeGen::emit_call(const CallNode* op) {
  std::vector<llvm::Value*> args;
  for (const Expr& a : op->args) args.push_back(emit(a));
  DataType t = op->args[0].dtype();
  switch (intrinsic_class(op->op)) {
    case IntrinsicClass::Bitwise:
    case IntrinsicClass::Shift:
      return emit_integer_intrinsic(op->op, args, t);
    case IntrinsicClass::Numeric:
      if (!t.is_float()) return emit_integer_intrinsic(op->op, args, t);
      break;
    case IntrinsicClass::FloatTest: {
      llvm::Value* x = args[0];
      if (t.bits == 16) x = builder_.CreateFPExt(x, llvm_type(DataType::Float(32, t.lanes)));
      if (op->op == Intrinsic::is_nan) return builder_.CreateFCmpUNO(x, x);
      return builder_.CreateFCmpOEQ(builder_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x),
                                    llvm::ConstantFP::getInfinity(x->getType()));
    }
    case IntrinsicClass::Reinterpret:
      return builder_.CreateBitCast(args[0], llvm_type(op->dtype));
    case IntrinsicClass::Float:
      break;
  }
  if (t.bits != 16) return emit_math(op->op, args, t);
  // 16-bit floats are computed in float32 (no libcalls for half / bfloat arithmetic).
  DataType wide = DataType::Float(32, t.lanes);
  for (llvm::Value*& a : args) a = builder_.CreateFPExt(a, llvm_type(wide));
  return narrow_float(emit_math(op->op, args, wide), t);
}

llvm::Value* FunctionCodeGen::emit_integer_intrinsic(Intrinsic op,
                                                     const std::vector<llvm::Value*>& args,
                                                     DataType t) {
  llvm::Value* a = args[0];
  llvm::Value* b = args.size() > 1 ? args[1] : nullptr;
  llvm::Type* type = a->getType();
  auto constant = [&](int64_t v) { return llvm::ConstantInt::get(type, v, /*IsSigned=*/true); };
  switch (op) {
    case Intrinsic::abs:
      if (!t.is_int()) return a;  // unsigned and bool
      return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, a, builder_.getFalse());
    case Intrinsic::fmod:  // truncated remainder; see safe_divisor
      b = safe_divisor(a, b, t.is_int());
      return t.is_int() ? builder_.CreateSRem(a, b) : builder_.CreateURem(a, b);
    case Intrinsic::bitwise_and:
      return builder_.CreateAnd(a, b);
    case Intrinsic::bitwise_or:
      return builder_.CreateOr(a, b);
    case Intrinsic::bitwise_xor:
      return builder_.CreateXor(a, b);
    case Intrinsic::bitwise_not:
      return builder_.CreateNot(a);
    case Intrinsic::shift_left:
    case Intrinsic::shift_right: {
      // Amounts of `bits` or more (negative ones included, compared unsigned) shift every
      // bit out; LLVM's shifts would give poison.
      llvm::Value* width = constant(t.bits);
      if (op == Intrinsic::shift_right && t.is_int())
        return builder_.CreateAShr(
            a, builder_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b, constant(t.bits - 1)));
      llvm::Value* out = builder_.CreateICmpUGE(b, width);
      llvm::Value* safe = builder_.CreateSelect(out, constant(0), b);
      llvm::Value* shifted =
          op == Intrinsic::shift_left ? builder_.CreateShl(a, safe) : builder_.CreateLShr(a, safe);
      return builder_.CreateSelect(out, constant(0), shifted);
    }
    default:
      break;
  }
  TESSEL_INTERNAL_ERROR("intrinsic ", intrinsic_name(op), " on ", t.to_string());
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
      return unary(llvm::Intrinsic::roundeven);
    case Intrinsic::pow:
      return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, args[1]);
    case Intrinsic::fmod:
      return builder_.CreateFRem(x, args[1]);
    case Intrinsic::fma: {
      llvm::IRBuilderBase::FastMathFlagGuard guard(builder_);
      builder_.clearFastMathFlags();
      return builder_.CreateIntrinsic(llvm::Intrinsic::fmuladd, {x->getType()}, args);
    }
    case Intrinsic::exp:
      return unary(llvm::Intrinsic::exp);
    case Intrinsic::log:
      return unary(llvm::Intrinsic::log);
    case Intrinsic::sigmoid:
      return emit_sigmoid(builder_, x);
    default:
      break;
  }
  // The rest are libm functions of the intrinsic's name ("sinf" for float32).
  TESSEL_ICHECK(intrinsic_class(op) == IntrinsicClass::Float && intrinsic_arity(op) == 1,
                "unhandled intrinsic ", intrinsic_name(op));
  return call_libm_per_lane(builder_, module_,
                            std::string(intrinsic_name(op)) + (t.bits == 64 ? "" : "f"), args);
}

}  // namespace tessel::codegen
