// Vectorisable float32 approximations of exp, log, tanh, erf and a stable sigmoid.
//
// Everything is emitted with the `contract` fast-math flag only: the range reductions
// depend on the exact order of roundings (the 1.5 * 2^23 rounding trick would be folded
// away under reassociation), while contracting a*b+c into an FMA only makes them more
// accurate.
#include "codegen/llvm/math_approx.h"

#include <llvm/IR/Intrinsics.h>

#include <initializer_list>

namespace tessel::codegen {
namespace {

/// Constants and arithmetic on one float type (scalar or vector) and the integer type of
/// the same width, with contraction as the only fast-math flag.
class FloatMath {
 public:
  FloatMath(llvm::IRBuilderBase& b, llvm::Value* x) : b_(b), guard_(b), float_type_(x->getType()) {
    llvm::FastMathFlags flags;
    flags.setAllowContract();
    b.setFastMathFlags(flags);
    unsigned bits = float_type_->getScalarSizeInBits();
    llvm::Type* element = llvm::Type::getIntNTy(b.getContext(), bits);
    if (auto* v = llvm::dyn_cast<llvm::VectorType>(float_type_))
      int_type_ = llvm::VectorType::get(element, v->getElementCount());
    else
      int_type_ = element;
  }

  llvm::Type* float_type() const { return float_type_; }
  llvm::Type* int_type() const { return int_type_; }
  llvm::Value* f(double v) const { return llvm::ConstantFP::get(float_type_, v); }
  llvm::Value* i(uint64_t v) const { return llvm::ConstantInt::get(int_type_, v); }
  llvm::Value* add(llvm::Value* a, llvm::Value* c) { return b_.CreateFAdd(a, c); }
  llvm::Value* sub(llvm::Value* a, llvm::Value* c) { return b_.CreateFSub(a, c); }
  llvm::Value* mul(llvm::Value* a, llvm::Value* c) { return b_.CreateFMul(a, c); }
  llvm::Value* div(llvm::Value* a, llvm::Value* c) { return b_.CreateFDiv(a, c); }
  llvm::Value* neg(llvm::Value* a) { return b_.CreateFNeg(a); }
  llvm::Value* abs(llvm::Value* a) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a); }
  llvm::Value* copysign(llvm::Value* magnitude, llvm::Value* sign) {
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, magnitude, sign);
  }
  llvm::Value* lt(llvm::Value* a, llvm::Value* c) { return b_.CreateFCmpOLT(a, c); }
  llvm::Value* gt(llvm::Value* a, llvm::Value* c) { return b_.CreateFCmpOGT(a, c); }
  llvm::Value* select(llvm::Value* c, llvm::Value* t, llvm::Value* f) {
    return b_.CreateSelect(c, t, f);
  }
  llvm::Value* is_nan(llvm::Value* a) { return b_.CreateFCmpUNO(a, a); }
  llvm::Value* as_int(llvm::Value* a) { return b_.CreateBitCast(a, int_type_); }
  llvm::Value* as_float(llvm::Value* a) { return b_.CreateBitCast(a, float_type_); }
  /// Horner evaluation; coefficients from the highest degree down.
  llvm::Value* poly(llvm::Value* x, std::initializer_list<double> coefficients) {
    auto it = coefficients.begin();
    llvm::Value* r = f(*it);
    for (++it; it != coefficients.end(); ++it) r = add(mul(r, x), f(*it));
    return r;
  }

 private:
  llvm::IRBuilderBase& b_;
  llvm::IRBuilderBase::FastMathFlagGuard guard_;
  llvm::Type* float_type_;
  llvm::Type* int_type_ = nullptr;
};

/// exp(x) = y * 2^n for x in the clamped range [-104, 89] (or NaN): the reduction and the
/// polynomial, the scaling left to the caller (n as an integer).
struct ExpParts {
  llvm::Value* y;
  llvm::Value* n;
};

ExpParts exp_parts(llvm::IRBuilderBase& b, FloatMath& m, llvm::Value* x) {
  // n = round(x / ln 2) by adding and subtracting 1.5 * 2^23 (needs no rounding instruction).
  llvm::Value* shift = m.f(12582912.0);
  llvm::Value* n = m.sub(m.add(m.mul(x, m.f(1.44269504088896341)), shift), shift);
  // r = x - n ln 2 in two steps (Cody-Waite): 0.693359375 has few bits, n * it is exact.
  llvm::Value* r = m.sub(x, m.mul(n, m.f(0.693359375)));
  r = m.sub(r, m.mul(n, m.f(-2.12194440e-4)));
  // exp(r) on |r| <= ln(2) / 2 (Cephes expf).
  llvm::Value* p = m.poly(r, {1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
                              1.6666665459e-1, 5.0000001201e-1});
  llvm::Value* y = m.add(m.add(m.mul(p, m.mul(r, r)), r), m.f(1.0));
  return {y, b.CreateFPToSI(n, m.int_type())};
}

