// The table of libm functions bound by the JIT (see libm_symbols.h).
#include "codegen/llvm/libm_symbols.h"

#include <math.h>

namespace tessel::codegen {

// One-argument and two-argument functions; each comes as `name` (double) and `namef`.
#define TESSEL_LIBM_UNARY(X)                                                                      \
  X(sin)                                                                                          \
  X(cos) X(tan) X(asin) X(acos) X(atan) X(sinh) X(cosh) X(asinh) X(acosh) X(atanh) X(tanh) X(erf) \
      X(exp) X(exp2) X(exp10) X(expm1) X(log) X(log2) X(log10) X(log1p) X(sqrt) X(floor) X(ceil)  \
          X(trunc) X(round) X(roundeven) X(nearbyint) X(rint) X(fabs)
#define TESSEL_LIBM_BINARY(X) X(pow) X(fmod) X(fmin) X(fmax) X(copysign) X(atan2)

const std::vector<std::pair<const char*, void*>>& libm_symbols() {
  using Unary = double (*)(double);
  using UnaryF = float (*)(float);
  using Binary = double (*)(double, double);
  using BinaryF = float (*)(float, float);
  static const std::vector<std::pair<const char*, void*>> symbols = {
#define TESSEL_LIBM_ENTRY(name, D, F)                        \
  {#name, reinterpret_cast<void*>(static_cast<D>(&::name))}, \
      {#name "f", reinterpret_cast<void*>(static_cast<F>(&::name##f))},
#define TESSEL_LIBM_UNARY_ENTRY(name) TESSEL_LIBM_ENTRY(name, Unary, UnaryF)
#define TESSEL_LIBM_BINARY_ENTRY(name) TESSEL_LIBM_ENTRY(name, Binary, BinaryF)
      TESSEL_LIBM_UNARY(TESSEL_LIBM_UNARY_ENTRY) TESSEL_LIBM_BINARY(TESSEL_LIBM_BINARY_ENTRY)
#undef TESSEL_LIBM_BINARY_ENTRY
#undef TESSEL_LIBM_UNARY_ENTRY
#undef TESSEL_LIBM_ENTRY
  };
  return symbols;
}

}  // namespace tessel::codegen
