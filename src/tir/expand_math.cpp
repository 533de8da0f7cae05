// expand_math: float32 approximations of exp, log, tanh, erf and sigmoid as loop IR.
//
// Codegen may contract and reassociate plain float arithmetic; where an approximation's
// accuracy depends on the order of its roundings, the form writes that order with round
// and fma, which codegen keeps as they are.
#include "tir/expand_math.h"

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "arith/const_fold.h"
#include "ir/functor.h"

namespace tessel::tir {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;

/// Builds float32 arithmetic of one lane count. Values used more than once are bound to
/// variables by `let`; `finish` wraps the lets, in order, around the result.
class MathBuilder {
 public:
  explicit MathBuilder(int lanes) : lanes_(lanes) {}

  DataType float_type() const { return DataType::Float(32, lanes_); }
  DataType int_type() const { return DataType::Int(32, lanes_); }
  Expr f(double v) const { return ir::make_float(static_cast<float>(v), float_type()); }
  Expr i(int64_t v) const { return ir::make_int(v, int_type()); }

  /// A variable bound to `value` (immediates and variables are used as they are).
  Expr let(const std::string& name, Expr value) {
    if (arith::is_immediate(value) || value.as<ir::VarNode>()) return value;
    Var v(name, value.dtype());
    lets_.emplace_back(v, std::move(value));
    return v;
  }

  /// Horner evaluation; coefficients from the highest degree down.
  Expr poly(const Expr& x, std::initializer_list<double> coefficients) const {
    auto it = coefficients.begin();
    Expr r = f(*it);
    for (++it; it != coefficients.end(); ++it) r = r * x + f(*it);
    return r;
  }

  /// 2^n for a float n holding an integer in [-127, 127], built from its exponent bits
  /// (n = -127 gives 0): n + (1.5 * 2^23 + 127) is exact and its low mantissa bits are
  /// n + 127, which the shift moves into the exponent field. No float-to-int conversion,
  /// so a NaN n stays harmless (the caller's result is NaN by then anyway).
  Expr pow2(const Expr& n) const {
    return ir::reinterpret(ir::shift_left(ir::reinterpret(n + f(12583039.0)), i(23)));
  }

  Expr finish(Expr body) {
    for (auto it = lets_.rbegin(); it != lets_.rend(); ++it)
      body = ir::make_Let(it->first, it->second, body);
    lets_.clear();
    return body;
  }

