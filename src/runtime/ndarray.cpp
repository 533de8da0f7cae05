// NDArray allocation, copying and checks.
#include "runtime/ndarray.h"

#include <cstring>
#include <limits>

#include "runtime/error.h"

namespace tessel::runtime {

std::string DType::to_string() const {
  if (code == DTypeCode::UInt && bits == 1) return "bool";
  if (code == DTypeCode::String) return "string";
  if (code > DTypeCode::BFloat) return "code " + std::to_string(static_cast<int>(code));
  const char* names[] = {"int", "uint", "float", "bfloat"};
  return names[static_cast<int>(code)] + std::to_string(bits);
}

NDArray::NDArray(std::vector<int64_t> shape, DType dtype)
    : shape_(std::move(shape)), dtype_(dtype) {
  bool valid_bits = dtype.bits == 8 || dtype.bits == 16 || dtype.bits == 32 || dtype.bits == 64 ||
                    (dtype.bits == 1 && dtype.code == DTypeCode::UInt);
  bool valid_code = dtype.code <= DTypeCode::BFloat || dtype == DType::String();
  if (!valid_bits || !valid_code)
    throw Error("NDArray: unsupported element type (code " +
                std::to_string(static_cast<int>(dtype.code)) + ", " + std::to_string(dtype.bits) +
                " bits)");
  int64_t n = 1;
  for (size_t i = 0; i < shape_.size(); ++i) {
    int64_t d = shape_[i];
    if (d < 0)
      throw Error("NDArray: dimension " + std::to_string(i) + " is " + std::to_string(d) +
                  ", expected >= 0");
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d / dtype.bytes())
      throw Error("NDArray: shape too large");
    n *= d;
  }
  data_.reset(aligned_alloc_bytes(n * dtype.bytes()));
  if (!data_)
    throw Error("NDArray: cannot allocate " + std::to_string(n * dtype.bytes()) + " bytes");
  if (dtype.is_string()) {
    strings_ = std::make_unique<StringStore>();
    const char* empty = strings_->add("");
    for (int64_t k = 0; k < n; ++k) static_cast<const char**>(data())[k] = empty;
  }
}

NDArray NDArray::zeros(std::vector<int64_t> shape, DType dtype) {
  NDArray a(std::move(shape), dtype);
  if (!dtype.is_string()) std::memset(a.data(), 0, static_cast<size_t>(a.nbytes()));
  return a;
}

NDArray NDArray::copy() const {
  if (!data_) return NDArray();
  NDArray c(shape_, dtype_);
  if (dtype_.is_string()) {
    for (int64_t k = 0; k < size(); ++k) c.set_string(k, string_at(k));
    return c;
  }
  std::memcpy(c.data(), data(), static_cast<size_t>(nbytes()));
  return c;
}

void NDArray::check_string_element(int64_t k) const {
  if (!dtype_.is_string())
    throw Error("NDArray: string element access on an array of " + dtype_.to_string());
  if (k < 0 || k >= size())
    throw Error("NDArray: string element " + std::to_string(k) + " is out of range for " +
                std::to_string(size()) + " elements");
}

std::string_view NDArray::string_at(int64_t k) const {
  check_string_element(k);
  return string_element(data(), k);
}

void NDArray::set_string(int64_t k, std::string_view text) {
  check_string_element(k);
  static_cast<const char**>(data())[k] = strings_->add(text);
}

int64_t NDArray::size() const {
  if (!data_) return 0;
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

void NDArray::check_element_size(size_t bytes) const {
  if (static_cast<int>(bytes) != dtype_.bytes())
    throw Error("NDArray::data_as: element of " + std::to_string(bytes) +
                " bytes requested, array holds " + dtype_.to_string());
}

}  // namespace tessel::runtime
