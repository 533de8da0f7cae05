// Helpers shared by the operator unit tests: arrays of any element type built from values and
// read back (typed or as doubles), one-node graphs run through executor::run_node, row-major
// index arithmetic for the naive references, tolerant comparisons and CompileError checks.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "executor/node_kernel.h"
#include "graph/graph.h"
#include "runtime/ndarray.h"
#include "support/error.h"

namespace tessel::ops::testing {

using graph::Attribute;
using runtime::DType;
using runtime::NDArray;
using Shape = std::vector<int64_t>;
using Attributes = std::map<std::string, Attribute>;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// Shorthands for element types.
inline const DType kF16 = DType::Float(16);
inline const DType kBF16 = DType::BFloat(16);
inline const DType kF32 = DType::Float(32);
inline const DType kF64 = DType::Float(64);
inline const DType kI8 = DType::Int(8);
inline const DType kI16 = DType::Int(16);
inline const DType kI32 = DType::Int(32);
inline const DType kI64 = DType::Int(64);
inline const DType kU8 = DType::UInt(8);
inline const DType kU16 = DType::UInt(16);
inline const DType kU32 = DType::UInt(32);
inline const DType kU64 = DType::UInt(64);
inline const DType kBool = DType::Bool();

// ---- Shapes and row-major indices -------------------------------------------------------

/// Number of elements of `shape`.
inline int64_t count(const Shape& shape) {
  int64_t n = 1;
  for (int64_t extent : shape) n *= extent;
  return n;
}

/// The multi-index of row-major position `k` in `shape`.
inline Shape unravel(int64_t k, const Shape& shape) {
  Shape index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = k % shape[d];
    k /= shape[d];
  }
  return index;
}

/// The row-major position of `index` in `shape`.
inline int64_t ravel(const Shape& index, const Shape& shape) {
  int64_t k = 0;
  for (size_t d = 0; d < shape.size(); ++d) k = k * shape[d] + index[d];
  return k;
}

/// out[k] = f(unravel(k, out_shape)) for every element of `out_shape`.
template <class T>
std::vector<T> generate(const Shape& out_shape, const std::function<T(const Shape&)>& f) {
  std::vector<T> out;
  for (int64_t k = 0; k < count(out_shape); ++k) out.push_back(f(unravel(k, out_shape)));
  return out;
}

/// Deterministic pseudo-random values in [low, high) of `shape` (a fixed linear congruence;
/// integer types take the floor).
template <class T>
std::vector<T> random_values(const Shape& shape, uint64_t seed = 1, double low = -2,
                             double high = 2) {
  std::vector<T> values;
  uint64_t state = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (int64_t k = 0; k < count(shape); ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    double unit = static_cast<double>(state >> 11) / static_cast<double>(1ull << 53);
    double v = low + unit * (high - low);
    values.push_back(static_cast<T>(std::is_integral_v<T> ? std::floor(v) : v));
  }
  return values;
}

// ---- Typed arrays -----------------------------------------------------------------------

/// The runtime element type of C++ type T.
template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, bool>) return DType::Bool();
  if constexpr (std::is_same_v<T, _Float16>) return DType::Float(16);
  if constexpr (std::is_floating_point_v<T>) return DType::Float(8 * sizeof(T));
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) return DType::Int(8 * sizeof(T));
  if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) return DType::UInt(8 * sizeof(T));
}

/// An array of `shape` holding `values` (row-major), stored with element type `dtype`, whose
/// size must be sizeof(T).
template <class T>
NDArray array_of(Shape shape, const std::vector<T>& values, DType dtype = dtype_of<T>()) {
  NDArray a(std::move(shape), dtype);
  EXPECT_EQ(dtype.bytes(), static_cast<int>(sizeof(T))) << "element type of the wrong size";
  EXPECT_EQ(a.size(), static_cast<int64_t>(values.size())) << "test data of the wrong size";
  T* data = static_cast<T*>(a.data());
  for (size_t k = 0; k < values.size(); ++k) data[k] = values[k];
  return a;
}

/// The elements of `a` as T (sizeof(T) must be the element size).
template <class T>
std::vector<T> values_of(const NDArray& a) {
  const T* data = static_cast<const T*>(a.data());
  return std::vector<T>(data, data + a.size());
}

/// Checks the dtype, shape and elements of `actual` exactly.
template <class T>
void expect_array(const NDArray& actual, const Shape& shape, const std::vector<T>& expected,
                  DType dtype = dtype_of<T>()) {
  ASSERT_EQ(actual.dtype(), dtype) << "got " << actual.dtype().to_string();
  ASSERT_EQ(actual.shape(), shape);
  EXPECT_EQ(values_of<T>(actual), expected);
}

