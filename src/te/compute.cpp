// The tensor-expression DSL: builders of placeholders, computes and reductions.
#include "te/compute.h"

#include "support/error.h"

namespace tessel::te {
namespace {

/// Checks one shape dimension or extent: a scalar integer, widened to the index type.
Expr index_expr(const Expr& e, const std::string& owner, const char* what) {
  if (!e.defined() || !e.dtype().is_integer() || !e.dtype().is_scalar())
    TESSEL_USER_ERROR("'", owner, "': ", what, " must be a scalar integer, got ",
                      e.defined() ? e.dtype().to_string() : "undefined");
  return e.dtype() == DataType::Index() ? e : ir::cast(DataType::Index(), e);
}

std::vector<Expr> checked_shape(std::vector<Expr> shape, const std::string& name) {
  for (size_t d = 0; d < shape.size(); ++d) {
    shape[d] = index_expr(shape[d], name, "shape dimension");
    const int64_t* v = ir::as_const_int(shape[d]);
    if (v && *v < 0)
      TESSEL_USER_ERROR("'", name, "': dimension ", d, " has extent ", *v,
                        ", expected an extent >= 0");
  }
  return shape;
}

std::vector<IterVar> make_axes(const std::vector<Expr>& shape, std::vector<std::string> names,
                               const std::string& op_name) {
  if (names.empty())
    for (size_t d = 0; d < shape.size(); ++d)
      names.push_back(std::string("i").append(std::to_string(d)));
  if (names.size() != shape.size())
    TESSEL_USER_ERROR("compute '", op_name, "': ", names.size(), " axis names for ", shape.size(),
                      " dimensions");
  std::vector<IterVar> axes;
  for (size_t d = 0; d < shape.size(); ++d)
    axes.push_back(IterVar{Var(names[d]), ir::make_int(0), shape[d], ir::IterKind::DataPar});
  return axes;
}

std::vector<Var> axis_vars(const std::vector<IterVar>& axes) {
  std::vector<Var> vars;
  for (const IterVar& iv : axes) vars.push_back(iv.var);
  return vars;
}

Expr reduce(ir::ReduceOp op, Expr source, std::vector<IterVar> axes, Expr condition) {
  if (!source.defined()) TESSEL_USER_ERROR(ir::reduce_op_name(op), ": undefined source");
  if (axes.empty()) TESSEL_USER_ERROR(ir::reduce_op_name(op), ": no reduction axis given");
  if (condition.defined() && (!condition.dtype().is_bool() || !condition.dtype().is_scalar()))
    TESSEL_USER_ERROR(ir::reduce_op_name(op), ": the condition must be a scalar bool, got ",
                      condition.dtype().to_string());
  return ir::make_Reduce(op, std::move(source), std::move(axes), std::move(condition));
}

}  // namespace

Tensor placeholder(std::vector<Expr> shape, DataType dtype, std::string name) {
  if (name.empty()) TESSEL_USER_ERROR("placeholder: the name must not be empty");
  if (!dtype.is_scalar() || dtype.is_handle())
    TESSEL_USER_ERROR("placeholder '", name, "': element type must be a scalar, got ",
                      dtype.to_string());
  shape = checked_shape(std::move(shape), name);
  std::vector<std::string> names{name};
  Operation op = ir::make_ref<OperationNode>(
      OpKind::Placeholder, name, std::move(shape), std::move(names), std::vector<DataType>{dtype},
      std::vector<IterVar>{}, std::vector<IterVar>{}, std::vector<Expr>{}, std::vector<Tensor>{});
  return op->output(0);
}

IterVar reduce_axis(Expr extent, std::string name) {
  return reduce_axis(ir::make_int(0), std::move(extent), std::move(name));
}

IterVar reduce_axis(Expr min, Expr extent, std::string name) {
  if (name.empty()) TESSEL_USER_ERROR("reduce_axis: the name must not be empty");
  min = index_expr(min, name, "reduction axis min");
  extent = index_expr(extent, name, "reduction axis extent");
  const int64_t* v = ir::as_const_int(extent);
  if (v && *v < 0)  // an empty axis reduces to the identity
    TESSEL_USER_ERROR("reduce_axis '", name, "': extent ", *v, ", expected an extent >= 0");
  return IterVar{Var(std::move(name)), std::move(min), std::move(extent), ir::IterKind::Reduce};
}

Expr sum(Expr source, std::vector<IterVar> axes, Expr condition) {
  return reduce(ir::ReduceOp::Sum, std::move(source), std::move(axes), std::move(condition));
}
Expr prod(Expr source, std::vector<IterVar> axes, Expr condition) {
  return reduce(ir::ReduceOp::Prod, std::move(source), std::move(axes), std::move(condition));
}
Expr min_reduce(Expr source, std::vector<IterVar> axes, Expr condition) {
  return reduce(ir::ReduceOp::Min, std::move(source), std::move(axes), std::move(condition));
}
Expr max_reduce(Expr source, std::vector<IterVar> axes, Expr condition) {
  return reduce(ir::ReduceOp::Max, std::move(source), std::move(axes), std::move(condition));
}

Tensor compute_body(std::vector<Expr> shape, const ComputeBody& body, std::string name,
                    std::vector<std::string> axis_names) {
  shape = checked_shape(std::move(shape), name);
  std::vector<IterVar> axes = make_axes(shape, std::move(axis_names), name);
  Expr value = body(axis_vars(axes));
  std::vector<std::string> names{name};
  Operation op = make_compute_op(name, std::move(shape), std::move(axes), {std::move(value)},
                                 std::move(names));
  return op->output(0);
}

std::vector<Tensor> compute_multi_body(std::vector<Expr> shape, const MultiComputeBody& body,
                                       std::string name, std::vector<std::string> axis_names) {
  shape = checked_shape(std::move(shape), name);
  std::vector<IterVar> axes = make_axes(shape, std::move(axis_names), name);
  std::vector<Expr> values = body(axis_vars(axes));
  std::vector<std::string> names;
  for (size_t i = 0; i < values.size(); ++i) names.push_back(name + ".v" + std::to_string(i));
  Operation op =
      make_compute_op(name, std::move(shape), std::move(axes), std::move(values), std::move(names));
  std::vector<Tensor> outputs;
  for (int i = 0; i < op->num_outputs(); ++i) outputs.push_back(op->output(i));
  return outputs;
}

namespace detail {
void arity_mismatch(const std::string& name, int arity, size_t ndim) {
  TESSEL_USER_ERROR("compute '", name, "': the body takes ", arity,
                    " index variables, the shape has ", ndim, " dimensions");
}
}  // namespace detail

}  // namespace tessel::te
