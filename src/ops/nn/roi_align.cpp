// RoiAlign: each region of interest pooled to output_height x output_width bins, every bin
// the average (or maximum) of sampling_ratio^2 bilinear samples of the feature map. The
// regions and their batch entries are inputs read at run time; the sampling grid is fixed
// (sampling_ratio > 0), since an adaptive grid's size would depend on the regions' values.
#include <array>

#include "ops/nn/nn_ops.h"
#include "ops/nn/nn_util.h"
#include "ops/op_util.h"
#include "te/compute.h"

namespace tessel::ops::nn {
namespace {

using graph::AttrKind;
using ir::Expr;

struct RoiAlign {
  int64_t rois = 0, channels = 0, height = 0, width = 0;
  int64_t out_h = 0, out_w = 0, grid = 0;
  double scale = 1;
  bool half_pixel = false;  ///< coordinates shifted by half a pixel (opset 16's default)
  bool max = false;
};

RoiAlign roi_align_of(const OpContext& ctx) {
  check_dtype(ctx, 0, float_types());
  std::vector<int64_t> x = ctx.input_shape(0), rois = ctx.input_shape(1);
  if (x.size() != 4) ctx.fail("input X " + shape_text(x) + " must be [N, C, H, W]");
  if (rois.size() != 2 || rois[1] != 4)
    ctx.fail("input rois " + shape_text(rois) + " must be [num_rois, 4]");
  if (ctx.input_type(1).dtype != ctx.input_type(0).dtype)
    ctx.fail("input rois must have X's type " + ctx.input_type(0).dtype.to_string());
  if (ctx.input_shape(2) != std::vector<int64_t>{rois[0]} ||
      ctx.input_type(2).dtype != ir::DataType::Int(64))
    ctx.fail("input batch_indices " + ctx.input_type(2).to_string() + " must be int64[" +
             std::to_string(rois[0]) + "]");
  RoiAlign r;
  r.rois = rois[0];
  r.channels = x[1];
  r.height = x[2];
  r.width = x[3];
  r.out_h = ctx.attr_int("output_height");
  r.out_w = ctx.attr_int("output_width");
  if (r.out_h < 1 || r.out_w < 1)
    ctx.fail("output_height and output_width must be >= 1, found " + std::to_string(r.out_h) +
             " and " + std::to_string(r.out_w));
  r.grid = ctx.attr_int("sampling_ratio");
  if (r.grid < 1)
    ctx.fail("sampling_ratio " + std::to_string(r.grid) +
             " is not supported: an adaptive grid's size depends on the regions' values");
  r.scale = ctx.attr_float("spatial_scale");
  std::string transform =
      ctx.opset() >= 16 ? ctx.attr_string("coordinate_transformation_mode") : "output_half_pixel";
  if (transform != "half_pixel" && transform != "output_half_pixel")
    ctx.fail("coordinate_transformation_mode '" + transform +
             "' is not half_pixel or output_half_pixel");
  r.half_pixel = transform == "half_pixel";
  std::string mode = ctx.attr_string("mode");
  if (mode != "avg" && mode != "max") ctx.fail("mode '" + mode + "' is not avg or max");
  r.max = mode == "max";
  return r;
}

std::vector<te::Tensor> roi_align_compute(const OpContext& ctx, const std::vector<te::Tensor>& in) {
  RoiAlign r = roi_align_of(ctx);
  const te::Tensor &x = in[0], &rois = in[1], &batch = in[2];
  ir::DataType dtype = x.dtype(), i64 = ir::DataType::Int(64);
  auto real = [&](double v) { return ir::make_const(dtype, v); };
  te::IterVar iy = te::reduce_axis(Expr(r.grid), "iy"), ix = te::reduce_axis(Expr(r.grid), "ix");
  auto body = [&](const std::vector<te::Var>& v) {
    Expr roi = v[0], c = v[1], ph = v[2], pw = v[3];
    Expr offset = real(r.half_pixel ? 0.5 : 0.0), scale = real(r.scale);
    Expr x0 = rois({roi, Expr(int64_t{0})}) * scale - offset;
    Expr y0 = rois({roi, Expr(int64_t{1})}) * scale - offset;
    Expr roi_w = rois({roi, Expr(int64_t{2})}) * scale - offset - x0;
    Expr roi_h = rois({roi, Expr(int64_t{3})}) * scale - offset - y0;
    if (!r.half_pixel) {  // regions at least one pixel wide and high
      roi_w = ir::max(roi_w, real(1.0));
      roi_h = ir::max(roi_h, real(1.0));
    }
    Expr bin_h = roi_h / real(static_cast<double>(r.out_h));
    Expr bin_w = roi_w / real(static_cast<double>(r.out_w));
    auto position = [&](Expr start, Expr bin, Expr p, Expr i) {
      return start + ir::cast(dtype, p) * bin +
             (ir::cast(dtype, i) + real(0.5)) * bin / real(static_cast<double>(r.grid));
    };
    Expr y = position(y0, bin_h, ph, iy.var), xx = position(x0, bin_w, pw, ix.var);
    // A sample outside [-1, extent] on either axis counts as zero.
    Expr outside = y < real(-1.0) || y > real(static_cast<double>(r.height)) || xx < real(-1.0) ||
                   xx > real(static_cast<double>(r.width));
    // The corners below and after the sample, clamped to the map; past its last row
    // (column) the sample sits on it.
    auto axis = [&](Expr pos, int64_t extent) {
      Expr clamped = ir::max(pos, real(0.0));
      Expr low = ir::min(ir::cast(i64, ir::floor(clamped)), Expr(extent - 1));
      Expr high = ir::min(low + Expr(int64_t{1}), Expr(extent - 1));
      Expr frac = ir::select(low >= Expr(extent - 1), real(0.0), clamped - ir::cast(dtype, low));
      return std::array<Expr, 3>{low, high, frac};
    };
    auto [y_low, y_high, ly] = axis(y, r.height);
    auto [x_low, x_high, lx] = axis(xx, r.width);
    Expr n = batch({roi});
    auto at = [&](Expr row, Expr col) { return x({n, c, row, col}); };
    Expr hy = real(1.0) - ly, hx = real(1.0) - lx;
    std::array<Expr, 4> terms = {hy * hx * at(y_low, x_low), hy * lx * at(y_low, x_high),
                                 ly * hx * at(y_high, x_low), ly * lx * at(y_high, x_high)};
    if (r.max) {
      Expr best = ir::max(ir::max(terms[0], terms[1]), ir::max(terms[2], terms[3]));
      return te::max_reduce(ir::select(outside, real(0.0), best), {iy, ix});
    }
    Expr value = terms[0] + terms[1] + terms[2] + terms[3];
    return te::sum(ir::select(outside, real(0.0), value), {iy, ix});
  };
  te::Tensor pooled =
      te::compute_body(shape_exprs({r.rois, r.channels, r.out_h, r.out_w}), body, "roi_align_sums");
  if (r.max) return {pooled};
  Expr count = real(static_cast<double>(r.grid * r.grid));
  return {te::compute_body(
      shape_exprs({r.rois, r.channels, r.out_h, r.out_w}),
      [&](const std::vector<te::Var>& v) {
        return pooled(std::vector<Expr>(v.begin(), v.end())) / count;
      },
      "roi_align")};
}

}  // namespace

void register_roi_align_op(OpRegistry& registry) {
  OpDef def;
  def.name = "RoiAlign";
  def.since_version = 10;
  def.attributes = {{"coordinate_transformation_mode", AttrKind::String,
                     graph::Attribute::of_string("half_pixel")},
                    {"mode", AttrKind::String, graph::Attribute::of_string("avg")},
                    {"output_height", AttrKind::Int, graph::Attribute::of_int(1)},
                    {"output_width", AttrKind::Int, graph::Attribute::of_int(1)},
                    {"sampling_ratio", AttrKind::Int, graph::Attribute::of_int(0)},
                    {"spatial_scale", AttrKind::Float, graph::Attribute::of_float(1.0)}};
  def.pattern = PatternKind::Opaque;
  def.infer = [](const OpContext& ctx) {
    RoiAlign r = roi_align_of(ctx);
    return std::vector<graph::TensorType>{
        graph::TensorType::of(ctx.input_type(0).dtype, {r.rois, r.channels, r.out_h, r.out_w})};
  };
  def.compute = roi_align_compute;
  registry.add(std::move(def));
}

}  // namespace tessel::ops::nn
