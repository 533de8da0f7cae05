// Helpers for the codegen tests: loop IR builders, aligned arrays and JIT calls.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "codegen/llvm/jit.h"
#include "ir/stmt.h"
#include "runtime/ndarray.h"

namespace tessel::codegen::test {

using namespace ir;

/// A 1-d buffer of n elements.
inline Buffer buffer(const std::string& name, DataType dtype, int64_t n,
                     MemoryScope scope = MemoryScope::Global) {
  return Buffer::make(name, dtype, {Expr(n)}, scope);
}

inline Stmt loop(const Var& v, Expr min, Expr extent, Stmt body, ForKind kind = ForKind::Serial) {
  return make_For(v, std::move(min), std::move(extent), kind, std::move(body));
}
inline Stmt loop(const Var& v, int64_t extent, Stmt body, ForKind kind = ForKind::Serial) {
  return loop(v, Expr(int64_t{0}), Expr(extent), std::move(body), kind);
}

inline Expr load(const Buffer& b, Expr index) {
  return make_Load(b, {std::move(index)});
}
inline Stmt store(const Buffer& b, Expr index, Expr value) {
  return make_Store(b, std::move(value), {std::move(index)});
}
/// The contiguous vector index [base, base + lanes).
inline Expr ramp(Expr base, int lanes) {
  return make_Ramp(std::move(base), Expr(int64_t{1}), lanes);
}

inline runtime::DType runtime_dtype(DataType t) {
  return runtime::DType{static_cast<runtime::DTypeCode>(t.code), t.bits};
}

/// A 64-byte aligned array holding `values`.
template <class T>
runtime::NDArray array(const std::vector<T>& values, DataType dtype) {
  runtime::NDArray a({static_cast<int64_t>(values.size())}, runtime_dtype(dtype));
  std::memcpy(a.data(), values.data(), values.size() * sizeof(T));
  return a;
}

template <class T>
std::vector<T> values(const runtime::NDArray& a) {
  const T* p = a.data_as<T>();
  return std::vector<T>(p, p + a.size());
}

/// Calls kernel `name` of `module` on the arrays; returns its status.
inline int32_t call(const LoadedModule& module, const std::string& name,
                    std::vector<runtime::NDArray*> arrays) {
  std::vector<void*> args;
  for (runtime::NDArray* a : arrays) args.push_back(a->data());
  return module.get_function(name)(args.data());
}

/// JIT-compiles one function and calls it on the arrays.
inline int32_t run(const PrimFunc& f, std::vector<runtime::NDArray*> arrays) {
  JitModule module({f});
  return call(module, f.name, std::move(arrays));
}

}  // namespace tessel::codegen::test
