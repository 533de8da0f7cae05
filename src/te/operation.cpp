// Operations and tensors: construction, checks, discovery of the tensors a body reads, and
// static shapes.
#include "te/operation.h"

#include <set>
#include <utility>

#include "ir/functor.h"
#include "support/error.h"

namespace tessel::te {

// ---- Tensor ---------------------------------------------------------------------------

Tensor::Tensor(ir::Buffer buffer) : buffer_(std::move(buffer)) {
  if (!as_tensor_buffer(buffer_))
    TESSEL_USER_ERROR("buffer '", buffer_.defined() ? buffer_->name : "<undefined>",
                      "' is not the buffer of a tensor");
}

Tensor::Tensor(const Operation& op, int value_index)
    : buffer_(new TensorBufferNode(op, value_index)) {}

const Operation& Tensor::op() const {
  return static_cast<const TensorBufferNode*>(buffer_.get())->op;
}

int Tensor::value_index() const {
  return static_cast<const TensorBufferNode*>(buffer_.get())->value_index;
}

Expr Tensor::operator()(std::vector<Expr> indices) const {
  if (!defined()) TESSEL_USER_ERROR("indexing an undefined tensor");
  if (static_cast<int>(indices.size()) != ndim())
    TESSEL_USER_ERROR("tensor '", name(), "' has ", ndim(), " dimensions, indexed with ",
                      indices.size(), " indices");
  for (size_t d = 0; d < indices.size(); ++d) {
    if (!indices[d].defined() || !indices[d].dtype().is_integer() ||
        !indices[d].dtype().is_scalar())
      TESSEL_USER_ERROR("tensor '", name(), "': index ", d, " must be a scalar integer, got ",
                        indices[d].defined() ? indices[d].dtype().to_string() : "undefined");
    if (indices[d].dtype() != DataType::Index())
      indices[d] = ir::cast(DataType::Index(), indices[d]);
  }
  return ir::make_Load(buffer_, std::move(indices));
}

bool Tensor::operator==(const Tensor& other) const {
  if (!defined() || !other.defined()) return defined() == other.defined();
  return op().same_as(other.op()) && value_index() == other.value_index();
}

Tensor OperationNode::output(int i) const {
  TESSEL_ICHECK(i >= 0 && i < num_outputs(), "operation '", name, "' has no output ", i);
  return Tensor(Operation(this), i);
}

TensorBufferNode::TensorBufferNode(const Operation& op, int value_index)
    : ir::BufferNode(op->output_names.at(value_index),
                     Var(op->output_names.at(value_index), DataType::Handle()),
                     op->output_dtypes.at(value_index), op->shape, ir::MemoryScope::Global),
      op(op),
      value_index(value_index) {}

const TensorBufferNode* as_tensor_buffer(const ir::Buffer& buffer) {
  return dynamic_cast<const TensorBufferNode*>(buffer.get());
}

std::vector<int64_t> static_shape(const Tensor& tensor) {
  std::vector<int64_t> result;
  for (const ir::Expr& extent : tensor.shape()) {
    const auto* imm = extent.as<ir::IntImmNode>();
    TESSEL_ICHECK(imm != nullptr, "tensor ", tensor.name(), " has a non-constant extent");
    result.push_back(imm->value);
  }
  return result;
}

int64_t shape_size(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t extent : shape) n *= extent;
  return n;
}

// ---- reads ----------------------------------------------------------------------------

namespace {

class ReadCollector : public ir::IRVisitor {
 public:
  void visit_buffer(const ir::Buffer& b) override {
    const TensorBufferNode* t = as_tensor_buffer(b);
    if (!t) {
      foreign = b;
      return;
    }
    if (seen_.insert({t->op.get(), t->value_index}).second) reads.emplace_back(b);
  }
  std::vector<Tensor> reads;
  ir::Buffer foreign;

 private:
  std::set<std::pair<const OperationNode*, int>> seen_;
};

/// Checks that a Reduce appears only as a whole body.
class NestedReduceFinder : public ir::IRVisitor {
 public:
  void visit_Reduce(const ir::ReduceNode*) override { found = true; }
  bool found = false;
};

bool same_axes(const std::vector<IterVar>& a, const std::vector<IterVar>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!a[i].var.same_as(b[i].var)) return false;
  return true;
}

/// The reduction axes of `bodies`: all reductions over the same axes, or none.
std::vector<IterVar> reduction_axes(const std::string& name, const std::vector<Expr>& bodies) {
  const ir::ReduceNode* first = bodies[0].as<ir::ReduceNode>();
  for (size_t i = 0; i < bodies.size(); ++i) {
    const auto* r = bodies[i].as<ir::ReduceNode>();
    if (bool(r) != bool(first))
      TESSEL_USER_ERROR("compute '", name, "': output ", i,
                        first ? " is not a reduction while output 0 is"
                              : " is a reduction while output 0 is not");
    NestedReduceFinder nested;
    if (r) {
      nested.visit(r->source);
      nested.visit(r->condition);
      if (!same_axes(r->axes, first->axes))
        TESSEL_USER_ERROR("compute '", name, "': output ", i,
                          " reduces over other axes than output 0");
    } else {
      nested.visit(bodies[i]);
    }
    if (nested.found)
      TESSEL_USER_ERROR("compute '", name, "': a reduction must be the whole body of output ", i,
                        ", found one nested inside it");
  }
  return first ? first->axes : std::vector<IterVar>{};
}

}  // namespace

std::vector<Tensor> tensors_read(const std::vector<Expr>& exprs) {
  ReadCollector c;
  for (const Expr& e : exprs) c.visit(e);
  return c.reads;
}

// ---- compute construction -------------------------------------------------------------

Operation make_compute_op(std::string name, std::vector<Expr> shape, std::vector<IterVar> axis,
                          std::vector<Expr> bodies, std::vector<std::string> output_names) {
  if (name.empty()) TESSEL_USER_ERROR("compute: the name must not be empty");
  if (bodies.empty()) TESSEL_USER_ERROR("compute '", name, "': no output body");
  TESSEL_ICHECK(axis.size() == shape.size(), "compute '", name, "': axis/shape mismatch");
  TESSEL_ICHECK(output_names.size() == bodies.size(), "compute '", name, "': names/bodies");
  std::vector<DataType> dtypes;
  for (size_t i = 0; i < bodies.size(); ++i) {
    if (!bodies[i].defined())
      TESSEL_USER_ERROR("compute '", name, "': output ", i, " is undefined");
    if (!bodies[i].dtype().is_scalar())
      TESSEL_USER_ERROR("compute '", name, "': output ", i, " must be a scalar, got ",
                        bodies[i].dtype().to_string());
    dtypes.push_back(bodies[i].dtype());
  }
  std::vector<IterVar> reduce_axis = reduction_axes(name, bodies);
  std::set<std::string> names;
  for (const auto* list : {&axis, &reduce_axis})
    for (const IterVar& iv : *list)
      if (!names.insert(iv.var.name()).second)
        TESSEL_USER_ERROR("compute '", name, "': two axes are named '", iv.var.name(), "'");
  ReadCollector reads;
  for (const Expr& b : bodies) reads.visit(b);
  if (reads.foreign.defined())
    TESSEL_USER_ERROR("compute '", name, "' reads buffer '", reads.foreign->name,
                      "', which is not a tensor");
  return ir::make_ref<OperationNode>(OpKind::Compute, std::move(name), std::move(shape),
                                     std::move(output_names), std::move(dtypes), std::move(axis),
                                     std::move(reduce_axis), std::move(bodies),
                                     std::move(reads.reads));
}

}  // namespace tessel::te
