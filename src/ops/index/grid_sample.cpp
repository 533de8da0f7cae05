// GridSample (opset 16): samples an NCHW input at the normalised (x, y) positions of a grid
// [N, H_out, W_out, 2] (-1 and 1 are the outer edges of the border pixels, or their centres
// with align_corners), by nearest (ties to even), bilinear or bicubic (a = -0.75)
// interpolation. Positions outside the input read zeros, the border ('border') or the input
// mirrored at its border ('reflection'). The arithmetic runs in the grid's precision, the
// way PyTorch's grid_sample (which ONNX follows) does.
#include "ops/index/index_common.h"
#include "ops/index/resample.h"
#include "ops/op_util.h"

namespace tessel::ops::index {
namespace {

using ir::Expr;
using te::Var;

enum class Padding { Zeros, Border, Reflection };

struct GridSampleForm {
  std::string mode;
  Padding padding = Padding::Zeros;
  bool align_corners = false;
  std::vector<int64_t> out;
};

GridSampleForm grid_sample_form(const OpContext& ctx) {
  std::vector<int64_t> x = ctx.input_shape(0), grid = ctx.input_shape(1);
  if (x.size() != 4) ctx.fail("input X has shape " + shape_text(x) + ", expected rank 4 (NCHW)");
  if (grid.size() != 4 || grid[0] != x[0] || grid[3] != 2)
    ctx.fail("grid has shape " + shape_text(grid) + ", expected [" + std::to_string(x[0]) +
             ", H_out, W_out, 2] for input " + shape_text(x));
  ir::DataType dtype = ctx.input_type(1).dtype;
  if (!dtype.is_float()) ctx.fail("grid must be a float tensor, found " + dtype.to_string());
  GridSampleForm f;
  f.mode = attr_choice(ctx, "mode", {"bilinear", "nearest", "bicubic"});
  std::string padding = attr_choice(ctx, "padding_mode", {"zeros", "border", "reflection"});
  f.padding = padding == "zeros"    ? Padding::Zeros
              : padding == "border" ? Padding::Border
                                    : Padding::Reflection;
  f.align_corners = ctx.attr_int("align_corners") != 0;
  f.out = {x[0], x[1], grid[1], grid[2]};
  return f;
}

/// Builds the sampling arithmetic of one output element in the grid's element type.
class Sampler {
 public:
  Sampler(const GridSampleForm& form, const te::Tensor& x, ir::DataType dtype)
      : f_(form), x_(x), dtype_(dtype), shape_(te::static_shape(x)) {}

  Expr sample(const Var& n, const Var& c, const Expr& gx, const Expr& gy) const {
    int64_t height = shape_[2], width = shape_[3];
    Expr ix = unnormalize(gx, width), iy = unnormalize(gy, height);
    if (f_.mode == "bicubic") return bicubic(n, c, ix, iy);
    ix = padded(ix, width);
    iy = padded(iy, height);
    if (f_.mode == "nearest")
      return read(n, c, index(round_half_even(iy)), index(round_half_even(ix)));
    Expr x0 = ir::floor(ix), y0 = ir::floor(iy);
    Expr tx = ix - x0, ty = iy - y0;
    Expr i = index(x0), j = index(y0);
    Expr one = constant(1);
    Expr top = (one - tx) * read(n, c, j, i) + tx * read(n, c, j, i + int64_t{1});
    Expr bottom = (one - tx) * read(n, c, j + int64_t{1}, i) +
                  tx * read(n, c, j + int64_t{1}, i + int64_t{1});
    return (one - ty) * top + ty * bottom;
  }

 private:
  Expr constant(double v) const { return ir::make_const(dtype_, v); }
  static Expr index(const Expr& v) { return ir::cast(ir::DataType::Index(), v); }

  Expr unnormalize(const Expr& coord, int64_t size) const {
    double s = static_cast<double>(size);
    if (f_.align_corners) return (coord + constant(1)) / constant(2) * constant(s - 1);
    return ((coord + constant(1)) * constant(s) - constant(1)) / constant(2);
  }

