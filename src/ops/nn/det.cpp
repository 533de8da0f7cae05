// Det: the determinant of each n x n matrix of [..., n, n], by Gaussian elimination with
// partial pivoting unrolled into stages (n is static): at step k the row with the largest
// |a[i, k]| (i >= k) swaps with row k, the rows below lose their multiple of it, and the
// running product takes the pivot (negated on a swap). Computed in float64; a zero pivot
// (a singular matrix) makes the product zero.
#include "ops/nn/nn_ops.h"
#include "ops/nn/nn_util.h"
#include "ops/op_util.h"
#include "te/compute.h"

namespace tessel::ops::nn {
namespace {

using ir::Expr;

/// Matrices larger than this would unroll into too many stages to compile quickly.
constexpr int64_t kMaxOrder = 64;

std::vector<int64_t> det_batch(const OpContext& ctx) {
  check_dtype(ctx, 0, float_types());
  std::vector<int64_t> x = ctx.input_shape(0);
  if (x.size() < 2 || x[x.size() - 1] != x[x.size() - 2])
    ctx.fail("input " + shape_text(x) + " must be [..., n, n]: square matrices");
  if (x.back() > kMaxOrder)
    ctx.fail("matrices of order " + std::to_string(x.back()) + " are not supported (at most " +
             std::to_string(kMaxOrder) + ")");
  return std::vector<int64_t>(x.begin(), x.end() - 2);
}

std::vector<te::Tensor> det_compute(const OpContext& ctx, const std::vector<te::Tensor>& in) {
  std::vector<int64_t> batch = det_batch(ctx);
  int64_t n = ctx.input_shape(0).back();
  size_t nb = batch.size();
  ir::DataType f64 = ir::DataType::Float(64), i64 = ir::DataType::Int(64);
  std::vector<int64_t> matrices = batch;
  matrices.push_back(n);
  matrices.push_back(n);
  // Index [batch..., i, j] from a batch index and a row and column.
  auto at = [&](const std::vector<te::Var>& v, Expr i, Expr j) {
    std::vector<Expr> index(v.begin(), v.begin() + static_cast<long>(nb));
    index.push_back(i);
    index.push_back(j);
    return index;
  };
  auto batch_of = [&](const std::vector<te::Var>& v) {
    return std::vector<Expr>(v.begin(), v.begin() + static_cast<long>(nb));
  };
  te::Tensor a = te::compute_body(
      shape_exprs(matrices),
      [&](const std::vector<te::Var>& v) {
        return ir::cast(f64, in[0](std::vector<Expr>(v.begin(), v.end())));
      },
      "det_matrix");
  te::Tensor product = te::compute_body(
      shape_exprs(batch), [&](const std::vector<te::Var>&) { return ir::make_const(f64, 1.0); },
      "det_product");
  for (int64_t k = 0; k < n; ++k) {
    Expr kk(k);
    te::IterVar i_max = te::reduce_axis(kk, Expr(n - k), "i");
    te::Tensor largest = te::compute_body(
        shape_exprs(batch),
        [&](const std::vector<te::Var>& v) {
          return te::max_reduce(ir::abs(a(at(v, i_max.var, kk))), {i_max});
        },
        "det_largest");
    te::IterVar i_first = te::reduce_axis(kk, Expr(n - k), "i");
    te::Tensor pivot = te::compute_body(
        shape_exprs(batch),
        [&](const std::vector<te::Var>& v) {
          Expr is_largest = ir::abs(a(at(v, i_first.var, kk))) == largest(batch_of(v));
          return te::min_reduce(ir::select(is_largest, ir::cast(i64, i_first.var), Expr(n)),
                                {i_first});
        },
        "det_pivot");
    te::Tensor swapped = te::compute_body(
        shape_exprs(matrices),
        [&](const std::vector<te::Var>& v) {
          Expr i = ir::cast(i64, v[nb]), p = pivot(batch_of(v));
          Expr row = ir::select(i == kk, p, ir::select(i == p, kk, i));
          return a(at(v, row, v[nb + 1]));
        },
        "det_swapped");
    te::Tensor previous = product;
    product = te::compute_body(
        shape_exprs(batch),
        [&](const std::vector<te::Var>& v) {
          Expr sign = ir::select(pivot(batch_of(v)) == kk, ir::make_const(f64, 1.0),
                                 ir::make_const(f64, -1.0));
          return previous(batch_of(v)) * swapped(at(v, kk, kk)) * sign;
        },
        "det_product");
    if (k + 1 == n) break;
    a = te::compute_body(
        shape_exprs(matrices),
        [&](const std::vector<te::Var>& v) {
          Expr i = ir::cast(i64, v[nb]);
          Expr pivot_value = swapped(at(v, kk, kk));
          Expr factor =
              ir::select(pivot_value == ir::make_const(f64, 0.0), ir::make_const(f64, 0.0),
                         swapped(at(v, v[nb], kk)) / pivot_value);
          Expr here = swapped(std::vector<Expr>(v.begin(), v.end()));
          return ir::select(i > kk, here - factor * swapped(at(v, kk, v[nb + 1])), here);
        },
        "det_eliminated");
  }
  ir::DataType dtype = ctx.input_type(0).dtype;
  return {te::compute_body(
      shape_exprs(batch),
      [&](const std::vector<te::Var>& v) { return ir::cast(dtype, product(batch_of(v))); }, "det")};
}

}  // namespace

void register_det_op(OpRegistry& registry) {
  OpDef def;
  def.name = "Det";
  def.since_version = 11;
  def.pattern = PatternKind::Opaque;
  def.infer = [](const OpContext& ctx) {
    return std::vector<graph::TensorType>{
        graph::TensorType::of(ctx.input_type(0).dtype, det_batch(ctx))};
  };
  def.compute = det_compute;
  registry.add(std::move(def));
}

}  // namespace tessel::ops::nn
