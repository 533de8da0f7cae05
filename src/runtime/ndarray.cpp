// NDArray allocation, copying and checks.
#include "runtime/ndarray.h"

#include <cstring>
#include <limits>

#include "runtime/error.h"

namespace tessel::runtime {

std::string DType::to_string() const {
  if (code == DTypeCode::UInt && bits == 1) return "bool";
  const char* names[] = {"int", "uint", "float", "bfloat"};
  return names[static_cast<int>(code)] + std::to_string(bits);
}

NDArray::NDArray(std::vector<int64_t> shape, DType dtype)
    : shape_(std::move(shape)), dtype_(dtype) {
  bool valid_bits = dtype.bits == 8 || dtype.bits == 16 || dtype.bits == 32 || dtype.bits == 64 ||
                    (dtype.bits == 1 && dtype.code == DTypeCode::UInt);
  if (!valid_bits || static_cast<int>(dtype.code) > static_cast<int>(DTypeCode::BFloat))
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
}

NDArray NDArray::zeros(std::vector<int64_t> shape, DType dtype) {
  NDArray a(std::move(shape), dtype);
  std::memset(a.data(), 0, static_cast<size_t>(a.nbytes()));
  return a;
}

NDArray NDArray::copy() const {
  if (!data_) return NDArray();
  NDArray c(shape_, dtype_);
  std::memcpy(c.data(), data(), static_cast<size_t>(nbytes()));
  return c;
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
