// TensorType and Dim: printing, static-shape queries and the element-count guard.
#include "graph/tensor_type.h"

#include "support/error.h"

namespace tessel::graph {

std::string Dim::to_string() const {
  if (is_static()) return std::to_string(value);
  return symbol.empty() ? "?" : symbol;
}

TensorType TensorType::of(ir::DataType dtype, const std::vector<int64_t>& shape) {
  TensorType type;
  type.dtype = dtype;
  for (int64_t extent : shape) type.dims.push_back(Dim::of(extent));
  return type;
}

bool TensorType::has_static_shape() const {
  for (const Dim& d : dims)
    if (!d.is_static()) return false;
  return true;
}

std::vector<int64_t> TensorType::shape() const {
  std::vector<int64_t> result;
  for (const Dim& d : dims) {
    if (!d.is_static())
      TESSEL_USER_ERROR("shape ", to_string(), " has the symbolic dimension '", d.to_string(),
                        "' where a static shape is needed");
    result.push_back(d.value);
  }
  return result;
}

int64_t TensorType::num_elements() const { return checked_num_elements(shape(), to_string()); }

std::string TensorType::to_string() const {
  std::string text = dtype.to_string() + "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + dims[i].to_string();
  return text + "]";
}

int64_t checked_num_elements(const std::vector<int64_t>& shape, const std::string& what) {
  int64_t count = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0)
      TESSEL_USER_ERROR(what, ": dimension ", i, " is ", shape[i], ", expected >= 0");
    if (shape[i] != 0 && count > kMaxTensorElements / shape[i])
      TESSEL_USER_ERROR(what, ": shape has more than 2^34 elements (dimension ", i, " is ",
                        shape[i], ")");
    count *= shape[i];
  }
  return count;
}

}  // namespace tessel::graph
