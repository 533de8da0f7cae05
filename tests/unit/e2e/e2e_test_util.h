// Helpers for the e2e dtype and shape tests: C++ element types mapped to tessel types,
// aligned arrays, and building and running one scheduled compute.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "driver/build.h"
#include "runtime/ndarray.h"
#include "te/compute.h"

namespace tessel::e2e_test {

/// The tessel type of the C++ element type T (bool is one byte in memory, like uint8).
template <class T>
ir::DataType dtype_of() {
  if constexpr (std::is_same_v<T, bool>)
    return ir::DataType::Bool();
  else if constexpr (std::is_same_v<T, _Float16>)
    return ir::DataType::Float(16);
  else if constexpr (std::is_floating_point_v<T>)
    return ir::DataType::Float(8 * sizeof(T));
  else if constexpr (std::is_signed_v<T>)
    return ir::DataType::Int(8 * sizeof(T));
  else
    return ir::DataType::UInt(8 * sizeof(T));
}

inline runtime::DType runtime_dtype(ir::DataType t) {
  return runtime::DType{static_cast<runtime::DTypeCode>(t.code), t.bits};
}

/// An aligned array of `shape` holding `values` (bool stored as 0/1 bytes).
template <class T>
runtime::NDArray array_of(std::vector<int64_t> shape, const std::vector<T>& values) {
  runtime::NDArray a(std::move(shape), runtime_dtype(dtype_of<T>()));
  for (size_t k = 0; k < values.size(); ++k) {
    T v = values[k];
    std::memcpy(static_cast<char*>(a.data()) + k * sizeof(T), &v, sizeof(T));
  }
  return a;
}

/// The elements of `a` as T (for bool use bytes_of, which shows the raw 0/1 bytes).
template <class T>
std::vector<T> values_of(const runtime::NDArray& a) {
  static_assert(!std::is_same_v<T, bool>, "read bool arrays with bytes_of");
  std::vector<T> out(static_cast<size_t>(a.size()));
  if (!out.empty()) std::memcpy(out.data(), a.data(), out.size() * sizeof(T));
  return out;
}

/// Raw bytes of a bool array (to check that stores write exactly 0 or 1).
inline std::vector<uint8_t> bytes_of(const runtime::NDArray& a) {
  return values_of<uint8_t>(a);
}

/// How the output stage is scheduled before building.
enum class Sched { Plain, Vector8, Vector16 };

inline const char* sched_name(Sched s) {
  switch (s) {
    case Sched::Plain:
      return "plain";
    case Sched::Vector8:
      return "vector8";
    case Sched::Vector16:
      return "vector16";
  }
  return "?";
}

/// The compute out[i...] = body(loads of `inputs` at i...) over the inputs' common shape.
inline te::Tensor elementwise(const std::vector<te::Tensor>& inputs,
                              const std::function<ir::Expr(const std::vector<ir::Expr>&)>& body,
                              const std::string& name) {
  return te::compute_body(
      inputs[0].shape(),
      [&](const std::vector<ir::Var>& vars) {
        std::vector<ir::Expr> index(vars.begin(), vars.end()), loads;
        for (const te::Tensor& t : inputs) loads.push_back(t(index));
        return body(loads);
      },
      name);
}

/// Builds `out` over `args` (inputs then out) with its innermost loop split and
/// vectorized as `sched` asks, and runs it on `arrays`.
inline void build_and_run(const te::Tensor& out, std::vector<te::Tensor> args, Sched sched,
                          std::vector<runtime::NDArray*> arrays) {
  schedule::Schedule s({out});
  if (sched != Sched::Plain && out.ndim() > 0) {
    const schedule::Stage& stage = s.stage(out);
    std::string inner;
    for (const std::string& root : stage.roots)
      if (stage.find_loop(root)->kind == ir::IterKind::DataPar) inner = root;
    auto [o, i] = s.split(out, inner, sched == Sched::Vector8 ? 8 : 16);
    (void)o;
    s.vectorize(out, i);
  }
  args.push_back(out);
  driver::Kernel kernel = driver::build(s, args, out.name());
  std::vector<void*> pointers;
  for (runtime::NDArray* a : arrays) pointers.push_back(a->data());
  kernel.run(pointers);
}

}  // namespace tessel::e2e_test