/// 2^k for integers k in [-126, 127], as a float built from its exponent bits.
llvm::Value* pow2(llvm::IRBuilderBase& b, FloatMath& m, llvm::Value* k) {
  return m.as_float(b.CreateShl(b.CreateAdd(k, m.i(127)), 23));
}

}  // namespace

llvm::Value* approx_exp_f32(llvm::IRBuilderBase& b, llvm::Value* x) {
  FloatMath m(b, x);
  // Clamp so that the scale factors below stay finite; beyond the clamp the result has
  // already overflowed to +inf. Below ln(FLT_MIN) the result would be subnormal: 0 is
  // returned directly and those lanes (a softmax's masked positions: -inf, -1e9, or
  // Swin's -100) compute exp(0) instead, since a product with a subnormal or underflowing
  // result costs x86 a microcode assist of about a hundred cycles per instruction. A NaN
  // passes through (compares false).
  llvm::Value* underflow = m.lt(x, m.f(-87.3365448));
  llvm::Value* xc = m.select(m.gt(x, m.f(89.0)), m.f(89.0), x);
  xc = m.select(underflow, m.f(0.0), xc);
  ExpParts e = exp_parts(b, m, xc);
  // Multiply by 2^n as 2^(n/2) * 2^(n - n/2): each factor stays a normal float for
  // n in [-126, 128], so the overflow to +inf comes out right.
  llvm::Value* n1 = b.CreateAShr(e.n, 1);
  llvm::Value* n2 = b.CreateSub(e.n, n1);
  llvm::Value* result = m.mul(m.mul(e.y, pow2(b, m, n1)), pow2(b, m, n2));
  return m.select(m.is_nan(x), x, m.select(underflow, m.f(0.0), result));
}

llvm::Value* approx_log_f32(llvm::IRBuilderBase& b, llvm::Value* x) {
  FloatMath m(b, x);
  // Subnormal inputs are scaled by 2^23 into the normal range first.
  llvm::Value* subnormal = m.lt(x, m.f(1.17549435e-38));
  llvm::Value* xs = m.select(subnormal, m.mul(x, m.f(8388608.0)), x);
  // x = mantissa * 2^e with mantissa in [0.5, 1).
  llvm::Value* bits = m.as_int(xs);
  llvm::Value* e = b.CreateSub(b.CreateLShr(bits, 23), m.i(126));
  e = b.CreateSub(e, b.CreateSelect(subnormal, m.i(23), m.i(0)));
  llvm::Value* mantissa =
      m.as_float(b.CreateOr(b.CreateAnd(bits, m.i(0x807fffff)), m.i(0x3f000000)));
  // Bring the mantissa to [sqrt(1/2), sqrt(2)) and take t = mantissa - 1 (exact).
  llvm::Value* low = m.lt(mantissa, m.f(0.707106781186547524));
  e = b.CreateSub(e, b.CreateZExt(low, m.int_type()));
  llvm::Value* t = m.sub(m.select(low, m.add(mantissa, mantissa), mantissa), m.f(1.0));
  llvm::Value* ef = b.CreateSIToFP(e, m.float_type());
  // log(1 + t) = t - t^2/2 + t^3 P(t) (Cephes logf), plus e ln 2 in two parts.
  llvm::Value* t2 = m.mul(t, t);
  llvm::Value* y = m.mul(m.mul(m.poly(t, {7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1,
                                          -1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1,
                                          2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1}),
                               t),
                         t2);
  y = m.add(y, m.mul(ef, m.f(-2.12194440e-4)));
  y = m.add(y, m.mul(t2, m.f(-0.5)));
  llvm::Value* result = m.add(m.add(t, y), m.mul(ef, m.f(0.693359375)));
  llvm::Type* type = m.float_type();
  result =
      m.select(b.CreateFCmpOEQ(x, m.f(0.0)), llvm::ConstantFP::getInfinity(type, true), result);
  result = m.select(b.CreateFCmpOEQ(x, llvm::ConstantFP::getInfinity(type)),
                    llvm::ConstantFP::getInfinity(type), result);
  // Negative inputs and NaN give NaN.
  return m.select(b.CreateFCmpULT(x, m.f(0.0)), llvm::ConstantFP::getNaN(type), result);
}

