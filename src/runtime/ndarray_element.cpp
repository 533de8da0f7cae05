// element_as_long_double and set_element_from_double: one switch each over the dtypes the
// runtime knows.
#include "runtime/ndarray_element.h"

#include <cstring>

#include "runtime/error.h"

namespace tessel::runtime {

long double element_as_long_double(const void* p, DType t, int64_t k) {
  switch (t.code) {
    case DTypeCode::Float:
      if (t.bits == 16) return static_cast<long double>(static_cast<const _Float16*>(p)[k]);
      if (t.bits == 32) return static_cast<const float*>(p)[k];
      return static_cast<const double*>(p)[k];
    case DTypeCode::Int:
      if (t.bits == 8) return static_cast<const int8_t*>(p)[k];
      if (t.bits == 16) return static_cast<const int16_t*>(p)[k];
      if (t.bits == 32) return static_cast<const int32_t*>(p)[k];
      return static_cast<long double>(static_cast<const int64_t*>(p)[k]);
    case DTypeCode::UInt:
      if (t.bits <= 8) return static_cast<const uint8_t*>(p)[k];
      if (t.bits == 16) return static_cast<const uint16_t*>(p)[k];
      if (t.bits == 32) return static_cast<const uint32_t*>(p)[k];
      return static_cast<long double>(static_cast<const uint64_t*>(p)[k]);
    case DTypeCode::BFloat: {
      uint32_t bits = static_cast<uint32_t>(static_cast<const uint16_t*>(p)[k]) << 16;
      float v;
      std::memcpy(&v, &bits, 4);
      return v;
    }
    case DTypeCode::String:
      break;
  }
  throw Error("element " + std::to_string(k) + " of type " + t.to_string() +
              " has no numeric value");
}

double element_as_double(const NDArray& array, int64_t k) {
  return static_cast<double>(element_as_long_double(array.data(), array.dtype(), k));
}

void set_element_from_double(NDArray& array, int64_t k, double value) {
  void* p = array.data();
  DType t = array.dtype();
  switch (t.code) {
    case DTypeCode::Float:
      if (t.bits == 16) static_cast<_Float16*>(p)[k] = static_cast<_Float16>(value);
      if (t.bits == 32) static_cast<float*>(p)[k] = static_cast<float>(value);
      if (t.bits == 64) static_cast<double*>(p)[k] = value;
      return;
    case DTypeCode::Int:
      if (t.bits == 8) static_cast<int8_t*>(p)[k] = static_cast<int8_t>(value);
      if (t.bits == 16) static_cast<int16_t*>(p)[k] = static_cast<int16_t>(value);
      if (t.bits == 32) static_cast<int32_t*>(p)[k] = static_cast<int32_t>(value);
      if (t.bits == 64) static_cast<int64_t*>(p)[k] = static_cast<int64_t>(value);
      return;
    case DTypeCode::UInt:
      if (t.bits == 1) static_cast<uint8_t*>(p)[k] = value != 0;
      if (t.bits == 8) static_cast<uint8_t*>(p)[k] = static_cast<uint8_t>(value);
      if (t.bits == 16) static_cast<uint16_t*>(p)[k] = static_cast<uint16_t>(value);
      if (t.bits == 32) static_cast<uint32_t*>(p)[k] = static_cast<uint32_t>(value);
      if (t.bits == 64) static_cast<uint64_t*>(p)[k] = static_cast<uint64_t>(value);
      return;
    case DTypeCode::BFloat: {
      float f = static_cast<float>(value);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      static_cast<uint16_t*>(p)[k] = static_cast<uint16_t>(bits >> 16);
      return;
    }
    case DTypeCode::String:
      throw Error("cannot set element " + std::to_string(k) + " of a string array to a number");
  }
}

}  // namespace tessel::runtime
