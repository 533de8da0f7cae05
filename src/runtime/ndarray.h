// NDArray: an owning, 64-byte aligned, dense row-major tensor in host memory.
//
// This is what host programs hand to kernels: a kernel's argument i is the data pointer
// of the i-th array. The element type mirrors the compiler's scalar DataType codes
// (Int, UInt, Float, BFloat; bool is UInt with 1 bit, stored in one byte) without
// depending on the compiler. A string array's elements are `const char*`, each pointing
// to NUL-terminated UTF-8 text that the array owns (set_string, string_at).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/memory.h"
#include "runtime/string_store.h"

namespace tessel::runtime {

/// Element kinds; the numbering matches tessel::ir::TypeCode (4 is the compiler's Handle).
enum class DTypeCode : uint8_t { Int = 0, UInt = 1, Float = 2, BFloat = 3, String = 5 };

/// A scalar element type: {code, bits}.
struct DType {
  DTypeCode code = DTypeCode::Float;
  uint8_t bits = 32;

  static constexpr DType Float(int bits) { return {DTypeCode::Float, static_cast<uint8_t>(bits)}; }
  static constexpr DType Int(int bits) { return {DTypeCode::Int, static_cast<uint8_t>(bits)}; }
  static constexpr DType UInt(int bits) { return {DTypeCode::UInt, static_cast<uint8_t>(bits)}; }
  static constexpr DType BFloat(int bits) {
    return {DTypeCode::BFloat, static_cast<uint8_t>(bits)};
  }
  static constexpr DType Bool() { return UInt(1); }
  /// Text: each element a `const char*` to NUL-terminated UTF-8.
  static constexpr DType String() { return {DTypeCode::String, 64}; }
  constexpr bool is_string() const { return code == DTypeCode::String; }
  /// Bytes per element (bool takes one byte).
  constexpr int bytes() const { return bits == 1 ? 1 : bits / 8; }
  constexpr bool operator==(const DType& o) const { return code == o.code && bits == o.bits; }
  constexpr bool operator!=(const DType& o) const { return !(*this == o); }
  /// "float32", "int8", "bool", "string", ...
  std::string to_string() const;
};

/// An owning n-dimensional array with 64-byte aligned data. Move-only; `copy()` clones.
class NDArray {
 public:
  /// An array with no data (ndim 0, size 0, data() == nullptr).
  NDArray() = default;
  /// Allocates an array of `shape` (every dimension >= 0) with uninitialised contents (a
  /// string array's elements are empty strings). Throws Error for a negative dimension, an
  /// invalid dtype or a failed allocation.
  NDArray(std::vector<int64_t> shape, DType dtype);
  /// Like the constructor, with every byte zero.
  static NDArray zeros(std::vector<int64_t> shape, DType dtype);

  NDArray(NDArray&&) noexcept = default;
  NDArray& operator=(NDArray&&) noexcept = default;
  NDArray(const NDArray&) = delete;
  NDArray& operator=(const NDArray&) = delete;

  /// A deep copy (a string array's copy owns copies of the strings).
  NDArray copy() const;

  /// String arrays: element k's text, and setting it (the array keeps a copy). Throw Error
  /// for another dtype, an element out of range, or text holding a NUL character.
  std::string_view string_at(int64_t k) const;
  void set_string(int64_t k, std::string_view text);

  const std::vector<int64_t>& shape() const { return shape_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  DType dtype() const { return dtype_; }
  /// Number of elements.
  int64_t size() const;
  /// Size of the data in bytes.
  int64_t nbytes() const { return size() * dtype_.bytes(); }
  void* data() { return data_.get(); }
  const void* data() const { return data_.get(); }
  /// The data as T*; throws Error when sizeof(T) differs from the element size.
  template <class T>
  T* data_as() {
    check_element_size(sizeof(T));
    return static_cast<T*>(data());
  }
  template <class T>
  const T* data_as() const {
    check_element_size(sizeof(T));
    return static_cast<const T*>(data());
  }

 private:
  struct Free {
    void operator()(void* p) const noexcept { aligned_free(p); }
  };
  void check_element_size(size_t bytes) const;
  void check_string_element(int64_t k) const;

  std::vector<int64_t> shape_;
  DType dtype_;
  std::unique_ptr<void, Free> data_;
  /// A string array's text, which its elements point into.
  std::unique_ptr<StringStore> strings_;
};

}  // namespace tessel::runtime
