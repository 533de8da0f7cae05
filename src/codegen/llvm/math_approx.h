// Internal: vectorisable float32 approximations of transcendental functions.
//
// Each function emits plain arithmetic, compares, selects and bit operations on a float
// scalar or a vector of floats, so a vector stays a vector (no per-lane libm calls) and
// the scalar and vector forms agree. Accuracy against double-precision libm over dense
// sweeps (tests/unit/codegen/test_intrinsics.cpp): maximum relative error where the result
// is a normal float, measured with FMA contraction on x86-64 (the tests allow 4e-7 for exp
// and log, 5e-7 for the others; 1 ulp of float32 is 6e-8 to 1.2e-7 relative):
//   exp      8.1e-8 on [-110, 95]; results below the normal range (x < -87.34, and
//            -inf) flush to 0; +inf above about 88.72; NaN -> NaN.
//   log      7.7e-8 for positive normal and subnormal inputs; log(+-0) = -inf,
//            log(+inf) = +inf, negative or NaN -> NaN.
//   tanh     1.2e-7; +-inf -> +-1; NaN -> NaN.
//   sigmoid  1.8e-7 on [-110, 40]; results below about 8.6e-39 (x < -87.7) flush to 0;
//            +inf -> 1, -inf -> 0.
//   erf      3.5e-7 (3.4e-7 absolute); +-inf -> +-1; NaN -> NaN.
// Sources of the method: Cephes (exp, log, tanh reduction and polynomials); erf's rational
// fit comes from scripts/fit-erf.py. erf has no exp and no branch: it sits in the epilogue
// of every GELU product, where a form with exp cost about twice as much.
#pragma once

#include <llvm/ADT/STLFunctionalExtras.h>
#include <llvm/IR/IRBuilder.h>

namespace tessel::codegen {

/// exp(x) for a float32 scalar or vector x: Cody-Waite reduction by ln 2, degree-6
/// polynomial, scaling by 2^n in two steps.
llvm::Value* approx_exp_f32(llvm::IRBuilderBase& b, llvm::Value* x);
/// log(x): exponent and mantissa split, degree-9 polynomial in (mantissa - 1).
llvm::Value* approx_log_f32(llvm::IRBuilderBase& b, llvm::Value* x);
/// tanh(x): odd polynomial for |x| < 0.625, 1 - 2 / (exp(2|x|) + 1) beyond.
llvm::Value* approx_tanh_f32(llvm::IRBuilderBase& b, llvm::Value* x);
/// erf(x): z P(z^2) / Q(z^2) with z = x clamped to [-4, 4], the result clamped to [-1, 1].
llvm::Value* approx_erf_f32(llvm::IRBuilderBase& b, llvm::Value* x);

/// sigmoid(x) for float32: exp(-|x|) inline (a degree-6 polynomial, 2^n from the bits of
/// the rounding sum, no clamps but |x| <= 88), then the two-sided form below.
llvm::Value* approx_sigmoid_f32(llvm::IRBuilderBase& b, llvm::Value* x);

/// sigmoid(x) = 1 / (1 + exp(-x)), written as s = 1 / (1 + exp(-|x|)) and
/// x >= 0 ? s : exp(-|x|) * s, which keeps full relative accuracy for large |x|.
/// Works for any float type given a matching `exp`.
llvm::Value* emit_sigmoid(llvm::IRBuilderBase& b, llvm::Value* x,
                          llvm::function_ref<llvm::Value*(llvm::Value*)> exp);

}  // namespace tessel::codegen
