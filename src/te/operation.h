// Tensors and the operations that produce them: the nodes of a tensor-expression DAG.
//
// An Operation is an immutable, reference-counted node: a placeholder (an input) or a
// compute (one body per output over index variables, optionally a reduction). A Tensor is
// one output of an operation. Every Tensor is seen through a logical ir::Buffer with the
// tensor's full shape (a TensorBufferNode, which remembers the producing operation):
// `A(i, j)` builds an ir Load of that buffer, so compute bodies are ordinary loop-IR
// expressions, and lowering maps each logical buffer to real storage.
//
// A tensor's identity is (operation, output index); two Tensor handles of the same output
// may hold distinct logical buffers. Operations hold no reference to their output buffers,
// so the DAG has no reference cycles.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace tessel::te {

using ir::DataType;
using ir::Expr;
using ir::IterVar;
using ir::Var;

struct OperationNode;
/// Handle to an operation node.
using Operation = ir::Ref<OperationNode>;

namespace detail {
/// An index of a tensor access: any integer expression, or a reduction axis itself.
inline Expr index_expr(const Expr& e) {
  return e;
}
inline Expr index_expr(const IterVar& iv) {
  return iv.var;
}
}  // namespace detail

/// One output of an operation.
class Tensor {
 public:
  Tensor() = default;
  /// The tensor seen through `buffer`, a logical tensor buffer (CompileError otherwise).
  explicit Tensor(ir::Buffer buffer);
  /// Output `value_index` of `op`, with a fresh logical buffer.
  Tensor(const Operation& op, int value_index);

  bool defined() const { return buffer_.defined(); }
  const Operation& op() const;
  int value_index() const;
  const std::string& name() const { return buffer_->name; }
  DataType dtype() const { return buffer_->dtype; }
  const std::vector<Expr>& shape() const { return buffer_->shape; }
  int ndim() const { return buffer_.ndim(); }
  /// The logical buffer that loads of this tensor read.
  const ir::Buffer& buffer() const { return buffer_; }

  /// A load of this tensor at `indices` (one per dimension; CompileError naming the tensor
  /// otherwise). Indices are integer expressions or reduction axes (`A(i, k)`).
  Expr operator()(std::vector<Expr> indices) const;
  template <class... Index>
  Expr operator()(const Index&... indices) const {
    return (*this)(std::vector<Expr>{detail::index_expr(indices)...});
  }

  /// Same operation and output index.
  bool operator==(const Tensor& other) const;
  bool operator!=(const Tensor& other) const { return !(*this == other); }

 private:
  ir::Buffer buffer_;
};

enum class OpKind : uint8_t { Placeholder, Compute };

/// An operation: a placeholder or a compute. Immutable once built.
struct OperationNode : ir::Object {
  OperationNode(OpKind kind, std::string name, std::vector<Expr> shape,
                std::vector<std::string> output_names, std::vector<DataType> output_dtypes,
                std::vector<IterVar> axis, std::vector<IterVar> reduce_axis,
                std::vector<Expr> bodies, std::vector<Tensor> inputs)
      : kind(kind),
        name(std::move(name)),
        shape(std::move(shape)),
        output_names(std::move(output_names)),
        output_dtypes(std::move(output_dtypes)),
        axis(std::move(axis)),
        reduce_axis(std::move(reduce_axis)),
        bodies(std::move(bodies)),
        inputs(std::move(inputs)) {}

  const OpKind kind;
  /// The stage name: unique within a DAG.
  const std::string name;
  /// The shape shared by every output.
  const std::vector<Expr> shape;
  const std::vector<std::string> output_names;
  const std::vector<DataType> output_dtypes;
  /// Compute only: one data-parallel iteration variable per dimension, over [0, shape[d]).
  const std::vector<IterVar> axis;
  /// Compute only: the reduction axes shared by every body (empty without a reduction).
  const std::vector<IterVar> reduce_axis;
  /// Compute only: one body per output; with a reduction, each body is an ir Reduce.
  const std::vector<Expr> bodies;
  /// Compute only: the tensors the bodies read, in order of first read.
  const std::vector<Tensor> inputs;

  int num_outputs() const { return static_cast<int>(output_names.size()); }
  bool is_placeholder() const { return kind == OpKind::Placeholder; }
  bool has_reduction() const { return !reduce_axis.empty(); }
  /// Output `i` with a fresh logical buffer.
  Tensor output(int i) const;
};

/// The logical buffer of a tensor: an ir Buffer that remembers its producer.
struct TensorBufferNode : ir::BufferNode {
  TensorBufferNode(const Operation& op, int value_index);
  const Operation op;
  const int value_index;
};

/// The tensor behind `buffer` when it is a logical tensor buffer, else nullptr.
const TensorBufferNode* as_tensor_buffer(const ir::Buffer& buffer);

/// Builds a compute operation after checking it (CompileError naming `name` otherwise):
/// integer shape, one axis per dimension, bodies all reductions over the same axes or none,
/// unique axis names. The inputs are collected from the bodies.
Operation make_compute_op(std::string name, std::vector<Expr> shape, std::vector<IterVar> axis,
                          std::vector<Expr> bodies, std::vector<std::string> output_names);

/// The tensors that `e` reads, in order of first read, without repeats.
std::vector<Tensor> tensors_read(const std::vector<Expr>& exprs);

/// The extents of `tensor`'s shape (fails on a non-constant extent).
std::vector<int64_t> static_shape(const Tensor& tensor);
/// Product of a shape's extents.
int64_t shape_size(const std::vector<int64_t>& shape);

}  // namespace tessel::te
