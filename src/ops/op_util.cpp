// Shared helpers of the operator library (see op_util.h).
#include "ops/op_util.h"

#include <sstream>

#include "ops/target_budget.h"
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

std::vector<int64_t> static_shape(const te::Tensor& tensor) {
  std::vector<int64_t> result;
  for (const ir::Expr& extent : tensor.shape()) {
    const auto* imm = extent.as<ir::IntImmNode>();
    TESSEL_ICHECK(imm != nullptr, "tensor ", tensor.name(), " has a non-constant extent");
    result.push_back(imm->value);
  }
  return result;
}

int64_t constant_dim(const te::Tensor& tensor, int d, const std::string& op) {
  const int64_t* v = ir::as_const_int(tensor.shape()[d]);
  if (!v) TESSEL_USER_ERROR(op, ": dimension ", d, " of '", tensor.name(), "' must be a constant");
  return *v;
}

int64_t shape_size(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t extent : shape) n *= extent;
  return n;
}

void schedule_generic(schedule::Schedule& s, const std::vector<te::Tensor>& outputs,
                      const target::Target& target) {
  for (const te::Tensor& out : outputs) {
    const schedule::Stage& stage = s.stage(out);
    if (stage.is_transformed() || stage.is_placeholder()) continue;
    std::vector<std::string> spatial;
    for (const std::string& root : stage.roots)
      if (stage.find_loop(root)->kind == ir::IterKind::DataPar) spatial.push_back(root);
    if (spatial.empty()) continue;
    bool has_reduction = spatial.size() < stage.roots.size();
    std::vector<int64_t> shape = static_shape(out);
    int lanes = target.float_lanes();
    if (!has_reduction && out.dtype() == ir::DataType::Float(32) && shape.back() >= lanes) {
      auto [outer, inner] = s.split(out, spatial.back(), lanes);
      s.vectorize(out, inner);
      spatial.back() = outer;
    }
    if (shape_size(shape) < kParallelMinElements) continue;
    std::string outermost = spatial.front();
    if (spatial.size() >= 3) {
      for (size_t k = 1; k + 1 < spatial.size(); ++k) outermost = s.fuse(out, outermost, spatial[k]);
    }
    s.parallel(out, outermost);
  }
}

}  // namespace tessel::ops
