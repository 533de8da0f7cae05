// element_as_double: one switch over the dtypes the runtime knows.
#include "runtime/ndarray_element.h"

#include <cstring>

namespace tessel::runtime {

double element_as_double(const NDArray& array, int64_t k) {
  const void* p = array.data();
  DType t = array.dtype();
  switch (t.code) {
    case DTypeCode::Float:
      if (t.bits == 16) return static_cast<double>(static_cast<const _Float16*>(p)[k]);
      if (t.bits == 32) return static_cast<const float*>(p)[k];
      return static_cast<const double*>(p)[k];
    case DTypeCode::Int:
      if (t.bits == 8) return static_cast<const int8_t*>(p)[k];
      if (t.bits == 16) return static_cast<const int16_t*>(p)[k];
      if (t.bits == 32) return static_cast<const int32_t*>(p)[k];
      return static_cast<double>(static_cast<const int64_t*>(p)[k]);
    case DTypeCode::UInt:
      if (t.bits <= 8) return static_cast<const uint8_t*>(p)[k];
      if (t.bits == 16) return static_cast<const uint16_t*>(p)[k];
      if (t.bits == 32) return static_cast<const uint32_t*>(p)[k];
      return static_cast<double>(static_cast<const uint64_t*>(p)[k]);
    case DTypeCode::BFloat: {
      uint32_t bits = static_cast<uint32_t>(static_cast<const uint16_t*>(p)[k]) << 16;
      float v;
      std::memcpy(&v, &bits, 4);
      return v;
    }
  }
  return 0;
}

}  // namespace tessel::runtime
