// Resampling of N-d tensors, shared by Resize and Upsample: each output coordinate maps back
// to a fractional input coordinate per dimension (ONNX's coordinate transformation modes),
// which is then rounded to the nearest element or interpolated linearly or cubically from its
// neighbours (edge elements repeat beyond the border).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "schedule/schedule.h"
#include "target/target.h"
#include "te/compute.h"

namespace tessel::ops::index {

enum class Interpolation { Nearest, Linear, Cubic };

/// How nearest interpolation rounds a fractional coordinate (ONNX's nearest_mode).
enum class NearestRounding { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };

/// ONNX's coordinate_transformation_mode: x_input as a function of x_output.
enum class CoordinateMode {
  HalfPixel,         ///< (x + 0.5) / scale - 0.5
  PytorchHalfPixel,  ///< as HalfPixel, or -0.5 when the resized length is 1
  AlignCorners,      ///< x * (in - 1) / (length - 1), or 0 when the resized length is 1
  Asymmetric,        ///< x / scale
  TfHalfPixelForNn,  ///< (x + 0.5) / scale
  TfCropAndResize,   ///< x scaled into the region of interest; outside the input: a constant
};

/// One dimension of a resampling. Coordinates compute in float64. A scale given by `sizes`
/// is kept as the ratio out / in and applied as x * in / out, so that a coordinate the
/// specification's formula puts on an integer or a tie lands exactly there (x / (out / in)
/// rounds 9 / (18 / 14) to 6.999...).
struct ResampleAxis {
  int64_t in = 1;
  int64_t out = 1;
  /// The resized length over the input length: scale_numerator / scale_denominator.
  double scale_numerator = 1;
  double scale_denominator = 1;
  /// The resized length (scale * in; not rounded to the output extent) minus 1.
  double length_minus_one = 0;
  NearestRounding rounding = NearestRounding::RoundPreferFloor;
  /// TfCropAndResize: the region of interest's end - start, and start * (in - 1).
  double roi_span = 1;
  double roi_offset = 0;

  double scale() const { return scale_numerator / scale_denominator; }
};

struct ResampleSpec {
  Interpolation interpolation = Interpolation::Nearest;
  CoordinateMode coordinates = CoordinateMode::HalfPixel;
  /// Cubic: the kernel parameter, and whether taps outside the input get no weight
  /// (the others are renormalised).
  double cubic_a = -0.75;
  bool exclude_outside = false;
  /// TfCropAndResize: the value of outputs whose coordinate falls outside the input.
  double extrapolation = 0;
  std::vector<ResampleAxis> axes;
};

/// The resampling of `x` (shape = the axes' `in`) to the axes' `out` extents. Linear and
/// cubic interpolation compute in float64 and convert to x's element type.
te::Tensor resample(const te::Tensor& x, const ResampleSpec& spec, const std::string& name);

/// The schedule of a resampling: its separable stages and its outputs vectorised along their
/// rows and run in parallel.
void schedule_resample(schedule::Schedule& s, const std::vector<te::Tensor>& outputs,
                       const target::Target& target);

/// Weights of the cubic convolution kernel with parameter `a` (Keys) for the taps at offsets
/// -1, 0, 1, 2 from floor(x), where `r` = x - floor(x) (float64).
std::array<ir::Expr, 4> cubic_weights(const ir::Expr& r, double a);

/// A float64 immediate.
ir::Expr f64(double value);

}  // namespace tessel::ops::index
