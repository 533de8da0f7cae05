// Matmul compute: B packed in panels, a batch of left operands read as one matrix.
#include "ops/matmul.h"

#include "support/error.h"

namespace tessel::ops {

te::Tensor matmul(const te::Tensor& a, const te::Tensor& b, int64_t panel,
                  const std::string& name) {
  if (a.ndim() < 2 || b.ndim() != 2)
    TESSEL_USER_ERROR("matmul '", name, "': the left operand must be at least 2-d and the right "
                      "one 2-d, got ", a.ndim(), "-d '", a.name(), "' and ", b.ndim(), "-d '",
                      b.name(), "'");
  const int64_t* n_extent = ir::as_const_int(b.shape()[1]);
  if (!n_extent) TESSEL_USER_ERROR("matmul '", name, "': the columns of '", b.name(), "' must be a constant");
  int64_t n = *n_extent;
  if (panel <= 0) TESSEL_USER_ERROR("matmul '", name, "': the panel must be positive, got ", panel);
  int64_t panels = (n + panel - 1) / panel;
  const ir::Expr& k_extent = b.shape()[0];
  te::Tensor packed = te::compute(
      {panels, k_extent, panel},
      [&](te::Var p, te::Var kk, te::Var jj) {
        ir::Expr j = p * panel + jj;
        return ir::select(j < n, b(kk, ir::min(j, n - 1)), ir::make_const(b.dtype(), 0));
      },
      name + ".packed", {"p", "k", "jj"});

  // A batch of left operands is one tall matrix of batch x M rows, read in place.
  std::vector<int64_t> a_shape;
  for (int d = 0; d < a.ndim(); ++d) {
    const int64_t* extent = ir::as_const_int(a.shape()[d]);
    if (!extent) TESSEL_USER_ERROR("matmul '", name, "': the shape of '", a.name(), "' must be constant");
    a_shape.push_back(*extent);
  }
  std::vector<int64_t> row_dims(a_shape.begin(), a_shape.end() - 1);
  int64_t rows_extent = 1;
  for (int64_t d : row_dims) rows_extent *= d;
  te::Tensor rows = a;
  if (a.ndim() > 2) {
    rows = te::compute(
        {rows_extent, k_extent},
        [&](te::Var r, te::Var kk) {
          std::vector<ir::Expr> at(row_dims.size());
          ir::Expr rest = r;
          for (size_t d = row_dims.size(); d-- > 0;) {
            at[d] = d == 0 ? rest : rest % row_dims[d];
            rest = rest / row_dims[d];
          }
          at.push_back(kk);
          return a(at);
        },
        name + ".rows", {"r", "k"});
  }
  te::IterVar k = te::reduce_axis(k_extent, "k");
  te::Tensor c = te::compute(
      {rows_extent, n},
      [&](te::Var i, te::Var j) {
        return te::sum(rows(i, k.var) * packed(j / panel, k.var, j % panel), {k});
      },
      name, {"i", "j"});
  if (a.ndim() == 2) return c;
  std::vector<int64_t> out_shape = row_dims;
  out_shape.push_back(n);
  std::vector<ir::Expr> out_exprs;
  for (int64_t d : out_shape) out_exprs.push_back(ir::make_const(ir::DataType::Int(64), d));
  return te::compute(
      out_exprs,
      [&](const std::vector<te::Var>& index) {
        ir::Expr row = index[0];
        for (size_t d = 1; d + 1 < index.size(); ++d) row = row * row_dims[d] + index[d];
        return c(row, index.back());
      },
      name + ".nd");
}

}  // namespace tessel::ops