// ---- Arrays of any element type, as doubles ---------------------------------------------

/// bfloat16 bits of `v` rounded to nearest even (NaN stays NaN).
inline uint16_t to_bfloat16(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  if (std::isnan(v)) return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

inline float from_bfloat16(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}

/// Element `k` of `a` as a double.
inline double element(const NDArray& a, int64_t k) {
  const void* p = a.data();
  DType t = a.dtype();
  switch (t.code) {
    case runtime::DTypeCode::Float:
      if (t.bits == 16) return static_cast<double>(static_cast<const _Float16*>(p)[k]);
      if (t.bits == 32) return static_cast<const float*>(p)[k];
      return static_cast<const double*>(p)[k];
    case runtime::DTypeCode::BFloat:
      return from_bfloat16(static_cast<const uint16_t*>(p)[k]);
    case runtime::DTypeCode::Int:
      if (t.bits == 8) return static_cast<const int8_t*>(p)[k];
      if (t.bits == 16) return static_cast<const int16_t*>(p)[k];
      if (t.bits == 32) return static_cast<const int32_t*>(p)[k];
      return static_cast<double>(static_cast<const int64_t*>(p)[k]);
    case runtime::DTypeCode::UInt:
      if (t.bits <= 8) return static_cast<const uint8_t*>(p)[k];
      if (t.bits == 16) return static_cast<const uint16_t*>(p)[k];
      if (t.bits == 32) return static_cast<const uint32_t*>(p)[k];
      return static_cast<double>(static_cast<const uint64_t*>(p)[k]);
    case runtime::DTypeCode::String:
      break;
  }
  return kNaN;
}

/// Stores `v` as element `k` of `a` (converted like a C cast; bool is v != 0).
inline void set_element(NDArray& a, int64_t k, double v) {
  void* p = a.data();
  DType t = a.dtype();
  switch (t.code) {
    case runtime::DTypeCode::Float:
      if (t.bits == 16)
        static_cast<_Float16*>(p)[k] = static_cast<_Float16>(v);
      else if (t.bits == 32)
        static_cast<float*>(p)[k] = static_cast<float>(v);
      else
        static_cast<double*>(p)[k] = v;
      return;
    case runtime::DTypeCode::BFloat:
      static_cast<uint16_t*>(p)[k] = to_bfloat16(static_cast<float>(v));
      return;
    case runtime::DTypeCode::Int:
    case runtime::DTypeCode::UInt: {
      // Integers wrap like the two's complement conversion of the int64 value; the low
      // bytes of `bits` are the element's (little-endian host).
      uint64_t bits =
          v >= 0x1p63 ? static_cast<uint64_t>(v) : static_cast<uint64_t>(static_cast<int64_t>(v));
      if (t.bits == 1) bits = v != 0;
      std::memcpy(static_cast<char*>(p) + k * t.bytes(), &bits, static_cast<size_t>(t.bytes()));
      return;
    }
    case runtime::DTypeCode::String:
      throw std::logic_error("set_element: a string array has no numeric elements");
  }
}

/// An array of `shape` holding `values` (row-major) converted to `dtype`.
inline NDArray make_array(DType dtype, Shape shape, const std::vector<double>& values) {
  NDArray a(std::move(shape), dtype);
  EXPECT_EQ(a.size(), static_cast<int64_t>(values.size())) << "test data of the wrong size";
  for (int64_t k = 0; k < a.size(); ++k) set_element(a, k, values[static_cast<size_t>(k)]);
  return a;
}

/// Every element of `a` as a double.
inline std::vector<double> elements(const NDArray& a) {
  std::vector<double> result;
  for (int64_t k = 0; k < a.size(); ++k) result.push_back(element(a, k));
  return result;
}

/// `values` as stored in `dtype` and read back (the test's view of the input elements).
inline std::vector<double> stored(DType dtype, const std::vector<double>& values) {
  return elements(make_array(dtype, {static_cast<int64_t>(values.size())}, values));
}

// ---- Comparisons ------------------------------------------------------------------------

/// Whether `actual` matches `expected` within |a - e| <= atol + rtol * |e| (NaN matches NaN,
/// infinities match themselves only).
inline bool close(double actual, double expected, double rtol, double atol) {
  if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
  if (std::isinf(expected) || std::isinf(actual)) return actual == expected;
  return std::fabs(actual - expected) <= atol + rtol * std::fabs(expected);
}

/// Checks the dtype, shape and every element of `actual` against `expected` within
/// `close(actual, expected, rtol, atol)`; `what` prefixes the failure messages.
inline void expect_array(const NDArray& actual, DType dtype, const Shape& shape,
                         const std::vector<double>& expected, double rtol = 1e-6,
                         double atol = 1e-6, const std::string& what = "") {
  ASSERT_EQ(actual.dtype(), dtype) << what << ": got " << actual.dtype().to_string();
  ASSERT_EQ(actual.shape(), shape) << what;
  ASSERT_EQ(actual.size(), static_cast<int64_t>(expected.size())) << what;
  int failures = 0;
  for (int64_t k = 0; k < actual.size() && failures < 5; ++k) {
    double a = element(actual, k), e = expected[static_cast<size_t>(k)];
    if (close(a, e, rtol, atol)) continue;
    ++failures;
    ADD_FAILURE() << what << " " << dtype.to_string() << " element " << k << ": got " << a
                  << ", expected " << e;
  }
}

/// Checks a floating-point result whose elements are of type T against a reference within
/// `tolerance`, absolute and relative.
template <class T = float, class E = double>
void expect_close(const NDArray& actual, const Shape& shape, const std::vector<E>& expected,
                  double tolerance = 1e-4) {
  expect_array(actual, dtype_of<T>(), shape, std::vector<double>(expected.begin(), expected.end()),
               tolerance, tolerance);
}

// ---- One-node graphs ----------------------------------------------------------------------

/// "x0", "y1", ... (built without `"x" + std::string`, which trips GCC 12's -Wrestrict).
inline std::string value_name(char prefix, size_t index) {
  std::string name(1, prefix);
  name += std::to_string(index);
  return name;
}

/// Adds to `g` a node calling `op_type` at `opset` on graph inputs typed like `inputs`
/// (nullptr: omitted), with `num_outputs` outputs.
inline graph::Node* add_op(graph::Graph& g, const std::string& op_type,
                           const std::vector<const NDArray*>& inputs, Attributes attributes = {},
                           int opset = 17, size_t num_outputs = 1) {
  graph::Node n;
  n.name = "n";
  n.op_type = op_type;
  n.opset = opset;
  n.attributes = std::move(attributes);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]) {
      n.inputs.push_back(nullptr);
      continue;
    }
    auto type = graph::TensorType::of(graph::to_data_type(inputs[i]->dtype()), inputs[i]->shape());
    graph::Value* v = g.add_value(value_name('x', i), type);
    g.add_input(v);
    n.inputs.push_back(v);
  }
  for (size_t k = 0; k < num_outputs; ++k)
    n.outputs.push_back(g.add_value(value_name('y', k), graph::TensorType()));
  return g.add_node(std::move(n));
}

