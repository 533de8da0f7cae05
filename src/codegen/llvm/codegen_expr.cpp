// FunctionCodeGen: expressions (immediates, arithmetic with floor division, comparisons,
// casts, vectors).
#include <llvm/IR/Intrinsics.h>

#include "codegen/llvm/function_codegen.h"
#include "support/error.h"

namespace tessel::codegen {

using namespace ir;

llvm::Value* FunctionCodeGen::emit(const Expr& e) {
  switch (e.kind()) {
    case ExprKind::IntImm: {
      const auto* op = e.as<IntImmNode>();
      return llvm::ConstantInt::get(llvm_type(op->dtype), op->value, /*IsSigned=*/true);
    }
    case ExprKind::FloatImm: {
      const auto* op = e.as<FloatImmNode>();
      return llvm::ConstantFP::get(llvm_type(op->dtype), op->value);
    }
    case ExprKind::Var:
      return emit_var(e.as<VarNode>());
#define TESSEL_EMIT_BINARY(name)                                 \
  case ExprKind::name: {                                         \
    const auto* op = static_cast<const name##Node*>(e.get());    \
    return emit_binary(ExprKind::name, op->a, op->b, op->dtype); \
  }
      TESSEL_BINARY_EXPR_KINDS(TESSEL_EMIT_BINARY)
#undef TESSEL_EMIT_BINARY
    case ExprKind::Not:
      return builder_.CreateNot(emit(e.as<NotNode>()->a));
    case ExprKind::Select: {
      const auto* op = e.as<SelectNode>();
      llvm::Value* condition = emit(op->condition);
      return builder_.CreateSelect(condition, emit(op->true_value), emit(op->false_value));
    }
    case ExprKind::Cast: {
      const auto* op = e.as<CastNode>();
      return emit_cast(emit(op->value), op->value.dtype(), op->dtype);
    }
    case ExprKind::Call:
      return emit_call(e.as<CallNode>());
    case ExprKind::Load:
      return emit_load(e.as<LoadNode>());
    case ExprKind::Ramp:
      return emit_ramp(e.as<RampNode>());
    case ExprKind::Broadcast: {
      const auto* op = e.as<BroadcastNode>();
      return builder_.CreateVectorSplat(op->lanes, emit(op->value));
    }
    case ExprKind::Let: {
      const auto* op = e.as<LetNode>();
      llvm::Value* previous = bind(op->var, emit(op->value));
      llvm::Value* result = emit(op->body);
      unbind(op->var, previous);
      return result;
    }
    case ExprKind::Reduce:
      fail("a Reduce expression reached code generation; lowering must turn it into loops");
  }
  TESSEL_INTERNAL_ERROR("unknown expression kind ", kind_name(e.kind()));
}

llvm::Value* FunctionCodeGen::emit_var(const VarNode* op) {
  if (auto it = state_.vars.find(op); it != state_.vars.end()) return it->second;
  if (auto it = state_.buffers.find(op); it != state_.buffers.end()) return it->second.ptr;
  fail("variable '" + op->name + "' is used outside the scope that defines it");
}

llvm::Value* FunctionCodeGen::emit_binary(ExprKind kind, const Expr& a, const Expr& b, DataType t) {
  llvm::Value* x = emit(a);
  llvm::Value* y = emit(b);
  // 16-bit floats are compared and computed in float32 (exactly widened) and results
  // rounded back once: exact for min / max and correctly rounded for + - * / (float32 has
  // more than twice the bits of float16 or bfloat16). LLVM would promote half the same
  // way, but scalarises some vector forms and lacks some bfloat16 lowerings.
  DataType operand = a.dtype();
  bool narrow = operand.is_float() && operand.bits == 16;
  if (narrow) {
    operand = DataType::Float(32, operand.lanes);
    x = builder_.CreateFPExt(x, llvm_type(operand));
    y = builder_.CreateFPExt(y, llvm_type(operand));
  }
  switch (kind) {
    case ExprKind::And:
      return builder_.CreateAnd(x, y);
    case ExprKind::Or:
      return builder_.CreateOr(x, y);
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE:
      return emit_compare(kind, x, y, operand);
    default:
      break;
  }
  bool div_mod = kind == ExprKind::Div || kind == ExprKind::Mod;
  llvm::Value* r = div_mod ? emit_div_mod(kind == ExprKind::Div, x, y, b, operand)
                           : emit_arith(kind, x, y, operand);
  return narrow ? narrow_float(r, t) : r;
}

llvm::Value* FunctionCodeGen::emit_arith(ExprKind kind, llvm::Value* a, llvm::Value* b,
                                         DataType t) {
  if (t.is_float()) {
    switch (kind) {
      case ExprKind::Add:
        return builder_.CreateFAdd(a, b);
      case ExprKind::Sub:
        return builder_.CreateFSub(a, b);
      case ExprKind::Mul:
        return builder_.CreateFMul(a, b);
      case ExprKind::Min:
      case ExprKind::Max: {
        // NaN-propagating (llvm.minimum / maximum); which zero min(-0, +0) gives is left
        // open (nsz), so on x86 this is minps / maxps plus a blend for a NaN first operand,
        // no dearer than minnum / maxnum.
        llvm::IRBuilderBase::FastMathFlagGuard guard(builder_);
        llvm::FastMathFlags flags = builder_.getFastMathFlags();
        flags.setNoSignedZeros();
        builder_.setFastMathFlags(flags);
        return builder_.CreateBinaryIntrinsic(
            kind == ExprKind::Min ? llvm::Intrinsic::minimum : llvm::Intrinsic::maximum, a, b);
      }
      default:
        break;
    }
  } else {
    bool is_signed = t.is_int();
    switch (kind) {
      case ExprKind::Add:
        return builder_.CreateAdd(a, b);
      case ExprKind::Sub:
        return builder_.CreateSub(a, b);
      case ExprKind::Mul:
        return builder_.CreateMul(a, b);
      case ExprKind::Min:
        return builder_.CreateBinaryIntrinsic(
            is_signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, a, b);
      case ExprKind::Max:
        return builder_.CreateBinaryIntrinsic(
            is_signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, a, b);
      default:
        break;
    }
  }
  TESSEL_INTERNAL_ERROR("emit_arith: unexpected ", kind_name(kind), " on ", t.to_string());
}

llvm::Value* FunctionCodeGen::emit_div_mod(bool is_div, llvm::Value* a, llvm::Value* b,
                                           const Expr& divisor, DataType t) {
  if (t.is_float()) {
    if (is_div) return builder_.CreateFDiv(a, b);
    // Floor modulo: the remainder takes the sign of the divisor.
    llvm::Value* r = builder_.CreateFRem(a, b);
    llvm::Value* zero = llvm::ConstantFP::get(r->getType(), 0.0);
    llvm::Value* signs_differ =
        builder_.CreateXor(builder_.CreateFCmpOLT(r, zero), builder_.CreateFCmpOLT(b, zero));
    llvm::Value* adjust = builder_.CreateAnd(builder_.CreateFCmpONE(r, zero), signs_differ);
    return builder_.CreateSelect(adjust, builder_.CreateFAdd(r, b), r);
  }
  bool is_signed = t.is_int();
  const int64_t* d = as_const_int(divisor);
  if (d && *d > 0 && (*d & (*d - 1)) == 0) {
    // Positive power of two: floor division is an arithmetic shift, floor modulo a mask
    // (two's complement), for either sign of the dividend.
    int shift = 0;
    while ((int64_t{1} << shift) != *d) ++shift;
    llvm::Type* type = a->getType();
    if (!is_div) return builder_.CreateAnd(a, llvm::ConstantInt::get(type, *d - 1));
    llvm::Value* amount = llvm::ConstantInt::get(type, shift);
    return is_signed ? builder_.CreateAShr(a, amount) : builder_.CreateLShr(a, amount);
  }
  b = safe_divisor(a, b, is_signed);
  if (!is_signed) return is_div ? builder_.CreateUDiv(a, b) : builder_.CreateURem(a, b);
  // Truncating quotient and remainder, corrected when the remainder is non-zero and its
  // sign differs from the divisor's.
  llvm::Value* q = builder_.CreateSDiv(a, b);
  llvm::Value* r = builder_.CreateSRem(a, b);
  llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
  llvm::Value* adjust = builder_.CreateAnd(builder_.CreateICmpNE(r, zero),
                                           builder_.CreateICmpSLT(builder_.CreateXor(r, b), zero));
  if (is_div) return builder_.CreateSub(q, builder_.CreateZExt(adjust, a->getType()));
  return builder_.CreateAdd(r, builder_.CreateSelect(adjust, b, zero));
}

llvm::Value* FunctionCodeGen::safe_divisor(llvm::Value* a, llvm::Value* b, bool is_signed) {
  llvm::Type* type = b->getType();
  llvm::Value* replace = builder_.CreateICmpEQ(b, llvm::Constant::getNullValue(type));
  if (is_signed) {
    unsigned bits = type->getScalarSizeInBits();
    llvm::Value* min = llvm::ConstantInt::get(type, llvm::APInt::getSignedMinValue(bits));
    llvm::Value* overflow =
        builder_.CreateAnd(builder_.CreateICmpEQ(b, llvm::Constant::getAllOnesValue(type)),
                           builder_.CreateICmpEQ(a, min));
    replace = builder_.CreateOr(replace, overflow);
  }
  return builder_.CreateSelect(replace, llvm::ConstantInt::get(type, 1), b);
}

llvm::Value* FunctionCodeGen::emit_compare(ExprKind kind, llvm::Value* a, llvm::Value* b,
                                           DataType t) {
  using P = llvm::CmpInst::Predicate;
  P p;
  bool is_signed = t.is_int();
  if (t.is_float()) {
    // Ordered comparisons, except !=, which is true when either side is NaN (as in C).
    switch (kind) {
      case ExprKind::EQ:
        p = P::FCMP_OEQ;
        break;
      case ExprKind::NE:
        p = P::FCMP_UNE;
        break;
      case ExprKind::LT:
        p = P::FCMP_OLT;
        break;
      case ExprKind::LE:
        p = P::FCMP_OLE;
        break;
      case ExprKind::GT:
        p = P::FCMP_OGT;
        break;
      case ExprKind::GE:
        p = P::FCMP_OGE;
        break;
      default:
        TESSEL_INTERNAL_ERROR("not a comparison: ", kind_name(kind));
    }
    return builder_.CreateFCmp(p, a, b);
  }
  switch (kind) {
    case ExprKind::EQ:
      p = P::ICMP_EQ;
      break;
    case ExprKind::NE:
      p = P::ICMP_NE;
      break;
    case ExprKind::LT:
      p = is_signed ? P::ICMP_SLT : P::ICMP_ULT;
      break;
    case ExprKind::LE:
      p = is_signed ? P::ICMP_SLE : P::ICMP_ULE;
      break;
    case ExprKind::GT:
      p = is_signed ? P::ICMP_SGT : P::ICMP_UGT;
      break;
    case ExprKind::GE:
      p = is_signed ? P::ICMP_SGE : P::ICMP_UGE;
      break;
    default:
      TESSEL_INTERNAL_ERROR("not a comparison: ", kind_name(kind));
  }
  return builder_.CreateICmp(p, a, b);
}

llvm::Value* FunctionCodeGen::emit_cast(llvm::Value* v, DataType from, DataType to) {
  if (from == to) return v;
  llvm::Type* type = llvm_type(to);
  if (from.is_handle() || to.is_handle())
    fail("cannot cast " + from.to_string() + " to " + to.to_string());
  if (from.is_float() && from.bits == 16 && !to.is_float()) {  // through float32, exactly
    from = DataType::Float(32, from.lanes);
    v = builder_.CreateFPExt(v, llvm_type(from));
  }
  if (to.is_bool()) {
    llvm::Value* zero = llvm::Constant::getNullValue(v->getType());
    return from.is_float() ? builder_.CreateFCmpUNE(v, zero) : builder_.CreateICmpNE(v, zero);
  }
  llvm::Type* f32 = llvm_type(DataType::Float(32, to.lanes));
  if (from.is_float() && to.is_float()) {
    if (from.bits < to.bits) return builder_.CreateFPExt(v, type);
    if (from.bits == to.bits) v = builder_.CreateFPExt(v, f32);  // float16 <-> bfloat16
    return narrow_float(v, to);
  }
  bool from_signed = from.is_int();  // bool and uint extend with zeros
  if (to.is_float()) {
    // Through float32: exact for float16 (its finite integers fit in 24 bits); bfloat16
    // may round twice above 2^24.
    bool via_f32 = to.bits == 16;
    llvm::Type* target = via_f32 ? f32 : type;
    llvm::Value* r =
        from_signed ? builder_.CreateSIToFP(v, target) : builder_.CreateUIToFP(v, target);
    return via_f32 ? narrow_float(r, to) : r;
  }
  if (from.is_float())
    return to.is_int() ? builder_.CreateFPToSI(v, type) : builder_.CreateFPToUI(v, type);
  return builder_.CreateIntCast(v, type, from_signed);
}

llvm::Value* FunctionCodeGen::narrow_float(llvm::Value* v, DataType to) {
  llvm::Type* type = llvm_type(to);
  if (to.code != TypeCode::BFloat) return builder_.CreateFPTrunc(v, type);
  v = builder_.CreateFPTrunc(v, llvm_type(DataType::Float(32, to.lanes)));  // no-op for f32
  llvm::Type* i32 = llvm_type(DataType::Int(32, to.lanes));
  auto constant = [&](uint32_t c) { return llvm::ConstantInt::get(i32, c); };
  llvm::Value* bits = builder_.CreateBitCast(v, i32);
  // Round to nearest even: add 0x7fff plus the lowest kept bit, keep the high half.
  llvm::Value* odd = builder_.CreateAnd(builder_.CreateLShr(bits, 16), constant(1));
  llvm::Value* rounded =
      builder_.CreateLShr(builder_.CreateAdd(bits, builder_.CreateAdd(odd, constant(0x7fff))), 16);
  // NaN stays a (quiet) NaN.
  llvm::Value* quiet_nan = builder_.CreateOr(builder_.CreateLShr(bits, 16), constant(0x40));
  llvm::Value* high = builder_.CreateSelect(builder_.CreateFCmpUNO(v, v), quiet_nan, rounded);
  llvm::Type* i16 = llvm_type(DataType::Int(16, to.lanes));
  return builder_.CreateBitCast(builder_.CreateTrunc(high, i16), type);
}

llvm::Value* FunctionCodeGen::emit_ramp(const RampNode* op) {
  llvm::Value* base = emit(op->base);
  llvm::Value* stride = emit(op->stride);
  std::vector<llvm::Constant*> steps;
  for (int i = 0; i < op->lanes; ++i) steps.push_back(llvm::ConstantInt::get(base->getType(), i));
  llvm::Value* offsets = builder_.CreateMul(builder_.CreateVectorSplat(op->lanes, stride),
                                            llvm::ConstantVector::get(steps));
  return builder_.CreateAdd(builder_.CreateVectorSplat(op->lanes, base), offsets);
}

}  // namespace tessel::codegen
