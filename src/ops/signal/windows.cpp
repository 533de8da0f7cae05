// Window functions (HannWindow, HammingWindow, BlackmanWindow) and MelWeightMatrix: tensors
// generated from a few values known at compile time.
#include <cmath>
#include <numbers>

#include "graph/onnx_dtype.h"
#include "ops/op_def.h"
#include "ops/shape/shape_ops.h"
#include "ops/signal/signal_ops.h"
#include "runtime/ndarray_element.h"
#include "te/compute.h"

namespace tessel::ops::signal {
namespace {

using graph::AttrKind;

/// The element type that attribute 'output_datatype' names.
ir::DataType output_dtype(const OpContext& ctx) {
  int64_t code = ctx.attr_int("output_datatype");
  std::optional<ir::DataType> dtype = graph::data_type_from_onnx_code(code);
  if (!dtype) ctx.fail("attribute 'output_datatype' " + std::to_string(code) + " is not supported");
  return *dtype;
}

/// A generalised cosine window: w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), with
/// N the length (periodic) or the length - 1 (symmetric).
struct CosineTerms {
  double a0, a1, a2;
};

OpDef window_op(const std::string& name, CosineTerms terms) {
  OpDef def;
  def.name = name;
  def.since_version = 17;
  def.attributes = {{"output_datatype", AttrKind::Int, graph::Attribute::of_int(1)},
                    {"periodic", AttrKind::Int, graph::Attribute::of_int(1)}};
  def.pattern = PatternKind::Injective;
  def.value_inputs = {0};
  def.infer = [](const OpContext& ctx) {
    int64_t length = scalar_input(ctx, 0, "size", 0);
    shape::check_shape(ctx, {length}, "the window");
    return std::vector<graph::TensorType>{graph::TensorType::of(output_dtype(ctx), {length})};
  };
  def.compute = [terms](const OpContext& ctx, const std::vector<te::Tensor>&) {
    int64_t length = scalar_input(ctx, 0, "size", 0);
    int64_t period = ctx.attr_int("periodic") ? length : length - 1;
    double step = 2 * std::numbers::pi / static_cast<double>(std::max<int64_t>(period, 1));
    ir::DataType f64 = ir::DataType::Float(64), dtype = output_dtype(ctx);
    return std::vector<te::Tensor>{te::compute(
        {ir::Expr(length)},
        [&](te::Var n) {
          ir::Expr x = ir::cast(f64, n) * ir::Expr(step);
          ir::Expr w = ir::Expr(terms.a0) - ir::Expr(terms.a1) * ir::cos(x) +
                       ir::Expr(terms.a2) * ir::cos(ir::Expr(2.0) * x);
          return ir::cast(dtype, w);
        },
        "window")};
  };
  return def;
}

/// Hertz to the mel scale and back.
double mel_of(double hertz) {
  return 2595 * std::log10(1 + hertz / 700);
}
double hertz_of(double mel) {
  return 700 * (std::pow(10.0, mel / 2595) - 1);
}

/// MelWeightMatrix's inputs: the bins, the DFT's length, the sample rate and the band.
struct MelBank {
  int64_t mel_bins, dft_length, sample_rate;
  double lower, upper;
  int64_t spectrum_bins() const { return dft_length / 2 + 1; }
};

MelBank mel_bank(const OpContext& ctx) {
  MelBank bank;
  bank.mel_bins = scalar_input(ctx, 0, "num_mel_bins", 1);
  bank.dft_length = scalar_input(ctx, 1, "dft_length", 1);
  bank.sample_rate = scalar_input(ctx, 2, "sample_rate", 1);
  bank.lower = ctx.input_floats(3).at(0);
  bank.upper = ctx.input_floats(4).at(0);
  if (!(bank.lower >= 0 && bank.lower < bank.upper))
    ctx.fail("the band [" + std::to_string(bank.lower) + ", " + std::to_string(bank.upper) +
             "] hertz is empty or negative");
  shape::check_shape(ctx, {bank.spectrum_bins(), bank.mel_bins}, "the matrix");
  return bank;
}

/// The filter bank: mel_bins + 2 edges equally spaced on the mel scale, each mapped to the
/// DFT bin floor((dft_length + 1) * hertz / sample_rate); filter i rises linearly from edge
/// i to 1 at edge i + 1 (inclusive) and falls to edge i + 2 (exclusive).
runtime::NDArray mel_matrix(const OpContext& ctx) {
  MelBank bank = mel_bank(ctx);
  int64_t edges = bank.mel_bins + 2;
  double low = mel_of(bank.lower), step = (mel_of(bank.upper) - low) / static_cast<double>(edges);
  std::vector<int64_t> bin(static_cast<size_t>(edges));
  for (int64_t e = 0; e < edges; ++e) {
    double hertz = hertz_of(static_cast<double>(e) * step + low);
    bin[e] = static_cast<int64_t>(
        std::floor(static_cast<double>(bank.dft_length + 1) * hertz / bank.sample_rate));
  }
  int64_t rows = bank.spectrum_bins();
  std::vector<double> weights(static_cast<size_t>(rows * bank.mel_bins), 0.0);
  auto set = [&](int64_t row, int64_t filter, double w) {
    if (row < 0 || row >= rows)
      ctx.fail("filter " + std::to_string(filter) + " reaches DFT bin " + std::to_string(row) +
               " of " + std::to_string(rows) + ": the band exceeds half the sample rate");
    weights[static_cast<size_t>(row * bank.mel_bins + filter)] = w;
  };
  for (int64_t i = 0; i < bank.mel_bins; ++i) {
    int64_t left = bin[i], center = bin[i + 1], right = bin[i + 2];
    if (center == left) set(center, i, 1.0);
    for (int64_t j = left; center > left && j <= center; ++j)
      set(j, i, static_cast<double>(j - left) / static_cast<double>(center - left));
    for (int64_t j = center; j < right; ++j)
      set(j, i, static_cast<double>(right - j) / static_cast<double>(right - center));
  }
  runtime::NDArray matrix({rows, bank.mel_bins}, graph::to_runtime_dtype(output_dtype(ctx)));
  for (size_t k = 0; k < weights.size(); ++k)
    runtime::set_element_from_double(matrix, static_cast<int64_t>(k), weights[k]);
  return matrix;
}

OpDef mel_weight_matrix_op() {
  OpDef def;
  def.name = "MelWeightMatrix";
  def.since_version = 17;
  def.attributes = {{"output_datatype", AttrKind::Int, graph::Attribute::of_int(1)}};
  def.pattern = PatternKind::Opaque;
  def.value_inputs = {0, 1, 2, 3, 4};
  def.infer = [](const OpContext& ctx) {
    MelBank bank = mel_bank(ctx);
    return std::vector<graph::TensorType>{
        graph::TensorType::of(output_dtype(ctx), {bank.spectrum_bins(), bank.mel_bins})};
  };
  // Every input is known at compile time: the matrix is computed on the host, once.
  def.fold = [](const OpContext& ctx) {
    std::vector<runtime::NDArray> outputs;
    outputs.push_back(mel_matrix(ctx));
    return outputs;
  };
  return def;
}

}  // namespace

int64_t scalar_input(const OpContext& ctx, size_t i, const std::string& what, int64_t minimum) {
  std::vector<int64_t> values = ctx.input_ints(i);
  if (values.size() != 1)
    ctx.fail("input '" + what + "' must hold one value, found " + std::to_string(values.size()));
  if (values[0] < minimum)
    ctx.fail("input '" + what + "' is " + std::to_string(values[0]) +
             ", expected >= " + std::to_string(minimum));
  return values[0];
}

void register_window_ops(OpRegistry& registry) {
  registry.add(window_op("HannWindow", {0.5, 0.5, 0.0}));
  registry.add(window_op("HammingWindow", {25.0 / 46.0, 21.0 / 46.0, 0.0}));
  registry.add(window_op("BlackmanWindow", {0.42, 0.5, 0.08}));
  registry.add(mel_weight_matrix_op());
}

}  // namespace tessel::ops::signal