/// Every output of a one-node graph calling `op_type` at `opset` on `inputs` (nullptr:
/// omitted) with `num_outputs` outputs, run once.
inline std::vector<NDArray> run_op_outputs(const std::string& op_type,
                                           const std::vector<const NDArray*>& inputs,
                                           Attributes attributes = {}, int opset = 17,
                                           size_t num_outputs = 1) {
  graph::Graph g;
  graph::Node* node = add_op(g, op_type, inputs, std::move(attributes), opset, num_outputs);
  return executor::run_node(*node, inputs);
}

/// The one output of `op_type` on `inputs`.
inline NDArray run_op(const std::string& op_type, const std::vector<const NDArray*>& inputs,
                      Attributes attributes = {}, int opset = 17) {
  std::vector<NDArray> outputs = run_op_outputs(op_type, inputs, std::move(attributes), opset);
  EXPECT_EQ(outputs.size(), 1u);
  return std::move(outputs.at(0));
}

// ---- Errors -------------------------------------------------------------------------------

/// Expects `run` to throw a CompileError whose message contains every one of `texts`.
inline void expect_compile_error(const std::function<void()>& run,
                                 std::initializer_list<std::string> texts) {
  try {
    run();
    ADD_FAILURE() << "no CompileError; expected one containing '" << *texts.begin() << "'";
  } catch (const CompileError& e) {
    for (const std::string& text : texts)
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos)
          << "message '" << e.what() << "' lacks '" << text << "'";
  }
}

/// Expects `run` to throw a CompileError whose message contains `text`.
inline void expect_compile_error(const std::function<void()>& run, const std::string& text) {
  expect_compile_error(run, std::initializer_list<std::string>{text});
}

}  // namespace tessel::ops::testing
