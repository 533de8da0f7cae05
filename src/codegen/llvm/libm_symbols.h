// Internal: the C math library functions that generated code may call, with their
// addresses in this process.
//
// Code generation calls libm per lane for transcendental functions without a vector form
// (sinf, sin, tanh, erf, ...), and LLVM lowers some of its intrinsics to libm calls (expf,
// pow, fmodf for frem, roundevenf without SSE4.1...). The JIT binds these names to this
// process's copies explicitly, so kernels link whether or not the host program itself
// references libm.
#pragma once

#include <utility>
#include <vector>

namespace tessel::codegen {

/// (symbol name, address) of every float and double libm function kernels may call.
const std::vector<std::pair<const char*, void*>>& libm_symbols();

}  // namespace tessel::codegen