llvm::Value* approx_tanh_f32(llvm::IRBuilderBase& b, llvm::Value* x) {
  FloatMath m(b, x);
  llvm::Value* a = m.abs(x);
  // |x| >= 0.625: 1 - 2 / (exp(2|x|) + 1) with the sign of x (exp overflows to +inf for
  // large |x|, giving exactly 1).
  llvm::Value* e = approx_exp_f32(b, m.add(a, a));
  llvm::Value* large = m.copysign(m.sub(m.f(1.0), m.div(m.f(2.0), m.add(e, m.f(1.0)))), x);
  // |x| < 0.625: x + x^3 P(x^2) (Cephes tanhf).
  llvm::Value* z = m.mul(x, x);
  llvm::Value* p = m.poly(z, {-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2,
                              1.33314422036e-1, -3.33332819422e-1});
  llvm::Value* small = m.add(m.mul(m.mul(p, z), x), x);
  return m.select(m.lt(a, m.f(0.625)), small, large);
}

llvm::Value* approx_erf_f32(llvm::IRBuilderBase& b, llvm::Value* x) {
  FloatMath m(b, x);
  // erf(4) rounds to 1 in float32: clamp to [-4, 4] (NaN compares false and passes).
  llvm::Value* z = m.select(m.gt(x, m.f(4.0)), m.f(4.0), x);
  z = m.select(m.lt(z, m.f(-4.0)), m.f(-4.0), z);
  // z P(z^2) / Q(z^2): a minimax rational fit on [0, 4], degrees 5 and 5 in z^2
  // (scripts/fit-erf.py prints these coefficients).
  llvm::Value* t = m.mul(z, z);
  llvm::Value* p = m.poly(t, {0x1.0912a2p-19, 0x1.2e05fap-12, 0x1.06597ap-8, 0x1.b5fe2p-5,
                              0x1.91e49ap-3, 0x1.20dd72p+0});
  llvm::Value* q =
      m.poly(t, {0x1.3a6b12p-15, 0x1.3ed48p-10, 0x1.fa0c98p-7, 0x1.dd1124p-4, 0x1.03b528p-1, 1.0});
  llvm::Value* r = m.div(m.mul(z, p), q);
  // The rounding of the evaluation may step a few ulps past 1.
  r = m.select(m.gt(r, m.f(1.0)), m.f(1.0), r);
  return m.select(m.lt(r, m.f(-1.0)), m.f(-1.0), r);
}

llvm::Value* approx_sigmoid_f32(llvm::IRBuilderBase& b, llvm::Value* x) {
  FloatMath m(b, x);
  // e = exp(-a) = 2^n exp(r) with a = |x| clamped to 88, where 2^-127 rounds e to 0 (a
  // zero, not an underflowing product, which would cost x86 a microcode assist). A NaN
  // passes the clamp (compares false) and every step after it.
  llvm::Value* a = m.abs(x);
  a = m.select(m.gt(a, m.f(88.0)), m.f(88.0), a);
  // n = round(-a / ln 2) by adding 1.5 * 2^23 + 127: the low bits of the sum then hold
  // n + 127 (in [0, 127]), the biased exponent of 2^n, so no conversion is needed.
  llvm::Value* shifted = m.add(m.mul(a, m.f(-1.44269504088896341)), m.f(12583039.0));
  llvm::Value* n = m.sub(shifted, m.f(12583039.0));
  // -r = a + n ln 2 in two steps (Cody-Waite, as in exp), |r| <= ln(2) / 2.
  llvm::Value* minus_r = m.add(m.mul(n, m.f(0.693359375)), a);
  minus_r = m.add(m.mul(n, m.f(-2.12194440e-4)), minus_r);
  // exp(r) by a degree-6 minimax polynomial, written in -r (odd coefficients negated).
  llvm::Value* y = m.poly(minus_r, {0x1.6ae6dap-10, -0x1.1267dap-7, 0x1.555824p-5, -0x1.555418p-3,
                                    0x1.fffffcp-2, -1.0, 1.0});
  llvm::Value* pow2n = m.as_float(b.CreateShl(m.as_int(shifted), 23));
  llvm::Value* e = m.mul(y, pow2n);
  // 1 / (1 + e) for x >= 0, e / (1 + e) below: full relative accuracy on both sides.
  llvm::Value* s = m.div(m.f(1.0), m.add(m.f(1.0), e));
  return m.select(b.CreateFCmpOGE(x, m.f(0.0)), s, m.mul(e, s));
}

llvm::Value* emit_sigmoid(llvm::IRBuilderBase& b, llvm::Value* x,
                          llvm::function_ref<llvm::Value*(llvm::Value*)> exp) {
  FloatMath m(b, x);
  llvm::Value* e = exp(m.neg(m.abs(x)));  // in (0, 1]: never overflows
  llvm::Value* s = m.div(m.f(1.0), m.add(m.f(1.0), e));
  return m.select(b.CreateFCmpOGE(x, m.f(0.0)), s, m.mul(e, s));
}

}  // namespace tessel::codegen
