// Softmax compute: max, exp, sum, normalise.
#include "ops/softmax.h"

#include "support/error.h"

namespace tessel::ops {

te::Tensor softmax(const te::Tensor& x, const std::string& name) {
  if (x.ndim() != 2) TESSEL_USER_ERROR("softmax '", name, "': input must be 2-d, got ", x.ndim(), "-d");
  ir::Expr rows = x.shape()[0], cols = x.shape()[1];
  te::IterVar k1 = te::reduce_axis(cols, "k");
  te::Tensor row_max = te::compute(
      {rows}, [&](te::Var n) { return te::max_reduce(x(n, k1.var), {k1}); }, name + ".max", {"n"});
  te::Tensor shifted = te::compute(
      {rows, cols}, [&](te::Var n, te::Var d) { return ir::exp(x(n, d) - row_max(n)); },
      name + ".exp", {"n", "d"});
  te::IterVar k2 = te::reduce_axis(cols, "k");
  te::Tensor row_sum = te::compute(
      {rows}, [&](te::Var n) { return te::sum(shifted(n, k2.var), {k2}); }, name + ".sum", {"n"});
  return te::compute(
      {rows, cols}, [&](te::Var n, te::Var d) { return shifted(n, d) / row_sum(n); }, name,
      {"n", "d"});
}

}  // namespace tessel::ops