  /// `v` mirrored into [twice_low / 2, twice_high / 2].
  Expr reflect(const Expr& v, double twice_low, double twice_high) const {
    if (twice_low == twice_high) return constant(0);
    double low = twice_low / 2, span = (twice_high - twice_low) / 2;
    Expr distance = ir::abs(v - constant(low));
    Expr flips = ir::floor(distance / constant(span));
    Expr extra = distance - flips * constant(span);
    Expr even = index(flips) % int64_t{2} == int64_t{0};
    return ir::select(even, extra + constant(low), constant(span + low) - extra);
  }

  /// The coordinate after the padding mode's folding into the input (none for zeros).
  Expr padded(const Expr& v, int64_t size) const {
    if (f_.padding == Padding::Zeros) return v;
    double s = static_cast<double>(size);
    Expr folded = v;
    if (f_.padding == Padding::Reflection)
      folded = f_.align_corners ? reflect(v, 0, 2 * (s - 1)) : reflect(v, -1, 2 * s - 1);
    return ir::min(ir::max(folded, constant(0)), constant(s - 1));
  }

  Expr round_half_even(const Expr& v) const {
    Expr r = ir::floor(v + constant(0.5));
    Expr odd = ir::floor(r * constant(0.5)) * constant(2) != r;
    return ir::select(r - v == constant(0.5) && odd, r - constant(1), r);
  }

  /// X[n, c, y, x] in the grid's type, or 0 outside the input.
  Expr read(const Var& n, const Var& c, const Expr& y, const Expr& x) const {
    Expr inside = y >= int64_t{0} && y < shape_[2] && x >= int64_t{0} && x < shape_[3];
    Expr value = ir::cast(dtype_, x_(n, c, clamp_index(y, shape_[2]), clamp_index(x, shape_[3])));
    return ir::select(inside, value, constant(0));
  }

  Expr bicubic(const Var& n, const Var& c, const Expr& ix, const Expr& iy) const {
    Expr x0 = ir::floor(ix), y0 = ir::floor(iy);
    std::array<Expr, 4> wx = cubic_weights(ix - x0, -0.75), wy = cubic_weights(iy - y0, -0.75);
    Expr total;
    for (int64_t a = 0; a < 4; ++a) {
      Expr row;
      Expr y = index(padded(y0 + constant(static_cast<double>(a - 1)), shape_[2]));
      for (int64_t b = 0; b < 4; ++b) {
        Expr x = index(padded(x0 + constant(static_cast<double>(b - 1)), shape_[3]));
        Expr term = wx[static_cast<size_t>(b)] * read(n, c, y, x);
        row = row.defined() ? row + term : term;
      }
      Expr term = wy[static_cast<size_t>(a)] * row;
      total = total.defined() ? total + term : term;
    }
    return total;
  }

  const GridSampleForm& f_;
  te::Tensor x_;
  ir::DataType dtype_;
  std::vector<int64_t> shape_;
};

std::vector<te::Tensor> grid_sample(const OpContext& ctx, const std::vector<te::Tensor>& in) {
  GridSampleForm f = grid_sample_form(ctx);
  const te::Tensor& x = in[0];
  const te::Tensor& grid = in[1];
  Sampler sampler(f, x, grid.dtype());
  auto body = [&](Var n, Var c, Var h, Var w) {
    Expr gx = grid(n, h, w, int64_t{0}), gy = grid(n, h, w, int64_t{1});
    return ir::cast(x.dtype(), sampler.sample(n, c, gx, gy));
  };
  return {te::compute(shape_exprs(f.out), body, "grid_sample")};
}

}  // namespace

void register_grid_sample_ops(OpRegistry& registry) {
  registry.add(make_op(
      "GridSample", 16, PatternKind::Injective,
      {{"align_corners", graph::AttrKind::Int, graph::Attribute::of_int(0)},
       {"mode", graph::AttrKind::String, graph::Attribute::of_string("bilinear")},
       {"padding_mode", graph::AttrKind::String, graph::Attribute::of_string("zeros")}},
      [](const OpContext& ctx) {
        return std::vector{
            graph::TensorType::of(ctx.input_type(0).dtype, grid_sample_form(ctx).out)};
      },
      grid_sample));
}

}  // namespace tessel::ops::index
