// Resize (opsets 10, 11, 13) and its deprecated predecessor Upsample (opsets 7, 9): both
// build a ResampleSpec from their attributes and compile-time scales / sizes / roi inputs.
//
// Opset 10 Resize and Upsample have no coordinate_transformation_mode or nearest_mode: they
// map coordinates asymmetrically (x / scale) and round nearest coordinates down when an
// axis grows and up when it shrinks, as ONNX Runtime does.
#include <cmath>

#include "ops/index/index_common.h"
#include "ops/index/resample.h"
#include "ops/op_util.h"

namespace tessel::ops::index {
namespace {

/// The value of optional input `i`, or nullopt when it is absent or empty.
std::optional<std::vector<double>> optional_floats(const OpContext& ctx, size_t i) {
  if (!ctx.has_input(i) || te::shape_size(ctx.input_shape(i)) == 0) return std::nullopt;
  return ctx.input_floats(i);
}

void check_length(const OpContext& ctx, const char* what, size_t length, size_t rank) {
  if (length != rank)
    ctx.fail(std::string(what) + " has " + std::to_string(length) +
             " values, expected one per "
             "input dimension (" +
             std::to_string(rank) + ")");
}

/// Axes resized by `scales`: out = floor(scale * in).
std::vector<ResampleAxis> axes_from_scales(const OpContext& ctx,
                                           const std::vector<double>& scales) {
  std::vector<int64_t> shape = ctx.input_shape(0);
  check_length(ctx, "scales", scales.size(), shape.size());
  std::vector<ResampleAxis> axes;
  for (size_t d = 0; d < shape.size(); ++d) {
    double length = scales[d] * static_cast<double>(shape[d]);
    if (!(scales[d] > 0) || !std::isfinite(length))
      ctx.fail("scale " + std::to_string(scales[d]) + " of dimension " + std::to_string(d) +
               " is not a positive number");
    ResampleAxis axis;
    axis.in = shape[d];
    axis.out = static_cast<int64_t>(std::floor(length));
    axis.scale_numerator = scales[d];
    axis.length_minus_one = length - 1;
    axes.push_back(axis);
  }
  return axes;
}

/// Axes resized to `sizes`: scale = out / in.
std::vector<ResampleAxis> axes_from_sizes(const OpContext& ctx, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> shape = ctx.input_shape(0);
  check_length(ctx, "sizes", sizes.size(), shape.size());
  std::vector<ResampleAxis> axes;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (sizes[d] < 0 || (shape[d] == 0 && sizes[d] > 0))
      ctx.fail("cannot resize dimension " + std::to_string(d) + " from " +
               std::to_string(shape[d]) + " to " + std::to_string(sizes[d]));
    ResampleAxis axis;
    axis.in = shape[d];
    axis.out = sizes[d];
    if (shape[d] > 0) {
      axis.scale_numerator = static_cast<double>(sizes[d]);
      axis.scale_denominator = static_cast<double>(shape[d]);
    }
    axis.length_minus_one = static_cast<double>(sizes[d]) - 1;
    axes.push_back(axis);
  }
  return axes;
}

/// Opset 10 Resize and Upsample: round down when an axis grows, up when it shrinks.
void set_legacy_rounding(std::vector<ResampleAxis>& axes) {
  for (ResampleAxis& axis : axes)
    axis.rounding = axis.scale() >= 1 ? NearestRounding::Floor : NearestRounding::Ceil;
}

Interpolation interpolation(const OpContext& ctx, bool with_cubic) {
  std::vector<std::string> modes{"nearest", "linear"};
  if (with_cubic) modes.push_back("cubic");
  std::string mode = attr_choice(ctx, "mode", modes);
  return mode == "nearest"  ? Interpolation::Nearest
         : mode == "linear" ? Interpolation::Linear
                            : Interpolation::Cubic;
}

CoordinateMode coordinate_mode(const OpContext& ctx) {
  std::vector<std::string> modes{"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                 "tf_crop_and_resize"};
  if (ctx.opset() < 13) modes.push_back("tf_half_pixel_for_nn");
  std::string mode = attr_choice(ctx, "coordinate_transformation_mode", modes);
  if (mode == "half_pixel") return CoordinateMode::HalfPixel;
  if (mode == "pytorch_half_pixel") return CoordinateMode::PytorchHalfPixel;
  if (mode == "align_corners") return CoordinateMode::AlignCorners;
  if (mode == "asymmetric") return CoordinateMode::Asymmetric;
  if (mode == "tf_crop_and_resize") return CoordinateMode::TfCropAndResize;
  return CoordinateMode::TfHalfPixelForNn;
}

NearestRounding nearest_rounding(const OpContext& ctx) {
  std::string mode = attr_choice(ctx, "nearest_mode",
                                 {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"});
  if (mode == "round_prefer_floor") return NearestRounding::RoundPreferFloor;
  if (mode == "round_prefer_ceil") return NearestRounding::RoundPreferCeil;
  if (mode == "floor") return NearestRounding::Floor;
  return NearestRounding::Ceil;
}

/// Sets each axis' region of interest from the roi input (starts, then ends), computed in
/// the input's precision as ONNX's reference does.
void set_region(const OpContext& ctx, std::vector<ResampleAxis>& axes) {
  if (!ctx.has_input(1)) ctx.fail("tf_crop_and_resize needs the roi input");
  std::vector<double> roi = ctx.input_floats(1);
  if (roi.size() != 2 * axes.size())
    ctx.fail("roi has " + std::to_string(roi.size()) + " values, expected " +
             std::to_string(2 * axes.size()) + " (starts and ends of each dimension)");
  bool single = ctx.input_type(1).dtype == ir::DataType::Float(32);
  for (size_t d = 0; d < axes.size(); ++d) {
    double start = roi[d], end = roi[axes.size() + d];
    axes[d].roi_span = single ? static_cast<float>(end) - static_cast<float>(start) : end - start;
    axes[d].roi_offset = start * static_cast<double>(axes[d].in - 1);
  }
}

ResampleSpec resize_spec(const OpContext& ctx) {
  ResampleSpec spec;
  if (ctx.opset() < 11) {
    spec.interpolation = interpolation(ctx, false);
    spec.coordinates = CoordinateMode::Asymmetric;
    spec.axes = axes_from_scales(ctx, ctx.input_floats(1));
    set_legacy_rounding(spec.axes);
    return spec;
  }
  spec.interpolation = interpolation(ctx, true);
  spec.coordinates = coordinate_mode(ctx);
  spec.cubic_a = ctx.attr_float("cubic_coeff_a");
  spec.exclude_outside = ctx.attr_int("exclude_outside") != 0;
  spec.extrapolation = ctx.attr_float("extrapolation_value");
  std::optional<std::vector<double>> scales = optional_floats(ctx, 2);
  bool has_sizes = ctx.has_input(3) && te::shape_size(ctx.input_shape(3)) > 0;
  if (scales.has_value() == has_sizes)
    ctx.fail("exactly one of the inputs 'scales' and 'sizes' must be given (and not empty)");
  spec.axes = scales ? axes_from_scales(ctx, *scales) : axes_from_sizes(ctx, ctx.input_ints(3));
  NearestRounding rounding = nearest_rounding(ctx);
  for (ResampleAxis& axis : spec.axes) axis.rounding = rounding;
  if (spec.coordinates == CoordinateMode::TfCropAndResize) set_region(ctx, spec.axes);
  return spec;
}

ResampleSpec upsample_spec(const OpContext& ctx) {
  if (ctx.opset() >= 10) ctx.fail("Upsample is deprecated since opset 10: use Resize");
  ResampleSpec spec;
  spec.interpolation = interpolation(ctx, false);
  spec.coordinates = CoordinateMode::Asymmetric;
  std::vector<double> scales = ctx.opset() < 9 ? ctx.attr_floats("scales") : ctx.input_floats(1);
  for (size_t d = 0; d < scales.size(); ++d)
    if (scales[d] < 1)
      ctx.fail("scale " + std::to_string(scales[d]) + " of dimension " + std::to_string(d) +
               " is below 1");
  spec.axes = axes_from_scales(ctx, scales);
  set_legacy_rounding(spec.axes);
  return spec;
}

/// The operator record of a resampling operator whose spec comes from `spec_of`.
OpDef resample_def(std::string name, int since, std::vector<AttrSpec> attributes,
                   std::vector<int> value_inputs, ResampleSpec (*spec_of)(const OpContext&)) {
  OpDef def = make_op(
      std::move(name), since, PatternKind::Injective, std::move(attributes),
      [spec_of](const OpContext& ctx) {
        std::vector<int64_t> out;
        for (const ResampleAxis& axis : spec_of(ctx).axes) out.push_back(axis.out);
        return std::vector{graph::TensorType::of(ctx.input_type(0).dtype, out)};
      },
      [spec_of](const OpContext& ctx, const std::vector<te::Tensor>& in) {
        return std::vector{resample(in[0], spec_of(ctx), "resize")};
      },
      std::move(value_inputs));
  def.schedule = [](const OpContext& ctx, schedule::Schedule& s,
                    const std::vector<te::Tensor>& outputs) {
    schedule_resample(s, outputs, ctx.target());
  };
  return def;
}

}  // namespace

void register_resize_ops(OpRegistry& registry) {
  using graph::Attribute;
  using graph::AttrKind;
  AttrSpec mode{"mode", AttrKind::String, Attribute::of_string("nearest")};
  registry.add(resample_def(
      "Resize", 10,
      {mode,
       {"coordinate_transformation_mode", AttrKind::String, Attribute::of_string("half_pixel")},
       {"cubic_coeff_a", AttrKind::Float, Attribute::of_float(-0.75)},
       {"exclude_outside", AttrKind::Int, Attribute::of_int(0)},
       {"extrapolation_value", AttrKind::Float, Attribute::of_float(0)},
       {"nearest_mode", AttrKind::String, Attribute::of_string("round_prefer_floor")}},
      {1, 2, 3}, resize_spec));
  registry.add(resample_def("Upsample", 7, {mode, {"scales", AttrKind::Floats, std::nullopt}}, {1},
                            upsample_spec));
}

}  // namespace tessel::ops::index
