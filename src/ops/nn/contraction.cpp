// Matrix products with numpy semantics (see contraction.h).
#include "ops/nn/contraction.h"

#include "ops/op_util.h"
#include "support/error.h"

namespace tessel::ops::nn {

MatmulShape matmul_shape(const OpContext& ctx, const std::vector<int64_t>& a,
                         const std::vector<int64_t>& b) {
  if (a.empty() || b.empty())
    ctx.fail("matrix product of " + shape_text(a) + " and " + shape_text(b) +
             ": operands must have rank >= 1");
  MatmulShape shape;
  shape.a = a;
  shape.b = b;
  shape.m = a.size() >= 2 ? a[a.size() - 2] : 1;
  shape.k = a.back();
  int64_t b_k = b.size() >= 2 ? b[b.size() - 2] : b[0];
  shape.n = b.size() >= 2 ? b.back() : 1;
  if (shape.k != b_k)
    ctx.fail("matrix product of " + shape_text(a) + " and " + shape_text(b) +
             ": contracted extents " + std::to_string(shape.k) + " and " + std::to_string(b_k) +
             " differ");
  std::vector<int64_t> a_batch(a.begin(), a.end() - std::min<int64_t>(2, a.size()));
  std::vector<int64_t> b_batch(b.begin(), b.end() - std::min<int64_t>(2, b.size()));
  shape.batch = broadcast_shapes(ctx, {a_batch, b_batch});
  shape.output = shape.batch;
  if (a.size() >= 2) shape.output.push_back(shape.m);
  if (b.size() >= 2) shape.output.push_back(shape.n);
  return shape;
}

namespace {

/// The index of an operand of shape `operand` at batch index `batch` (aligned on the right;
/// extents of 1 read 0) and matrix position (`row`, `col`); a 1-D operand reads at `col`.
std::vector<ir::Expr> operand_index(const std::vector<int64_t>& operand,
                                    const std::vector<ir::Expr>& batch, const ir::Expr& row,
                                    const ir::Expr& col) {
  size_t matrix_rank = operand.size() >= 2 ? 2 : 1;
  size_t batch_rank = operand.size() - matrix_rank;
  std::vector<ir::Expr> index;
  for (size_t d = 0; d < batch_rank; ++d) {
    const ir::Expr& var = batch[batch.size() - batch_rank + d];
    index.push_back(operand[d] == 1 ? ir::Expr(int64_t{0}) : var);
  }
  if (matrix_rank == 2) index.push_back(row);
  index.push_back(col);
  return index;
}

}  // namespace

te::Tensor matmul_nd(const MatmulShape& shape, const Operand& a, const Operand& b,
                     const std::string& name) {
  bool has_i = shape.a.size() >= 2, has_j = shape.b.size() >= 2;
  std::vector<std::string> names;
  for (size_t d = 0; d < shape.batch.size(); ++d) names.push_back(indexed_name("b", d));
  if (has_i) names.push_back("i");
  if (has_j) names.push_back("j");
  te::IterVar k = te::reduce_axis(ir::Expr(shape.k), "k");
  return te::compute(
      shape_exprs(shape.output),
      [&](const std::vector<te::Var>& index) {
        std::vector<ir::Expr> batch(index.begin(), index.begin() + shape.batch.size());
        ir::Expr i = has_i ? ir::Expr(index[shape.batch.size()]) : ir::Expr(int64_t{0});
        ir::Expr j = has_j ? ir::Expr(index.back()) : ir::Expr(int64_t{0});
        // A 1-D left operand is a row [1, K], a 1-D right operand a column [K, 1]: both
        // are read at k.
        ir::Expr lhs = a.load(operand_index(shape.a, batch, i, k.var));
        ir::Expr rhs =
            b.load(has_j ? operand_index(shape.b, batch, k.var, j) : std::vector<ir::Expr>{k.var});
        return te::sum(lhs * rhs, {k});
      },
      name, names);
}

bool use_tuned_matmul(const MatmulShape& shape, ir::DataType dtype) {
  return dtype == ir::DataType::Float(32) && shape.a.size() >= 2 && shape.b.size() == 2;
}

}  // namespace tessel::ops::nn
