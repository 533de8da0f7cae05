// Shared machinery of the reduction family (see reduction_util.h).
#include "ops/reduction/reduction_util.h"

#include <algorithm>

#include "ops/op_util.h"
#include "support/error.h"

namespace tessel::ops::reduction {

std::vector<int64_t> normalize_axes(const OpContext& ctx, const std::vector<int64_t>& axes,
                                    int64_t rank, const std::string& what) {
  std::vector<int64_t> result;
  for (int64_t axis : axes) result.push_back(normalize_axis(ctx, axis, rank, what));
  std::sort(result.begin(), result.end());
  if (std::adjacent_find(result.begin(), result.end()) != result.end())
    ctx.fail(what + " " + shape_text(axes) + " name an axis twice");
  return result;
}

std::vector<int64_t> trailing_axes(int64_t first, int64_t rank) {
  std::vector<int64_t> axes;
  for (int64_t a = first; a < rank; ++a) axes.push_back(a);
  return axes;
}

namespace {

bool is_reduced(const std::vector<int64_t>& axes, size_t d) {
  return std::binary_search(axes.begin(), axes.end(), static_cast<int64_t>(d));
}

std::vector<ir::Expr> as_exprs(const std::vector<te::Var>& vars) {
  return std::vector<ir::Expr>(vars.begin(), vars.end());
}

}  // namespace

std::vector<int64_t> reduced_shape(const std::vector<int64_t>& shape,
                                   const std::vector<int64_t>& axes, bool keepdims) {
  std::vector<int64_t> result;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!is_reduced(axes, d))
      result.push_back(shape[d]);
    else if (keepdims)
      result.push_back(1);
  }
  return result;
}

int64_t reduced_count(const std::vector<int64_t>& shape, const std::vector<int64_t>& axes) {
  int64_t count = 1;
  for (int64_t a : axes) count *= shape[static_cast<size_t>(a)];
  return count;
}

te::Tensor reduce_over(const std::vector<int64_t>& in_shape, const std::vector<int64_t>& axes,
                       bool keepdims, ir::ReduceOp op, const IndexFn& source,
                       const std::string& name, const IndexFn& condition) {
  TESSEL_ICHECK(!axes.empty(), "reduce_over '", name, "' without axes");
  auto body = [&](const std::vector<te::Var>& out) {
    std::vector<ir::IterVar> reduce_axes;
    std::vector<ir::Expr> index;
    size_t o = 0;
    for (size_t d = 0; d < in_shape.size(); ++d) {
      if (!is_reduced(axes, d)) {
        index.push_back(out[o++]);
        continue;
      }
      reduce_axes.push_back(
          te::reduce_axis(in_shape[d], std::string("k").append(std::to_string(d))));
      index.push_back(reduce_axes.back().var);
      if (keepdims) ++o;
    }
    ir::Expr cond = condition ? condition(index) : ir::Expr();
    ir::Expr value = source(index);
    return ir::make_Reduce(op, value, reduce_axes, cond);
  };
  return te::compute(shape_exprs(reduced_shape(in_shape, axes, keepdims)), body, name);
}

te::Tensor map_over(const std::vector<int64_t>& shape, const IndexFn& body,
                    const std::string& name) {
  return te::compute(
      shape_exprs(shape), [&](const std::vector<te::Var>& index) { return body(as_exprs(index)); },
      name);
}

ir::Expr load_reduced(const te::Tensor& stat, const std::vector<ir::Expr>& index,
                      const std::vector<int64_t>& axes) {
  TESSEL_ICHECK(static_cast<size_t>(stat.ndim()) == index.size(), "load_reduced of ", stat.name(),
                ": ", index.size(), " indices for rank ", stat.ndim());
  std::vector<ir::Expr> at = index;
  for (int64_t a : axes) at[static_cast<size_t>(a)] = ir::make_int(0);
  return stat(at);
}

std::vector<ir::Expr> expand_index(const std::vector<ir::Expr>& index,
                                   const std::vector<int64_t>& axes, bool keepdims) {
  if (keepdims) return index;
  std::vector<ir::Expr> result;
  size_t o = 0;
  for (size_t d = 0; d < index.size() + axes.size(); ++d)
    result.push_back(is_reduced(axes, d) ? ir::make_int(0) : index[o++]);
  return result;
}

ir::Expr broadcast_at(const te::Tensor& tensor, const std::vector<ir::Expr>& index) {
  auto rank = static_cast<size_t>(tensor.ndim());
  TESSEL_ICHECK(index.size() >= rank, "broadcast_at of ", tensor.name(), ": ", index.size(),
                " indices for rank ", rank);
  size_t offset = index.size() - rank;
  std::vector<ir::Expr> at;
  for (size_t d = 0; d < rank; ++d)
    at.push_back(ir::is_one(tensor.shape()[d]) ? ir::make_int(0) : index[offset + d]);
  return tensor(at);
}

ir::DataType float_compute_type(ir::DataType dtype) {
  if (!dtype.is_float()) return ir::DataType::Float(64);
  return dtype.bits < 32 ? ir::DataType::Float(32) : dtype;
}

void check_float_input(const OpContext& ctx, size_t i, const std::string& what) {
  ir::DataType dtype = ctx.input_type(i).dtype;
  if (!dtype.is_float()) ctx.fail(what + " must be a float tensor, found " + dtype.to_string());
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t d = 0; d < shape.size(); ++d) text += (d ? ", " : "") + std::to_string(shape[d]);
  return text + "]";
}

}  // namespace tessel::ops::reduction
