// TensorType: the type of a value in the graph IR: an element type and a shape whose
// dimensions are constants or named symbols (e.g. a dynamic batch "N").
//
// Kernels are always compiled for static shapes: the executor binds every symbol from the
// inputs it is given before it compiles. A rank that is not known at all is not represented;
// every value has a rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/type.h"

namespace tessel::graph {

/// One dimension: a constant extent (>= 0), or a symbol whose extent is bound at run time.
struct Dim {
  int64_t value = -1;
  std::string symbol;

  static Dim of(int64_t extent) { return Dim{extent, {}}; }
  static Dim named(std::string name) { return Dim{-1, std::move(name)}; }
  bool is_static() const { return value >= 0; }
  bool operator==(const Dim& o) const { return value == o.value && symbol == o.symbol; }
  /// "7", "N", or "?" for an anonymous unknown dimension.
  std::string to_string() const;
};

/// Element type and shape of a tensor value.
struct TensorType {
  ir::DataType dtype = ir::DataType::Float(32);
  std::vector<Dim> dims;

  /// A type with a fully static shape.
  static TensorType of(ir::DataType dtype, const std::vector<int64_t>& shape);
  int rank() const { return static_cast<int>(dims.size()); }
  bool has_static_shape() const;
  /// The static shape; throws CompileError when a dimension is symbolic.
  std::vector<int64_t> shape() const;
  /// Number of elements of a static shape (1 for rank 0).
  int64_t num_elements() const;
  bool operator==(const TensorType& o) const { return dtype == o.dtype && dims == o.dims; }
  bool operator!=(const TensorType& o) const { return !(*this == o); }
  /// "float32[2, N, 4]".
  std::string to_string() const;
};

/// Largest element count a single tensor may have (guards against absurd shapes in a
/// model before anything is allocated): 2^34 elements.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 34;

/// The element count of `shape`; throws CompileError naming `what` when a dimension is
/// negative or the product exceeds kMaxTensorElements.
int64_t checked_num_elements(const std::vector<int64_t>& shape, const std::string& what);

}  // namespace tessel::graph