 private:
  int lanes_;
  std::vector<std::pair<Var, Expr>> lets_;
};

Expr expand_exp(MathBuilder& m, Expr x) {
  x = m.let("x", x);
  // Clamp so that the scale factors below stay finite; beyond the clamp the result has
  // already overflowed to +inf. Below ln(FLT_MIN) the result would be subnormal: 0 is
  // returned directly and those lanes compute exp(0) instead, so that no product has a
  // subnormal or underflowing result. A NaN passes (compares false) and every step after.
  Expr underflow = m.let("underflow", x < m.f(-87.3365448));
  Expr xc = ir::select(x > m.f(89.0), m.f(89.0), x);
  xc = m.let("xc", ir::select(underflow, m.f(0.0), xc));
  Expr n = m.let("n", ir::round(xc * m.f(1.44269504088896341)));
  // r = x - n ln 2 in two steps (Cody-Waite): 0.693359375 has few bits, n * it is exact.
  Expr r = ir::fma(n, m.f(-0.693359375), xc);
  r = m.let("r", ir::fma(n, m.f(2.12194440e-4), r));
  // exp(r) on |r| <= ln(2) / 2 (Cephes expf).
  Expr p = m.poly(r, {1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
                      1.6666665459e-1, 5.0000001201e-1});
  Expr y = p * (r * r) + r + m.f(1.0);
  // Multiply by 2^n in two factors that stay normal floats for n in [-126, 128], so that
  // the overflow to +inf comes out right: 2^(n - 64) * 2^64 for n > 0, else
  // 2^(n + 63) * 2^-63.
  Expr positive = m.let("positive", n > m.f(0.0));
  Expr low_part = m.pow2(n - ir::select(positive, m.f(64.0), m.f(-63.0)));
  Expr result = y * low_part * ir::select(positive, m.f(0x1p64), m.f(0x1p-63));
  return ir::select(underflow, m.f(0.0), result);
}

Expr expand_log(MathBuilder& m, Expr x) {
  x = m.let("x", x);
  // Subnormal inputs are scaled by 2^23 into the normal range first.
  Expr subnormal = m.let("subnormal", x < m.f(1.17549435e-38));
  Expr bits = m.let("bits", ir::reinterpret(ir::select(subnormal, x * m.f(8388608.0), x)));
  // x = mantissa * 2^e with mantissa in [0.5, 1).
  Expr e = ir::shift_right(bits, m.i(23)) - m.i(126) - ir::select(subnormal, m.i(23), m.i(0));
  Expr mantissa =
      m.let("mantissa",
            ir::reinterpret(ir::bitwise_or(
                ir::bitwise_and(bits, m.i(static_cast<int32_t>(0x807fffffu))), m.i(0x3f000000))));
  // Bring the mantissa to [sqrt(1/2), sqrt(2)) and take t = mantissa - 1 (exact).
  Expr low = m.let("low", mantissa < m.f(0.707106781186547524));
  e = e - ir::cast(m.int_type(), low);
  Expr t = m.let("t", ir::select(low, mantissa + mantissa, mantissa) - m.f(1.0));
  Expr ef = m.let("ef", ir::cast(m.float_type(), e));
  // log(1 + t) = t - t^2/2 + t^3 P(t) (Cephes logf), plus e ln 2 in two parts.
  Expr t2 = m.let("t2", t * t);
  Expr y = m.poly(t, {7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
                      1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
                      3.3333331174e-1}) *
           t * t2;
  y = ir::fma(ef, m.f(-2.12194440e-4), y);
  y = y + t2 * m.f(-0.5);
  // t + y is written fma(t, 1, y): a sum rounded once that codegen may not reassociate.
  // LLVM's DAG combiner would otherwise fold a reassociable t + fma(a, b, c * d) into
  // fma(a, b, fma(c, d, t)), adding the small terms to t one rounding at a time.
  Expr result = ir::fma(ef, m.f(0.693359375), ir::fma(t, m.f(1.0), y));
  constexpr double inf = std::numeric_limits<double>::infinity();
  result = ir::select(x == m.f(0.0), m.f(-inf), result);
  result = ir::select(x == m.f(inf), m.f(inf), result);
  // Negative inputs and NaN give NaN.
  return ir::select(!(x >= m.f(0.0)), m.f(std::numeric_limits<double>::quiet_NaN()), result);
}

/// `v` (not negative) with the sign of `x`.
Expr with_sign_of(MathBuilder& m, const Expr& v, const Expr& x) {
  Expr sign = ir::bitwise_and(ir::reinterpret(x), m.i(std::numeric_limits<int32_t>::min()));
  return ir::reinterpret(ir::bitwise_or(ir::reinterpret(v), sign));
}

Expr expand_tanh(MathBuilder& m, Expr x) {
  x = m.let("x", x);
  Expr a = m.let("abs_x", ir::abs(x));
  // |x| >= 0.625: 1 - 2 / (exp(2|x|) + 1) with the sign of x (exp overflows to +inf for
  // large |x|, giving exactly 1).
  Expr e = m.let("exp_2a", expand_exp(m, a + a));
  Expr large = with_sign_of(m, m.f(1.0) - m.f(2.0) / (e + m.f(1.0)), x);
  // |x| < 0.625: x + x^3 P(x^2) (Cephes tanhf).
  Expr z = m.let("z", x * x);
  Expr p = m.poly(z, {-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1,
                      -3.33332819422e-1});
  Expr small = p * z * x + x;
  return ir::select(a < m.f(0.625), small, large);
}

Expr expand_erf(MathBuilder& m, Expr x) {
  x = m.let("x", x);
  // erf(4) rounds to 1 in float32: clamp to [-4, 4] (NaN compares false and passes).
  Expr z = ir::select(x > m.f(4.0), m.f(4.0), x);
  z = m.let("z", ir::select(z < m.f(-4.0), m.f(-4.0), z));
  // z P(z^2) / Q(z^2): a minimax rational fit on [0, 4], degrees 5 and 5 in z^2
  // (scripts/fit-erf.py prints these coefficients).
  Expr t = m.let("t", z * z);
  Expr p = m.poly(t, {0x1.0912a2p-19, 0x1.2e05fap-12, 0x1.06597ap-8, 0x1.b5fe2p-5, 0x1.91e49ap-3,
                      0x1.20dd72p+0});
  Expr q =
      m.poly(t, {0x1.3a6b12p-15, 0x1.3ed48p-10, 0x1.fa0c98p-7, 0x1.dd1124p-4, 0x1.03b528p-1, 1.0});
  Expr r = m.let("r", z * p / q);
  // The rounding of the evaluation may step a few ulps past 1.
  r = m.let("r", ir::select(r > m.f(1.0), m.f(1.0), r));
  return ir::select(r < m.f(-1.0), m.f(-1.0), r);
}

Expr expand_sigmoid(MathBuilder& m, Expr x) {
  x = m.let("x", x);
  // e = exp(-a) = 2^n exp(r) with a = |x| clamped to 88, where 2^-127 gives e = 0 (a zero,
  // not an underflowing product). A NaN passes the clamp (compares false) and every step
  // after it.
  Expr a = m.let("abs_x", ir::abs(x));
  a = m.let("a", ir::select(a > m.f(88.0), m.f(88.0), a));
  Expr n = m.let("n", ir::round(a * m.f(-1.44269504088896341)));
  // -r = a + n ln 2 in two steps (Cody-Waite, as in exp), |r| <= ln(2) / 2.
  Expr minus_r = ir::fma(n, m.f(0.693359375), a);
  minus_r = m.let("minus_r", ir::fma(n, m.f(-2.12194440e-4), minus_r));
  // exp(r) by a degree-6 minimax polynomial, written in -r (odd coefficients negated).
  Expr y = m.poly(minus_r, {0x1.6ae6dap-10, -0x1.1267dap-7, 0x1.555824p-5, -0x1.555418p-3,
                            0x1.fffffcp-2, -1.0, 1.0});
  Expr e = m.let("e", y * m.pow2(n));
  // 1 / (1 + e) for x >= 0, e / (1 + e) below: full relative accuracy on both sides.
  return ir::select(x >= m.f(0.0), m.f(1.0), e) / (m.f(1.0) + e);
}

using Expansion = Expr (*)(MathBuilder&, Expr);

/// The arithmetic form of `op`, or null for the intrinsics expand_math leaves alone.
Expansion expansion_of(ir::Intrinsic op) {
  switch (op) {
    case ir::Intrinsic::exp:
      return expand_exp;
    case ir::Intrinsic::log:
      return expand_log;
    case ir::Intrinsic::tanh:
      return expand_tanh;
    case ir::Intrinsic::erf:
      return expand_erf;
    case ir::Intrinsic::sigmoid:
      return expand_sigmoid;
    default:
      return nullptr;
  }
}

class MathExpander : public ir::IRMutator {
 public:
  Expr mutate_Call(const ir::CallNode* op, const Expr& self) override {
    Expr call = mutate_children(op, self);
    const auto* c = call.as<ir::CallNode>();
    Expansion expand = expansion_of(c->op);
    DataType t = c->args[0].dtype();
    if (!expand || !t.is_float() || (t.bits != 16 && t.bits != 32)) return call;
    MathBuilder m(t.lanes);
    // 16-bit floats are computed in float32 (exactly widened) and rounded back once.
    Expr wide = t.bits == 32 ? c->args[0] : ir::cast(m.float_type(), c->args[0]);
    Expr result = m.finish(expand(m, wide));
    return t.bits == 32 ? result : ir::cast(t, result);
  }
};

}  // namespace

Expr expand_math(const Expr& e) {
  return MathExpander().mutate(e);
}

ir::PrimFunc expand_math(const ir::PrimFunc& f) {
  return {f.name, f.params, MathExpander().mutate(f.body)};
}

}  // namespace tessel::tir
