// Winograd convolution F(m x m, 3 x 3) in the blocked layout: transform matrices and compute
// stages.
#include "ops/conv2d_winograd.h"

#include <algorithm>
#include <functional>

#include "ops/conv2d.h"
#include "ops/op_util.h"
#include "support/error.h"

namespace tessel::ops {
namespace {

using Table = std::vector<std::vector<double>>;

/// The finite interpolation points, in the order they are taken; infinity is the last.
/// Points of both magnitudes (1/2 and -2 for F(4, 3)) balance the powers the transforms
/// take: F(4, 3)'s float32 error is about 2.7x smaller than with 2 and -2 (simulated on
/// 128 channels).
constexpr double kPoints[] = {0.0, 1.0, -1.0, 0.5, -2.0, 2.0, -0.5};

/// Coefficients (lowest degree first) of prod_j (x - points[j]).
std::vector<double> poly_from_roots(const std::vector<double>& points) {
  std::vector<double> poly = {1.0};
  for (double p : points) {
    std::vector<double> next(poly.size() + 1, 0.0);
    for (size_t i = 0; i < poly.size(); ++i) {
      next[i + 1] += poly[i];
      next[i] -= p * poly[i];
    }
    poly = std::move(next);
  }
  return poly;
}

/// `poly` divided by (x - root), which divides it exactly.
std::vector<double> divide_by_root(const std::vector<double>& poly, double root) {
  std::vector<double> quotient(poly.size() - 1, 0.0);
  double carry = 0.0;
  for (size_t i = poly.size() - 1; i > 0; --i) {
    carry = poly[i] + carry * root;
    quotient[i - 1] = carry;
  }
  return quotient;
}

/// sum_col table_row[col] * term(col) over the non-zero coefficients, in `dtype`.
ir::Expr row_sum(const std::vector<double>& row, const std::function<ir::Expr(int64_t)>& term,
                 ir::DataType dtype) {
  ir::Expr sum;
  for (size_t col = 0; col < row.size(); ++col) {
    double c = row[col];
    if (c == 0.0) continue;
    ir::Expr t = term(static_cast<int64_t>(col));
    ir::Expr scaled = c == 1.0 ? t : c == -1.0 ? -t : ir::make_const(dtype, c) * t;
    sum = sum.defined() ? sum + scaled : scaled;
  }
  return sum.defined() ? sum : ir::make_const(dtype, 0);
}

/// sum_col table[row][col] * term(col) for a row chosen by the expression `row`: a select
/// over the rows, which folds to one row's sum once `row` is a constant (an unrolled loop).
ir::Expr table_combination(const Table& table, const ir::Expr& row,
                           const std::function<ir::Expr(int64_t)>& term, ir::DataType dtype) {
  ir::Expr result = row_sum(table.back(), term, dtype);
  for (size_t i = table.size() - 1; i-- > 0;)
    result = ir::select(row == static_cast<int64_t>(i), row_sum(table[i], term, dtype), result);
  return result;
}

int64_t const_dim(const te::Tensor& t, int d) { return constant_dim(t, d, "conv2d_winograd"); }

}  // namespace

WinogradMatrices winograd_matrices(int64_t m, int64_t r) {
  int64_t alpha = m + r - 1;
  TESSEL_ICHECK(m >= 1 && r >= 1 && alpha >= 2 && alpha <= 8, "winograd_matrices: F(", m, ", ",
                r, ") needs 2 to 8 points");
  std::vector<double> points(kPoints, kPoints + alpha - 1);
  WinogradMatrices w;
  w.m = m;
  w.r = r;
  w.alpha = alpha;
  w.at.assign(m, std::vector<double>(alpha, 0.0));
  w.g.assign(alpha, std::vector<double>(r, 0.0));
  w.bt.assign(alpha, std::vector<double>(alpha, 0.0));
  // A^T evaluates the product polynomial's m outputs at each point: powers of the point
  // (infinity: the leading coefficient, in the last output).
  for (int64_t j = 0; j + 1 < alpha; ++j) {
    double power = 1.0;
    for (int64_t i = 0; i < m; ++i, power *= points[j]) w.at[i][j] = power;
  }
  w.at[m - 1][alpha - 1] = 1.0;
  // G evaluates the filter polynomial at each point, scaled by the Lagrange denominator
  // prod_{l != j} (p_j - p_l); B^T holds the Lagrange numerators prod_{l != j} (x - p_l)
  // and, for infinity, prod_l (x - p_l).
  std::vector<double> all = poly_from_roots(points);
  for (int64_t j = 0; j + 1 < alpha; ++j) {
    double denominator = 1.0;
    for (int64_t l = 0; l + 1 < alpha; ++l)
      if (l != j) denominator *= points[j] - points[l];
    double power = 1.0;
    for (int64_t k = 0; k < r; ++k, power *= points[j]) w.g[j][k] = power / denominator;
    std::vector<double> numerator = divide_by_root(all, points[j]);
    std::copy(numerator.begin(), numerator.end(), w.bt[j].begin());
  }
  w.g[alpha - 1][r - 1] = 1.0;
  std::copy(all.begin(), all.end(), w.bt[alpha - 1].begin());
  return w;
}

int64_t default_winograd_tile(const Conv2dNchwcParams& p, const std::vector<int64_t>& weight,
                              int64_t out_h, int64_t out_w, bool blocked_input) {
  constexpr int64_t kMinChannels = 32;
  bool fits = weight.size() == 4 && weight[2] == 3 && weight[3] == 3 && p.stride == 1 &&
              p.dilation == 1 && p.groups == 1 && !p.depthwise && blocked_input;
  if (!fits || weight[0] < kMinChannels || weight[1] < kMinChannels) return 0;
  // F(4, 3) rounds more than F(2, 3), the more the more channels each product sums: against
  // float64 loops, in units of rtol 1e-4 + atol 1e-4, 0.5 at 64 input channels, 0.95 at 128
  // and 2.9 at 256, where F(2, 3) stays at the direct sum's 0.3-0.5. So m = 4 only up to
  // kMaxChannelsOfF4 input channels.
  constexpr int64_t kMaxChannelsOfF4 = 128;
  // Per pair of channels: 2 (m + 2)^2 flops per tile, and (m + 2)^2 weights of 4 bytes
  // streamed from memory once per run at about 5 flops' time per byte.
  int64_t best = 0, best_cost = 0;
  for (int64_t m : {2, 4}) {
    if (m == 4 && weight[1] > kMaxChannelsOfF4) continue;
    int64_t tiles = ((out_h + m - 1) / m) * ((out_w + m - 1) / m);
    int64_t cost = (m + 2) * (m + 2) * (2 * tiles + 20);
    if (best == 0 || cost < best_cost) {
      best = m;
      best_cost = cost;
    }
  }
  return best;
}

te::Tensor conv2d_winograd_nchwc(const te::Tensor& data, const te::Tensor& weight,
                                 const Conv2dNchwcParams& p, int64_t tile,
                                 const std::string& name) {
  if (data.ndim() != 5 || weight.ndim() != 4)
    TESSEL_USER_ERROR("conv2d_winograd '", name, "': data must be blocked [N, C/x, H, W, x] and "
                      "weight [K, C, R, S], got ", data.ndim(), "-d and ", weight.ndim(), "-d");
  int64_t n = const_dim(data, 0), blocks_in = const_dim(data, 1), h = const_dim(data, 2),
          w = const_dim(data, 3), in_block = const_dim(data, 4);
  int64_t k = const_dim(weight, 0), c = const_dim(weight, 1), r = const_dim(weight, 2);
  if (r != 3 || const_dim(weight, 3) != 3 || p.stride != 1 || p.dilation != 1 || p.groups != 1 ||
      p.depthwise || tile < 1 || tile + r - 1 > 8)
    TESSEL_USER_ERROR("conv2d_winograd '", name, "': takes a 3x3 kernel of stride 1, one group "
                      "and no dilation, and a tile of 1 to 6; got a ", r, "x", const_dim(weight, 3),
                      " kernel, stride ", p.stride, ", ", p.groups, " groups, dilation ",
                      p.dilation, ", tile ", tile);
  if ((c + in_block - 1) / in_block != blocks_in)
    TESSEL_USER_ERROR("conv2d_winograd '", name, "': data has ", blocks_in, " blocks of ",
                      in_block, " channels, the weight expects ", c, " channels");
  int64_t oh = h + 2 * p.pad - 2, ow = w + 2 * p.pad - 2;
  if (oh <= 0 || ow <= 0 || p.pad < 0)
    TESSEL_USER_ERROR("conv2d_winograd '", name, "': a 3x3 kernel does not fit a ", h, "x", w,
                      " input padded by ", p.pad);
  WinogradMatrices mat = winograd_matrices(tile, r);
  int64_t alpha = mat.alpha, block = p.block, blocks = (k + block - 1) / block;
  int64_t tiles_h = (oh + tile - 1) / tile, tiles_w = (ow + tile - 1) / tile;
  int64_t tiles = n * tiles_h * tiles_w;
  ir::DataType f32 = data.dtype(), f64 = ir::DataType::Float(64);
  ir::Expr zero = ir::make_const(f32, 0);

  // U = G g G^T per (output, input) channel pair, zero for the padding channels.
  te::Tensor u = te::compute(
      {alpha, alpha, blocks, blocks_in, in_block, block},
      [&](const std::vector<te::Var>& i) {
        ir::Expr oc = i[2] * block + i[5], ic = i[3] * in_block + i[4];
        ir::Expr value = table_combination(
            mat.g, i[0],
            [&](int64_t ry) {
              return table_combination(
                  mat.g, i[1],
                  [&](int64_t rx) {
                    return ir::cast(f64, weight(ir::min(oc, k - 1), ir::min(ic, c - 1), ry, rx));
                  },
                  f64);
            },
            f64);
        return ir::select(oc < k && ic < c, ir::cast(f32, value), zero);
      },
      name + ".wino_weight", {"e", "nu", "kb", "cb", "ci", "kk"});

  // The data padded before by `pad` and after up to the last tile's window.
  int64_t padded_h = tiles_h * tile + 2, padded_w = tiles_w * tile + 2;
  te::Tensor padded = te::compute(
      {n, blocks_in, padded_h, padded_w, in_block},
      [&](te::Var b, te::Var cb, te::Var y, te::Var x, te::Var ci) {
        ir::Expr sy = y - p.pad, sx = x - p.pad;
        return ir::select(sy >= 0 && sy < h && sx >= 0 && sx < w,
                          data(b, cb, ir::min(ir::max(sy, 0), h - 1),
                               ir::min(ir::max(sx, 0), w - 1), ci),
                          zero);
      },
      name + ".wino_pad", {"n", "cb", "h", "w", "ci"});

  // V = B^T d B per tile and input channel.
  te::Tensor v = te::compute(
      {alpha, alpha, blocks_in, tiles, in_block},
      [&](const std::vector<te::Var>& i) {
        ir::Expr t = i[3];
        ir::Expr b = t / (tiles_h * tiles_w), ty = t / tiles_w % tiles_h, tx = t % tiles_w;
        return table_combination(
            mat.bt, i[0],
            [&](int64_t a) {
              return table_combination(
                  mat.bt, i[1],
                  [&](int64_t col) { return padded(b, i[2], ty * tile + a, tx * tile + col, i[4]); },
                  f32);
            },
            f32);
      },
      name + ".wino_input", {"e", "nu", "cb", "p", "ci"});

  // M = V U per point: a product over the input channels.
  te::IterVar rc = te::reduce_axis(blocks_in, "rc");
  te::IterVar rci = te::reduce_axis(in_block, "rci");
  te::Tensor products = te::compute(
      {alpha, alpha, blocks, tiles, block},
      [&](const std::vector<te::Var>& i) {
        return te::sum(v(i[0], i[1], rc.var, i[3], rci.var) *
                           u(i[0], i[1], i[2], rc.var, rci.var, i[4]),
                       {rc, rci});
      },
      name + ".wino_gemm", {"e", "nu", "kb", "p", "kk"});

  // Y = A^T M A per tile.
  return te::compute(
      {n, blocks, oh, ow, block},
      [&](te::Var b, te::Var kb, te::Var y, te::Var x, te::Var kk) {
        ir::Expr t = (b * tiles_h + y / tile) * tiles_w + x / tile;
        return table_combination(
            mat.at, y % tile,
            [&](int64_t e) {
              return table_combination(
                  mat.at, x % tile, [&](int64_t nu) { return products(e, nu, kb, t, kk); }, f32);
            },
            f32);
      },
      name, {"n", "kb", "oh", "ow", "kk"});
}

}  // namespace tessel::ops
