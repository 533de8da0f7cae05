// expand_math: exp, log, tanh, erf and sigmoid of float32 (and of float16 and bfloat16,
// computed in float32) become plain loop-IR arithmetic, so that every backend gets the
// same vectorisable approximations: float + - * /, compares, selects, casts, the round,
// abs, fma, reinterpret, bitwise and shift intrinsics. A vector call becomes the same
// arithmetic on vectors; no per-lane libm call remains.
//
// Assumes: nothing; runs on any IR (the pipeline runs it after unroll, so that vectorize
// and unroll see compact calls; the LLVM backend runs it again on what it is given).
// Guarantees: no exp, log, tanh, erf or sigmoid call on a float type of 32 bits or fewer
// remains; float64 calls and every other node are left as they are. Values used more than
// once are bound by Let. The roundings that matter are fixed in the IR itself, since codegen
// may contract and reassociate plain float arithmetic: n = round(x / ln 2) by the round
// intrinsic, the two-step (Cody-Waite) reductions x - n ln 2 and log's final sums by fma,
// which codegen keeps as written. 2^n is put together from exponent bits by exact float
// adds and integer shifts, without a float-to-int conversion (which a NaN makes undefined).
//
// Accuracy against double-precision libm over dense sweeps: maximum relative error where the
// result is a normal float (1 ulp of float32 is 6e-8 to 1.2e-7 relative), both in the
// interpreter (every operation rounded as written; tests/unit/tir/test_expand_math.cpp
// holds it to these figures) and through LLVM on x86-64 with FMA contraction
// (tests/unit/codegen/test_intrinsics.cpp allows 4e-7 for exp and log, 5e-7 for the others):
//   exp      8.1e-8 on [-110, 95]; results below the normal range (x < -87.34, and
//            -inf) flush to 0; +inf above about 88.72; NaN -> NaN.
//   log      7.8e-8 for positive normal and subnormal inputs; log(+-0) = -inf,
//            log(+inf) = +inf, negative or NaN -> NaN.
//   tanh     1.2e-7; +-inf -> +-1; NaN -> NaN.
//   sigmoid  1.8e-7 on [-110, 40]; results below about 8.6e-39 (x < -87.7) flush to 0;
//            +inf -> 1, -inf -> 0; NaN -> NaN.
//   erf      3.5e-7 (3.4e-7 absolute); +-inf -> +-1; NaN -> NaN.
// No lane computes a product with a subnormal or underflowing result for inputs below those
// ranges (a softmax's masked positions: -inf, -1e9, Swin's -100), which would cost x86 a
// microcode assist of about a hundred cycles per instruction: those lanes select 0.
// Sources of the method: Cephes (exp, log, tanh reduction and polynomials); sigmoid has a
// degree-6 minimax polynomial of its own for exp on [-ln 2 / 2, ln 2 / 2]; erf's rational
// fit comes from scripts/fit-erf.py. erf has no exp and no branch: it sits in the epilogue
// of every GELU product, where a form with exp cost about twice as much.
#pragma once

#include "ir/stmt.h"

namespace tessel::tir {

/// `e` with its float32, float16 and bfloat16 exp, log, tanh, erf and sigmoid calls
/// rewritten into arithmetic (see the file comment).
ir::Expr expand_math(const ir::Expr& e);

/// `f` with the calls of its body rewritten as expand_math(Expr) does.
ir::PrimFunc expand_math(const ir::PrimFunc& f);

}  // namespace tessel::tir
