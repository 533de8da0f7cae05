// Shared helpers of the operator library (see op_util.h).
#include "ops/op_util.h"

#include <sstream>

#include "support/error.h"

namespace tessel::ops {

int64_t normalize_axis(const OpContext& ctx, int64_t axis, int64_t rank, const std::string& what) {
  if (axis < -rank || axis >= rank)
    ctx.fail(what + " " + std::to_string(axis) + " is out of range for rank " +
             std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> broadcast_shapes(const OpContext& ctx,
                                      const std::vector<std::vector<int64_t>>& shapes) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<int64_t> result(rank, 1);
  for (const auto& s : shapes) {
    size_t offset = rank - s.size();
    for (size_t d = 0; d < s.size(); ++d) {
      int64_t& r = result[offset + d];
      if (s[d] == r || s[d] == 1) continue;
      if (r != 1) {
        std::ostringstream text;
        for (size_t t = 0; t < shapes.size(); ++t) {
          text << (t ? " and [" : "[");
          for (size_t k = 0; k < shapes[t].size(); ++k) text << (k ? "," : "") << shapes[t][k];
          text << "]";
        }
        ctx.fail("shapes " + text.str() + " cannot be broadcast together");
      }
      r = s[d];
    }
  }
  return result;
}

ir::Expr broadcast_load(const te::Tensor& tensor, const std::vector<te::Var>& index) {
  size_t rank = static_cast<size_t>(tensor.ndim());
  TESSEL_ICHECK(index.size() >= rank, "broadcast_load of ", tensor.name(), ": ", index.size(),
                " indices for rank ", rank);
  size_t offset = index.size() - rank;
  std::vector<ir::Expr> at;
  for (size_t d = 0; d < rank; ++d) {
    const auto* extent = tensor.shape()[d].as<ir::IntImmNode>();
    bool unit = extent && extent->value == 1;
    at.push_back(unit ? ir::Expr(int64_t{0}) : ir::Expr(index[offset + d]));
  }
  return tensor(at);
}

std::vector<ir::Expr> shape_exprs(const std::vector<int64_t>& shape) {
  std::vector<ir::Expr> result;
  for (int64_t extent : shape) result.push_back(ir::Expr(extent));
  return result;
}

int64_t constant_dim(const te::Tensor& tensor, int d, const std::string& op) {
  const int64_t* v = ir::as_const_int(tensor.shape()[d]);
  if (!v) TESSEL_USER_ERROR(op, ": dimension ", d, " of '", tensor.name(), "' must be a constant");
  return *v;
}

}  // namespace tessel::ops
