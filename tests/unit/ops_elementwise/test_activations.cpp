// Activation functions against their textbook formulas in double precision, with default
// and explicit attributes, on every float type (NaN and infinities included).
#include "unit/ops_elementwise/elementwise_test_util.h"

namespace tessel::ops::testing {
namespace {

using Attributes = std::map<std::string, graph::Attribute>;

struct ActivationCase {
  std::string op;
  Attributes attributes;
  std::function<double(double)> reference;
};

graph::Attribute f(double v) {
  return graph::Attribute::of_float(v);
}

/// The attribute values as the model stores them (float32).
double f32(double v) {
  return static_cast<float>(v);
}

double sigmoid(double x) {
  return 1 / (1 + std::exp(-x));
}
double clamp01(double v) {
  return std::isnan(v) ? v : std::min(1.0, std::max(0.0, v));
}
double celu(double x, double alpha) {
  return std::isnan(x) ? x : std::max(0.0, x) + std::min(0.0, alpha * (std::exp(x / alpha) - 1));
}

std::vector<ActivationCase> cases() {
  const double selu_alpha = f32(1.67326319217681884765625),
               selu_gamma = f32(1.05070102214813232421875);
  return {
      {"Relu", {}, [](double x) { return x < 0 ? 0 : x; }},
      {"LeakyRelu", {}, [](double x) { return x < 0 ? f32(0.01) * x : x; }},
      {"LeakyRelu", {{"alpha", f(0.3)}}, [](double x) { return x < 0 ? f32(0.3) * x : x; }},
      {"Elu", {}, [](double x) { return x < 0 ? std::exp(x) - 1 : x; }},
      {"Elu", {{"alpha", f(2)}}, [](double x) { return x < 0 ? 2 * (std::exp(x) - 1) : x; }},
      {"Selu",
       {},
       [=](double x) { return selu_gamma * (x <= 0 ? selu_alpha * (std::exp(x) - 1) : x); }},
      {"Selu",
       {{"alpha", f(2)}, {"gamma", f(3)}},
       [](double x) { return 3 * (x <= 0 ? 2 * (std::exp(x) - 1) : x); }},
      {"Celu", {}, [](double x) { return celu(x, 1); }},
      {"Celu", {{"alpha", f(2)}}, [](double x) { return celu(x, 2); }},
      {"Sigmoid", {}, sigmoid},
      {"HardSigmoid", {}, [](double x) { return clamp01(f32(0.2) * x + 0.5); }},
      {"HardSigmoid",
       {{"alpha", f(0.5)}, {"beta", f(0.25)}},
       [](double x) { return clamp01(0.5 * x + 0.25); }},
      {"HardSwish", {}, [](double x) { return x * clamp01(x / 6 + 0.5); }},
      {"Softplus", {}, [](double x) { return std::log1p(std::exp(x)); }},
      {"Softsign", {}, [](double x) { return x / (1 + std::fabs(x)); }},
      {"Tanh", {}, [](double x) { return std::tanh(x); }},
      {"ThresholdedRelu", {}, [](double x) { return x > 1 ? x : 0; }},
      {"ThresholdedRelu", {{"alpha", f(-0.5)}}, [](double x) { return x > -0.5 ? x : 0; }},
      {"Shrink", {}, [](double x) { return x < -0.5  ? x
                                           : x > 0.5 ? x
                                                     : 0; }},
      {"Shrink",
       {{"lambd", f(1.5)}, {"bias", f(0.25)}},
       [](double x) { return x < -1.5  ? x + 0.25
                             : x > 1.5 ? x - 0.25
                                       : 0; }},
  };
}

TEST(Activations, MatchFormulas) {
  std::vector<double> values = {kNaN, kInf, -kInf, 0.0, -0.0, 30.0, -30.0, 1.0, -1.0, 0.5, -0.5};
  for (int k = 0; k < 37; ++k) values.push_back(-6 + k / 3.0);
  for (const ActivationCase& c : cases()) {
    for (DType dtype : {kF32, kF64, kF16}) {
      std::vector<double> inputs = stored(dtype, values);
      int64_t n = static_cast<int64_t>(inputs.size());
      NDArray x = make_array(dtype, {n}, inputs);
      std::string what = c.op + " on " + dtype.to_string();
      std::vector<NDArray> y;
      try {
        y = run_op_outputs(c.op, {&x}, c.attributes);
      } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": " << e.what();
        continue;
      }
      std::vector<double> expected;
      for (double v : inputs) expected.push_back(c.reference(v));
      double rtol = dtype == kF32 ? 1e-5 : rtol_for(dtype);
      expect_array(y[0], dtype, {n}, stored(dtype, expected), rtol, 1e-6, what);
    }
  }
}

TEST(Activations, IntegerReluAndShrink) {
  NDArray x = make_array(kI32, {6}, {-3, -1, 0, 1, 2, 5});
  expect_array(run_op("Relu", {&x}), kI32, {6}, {0, 0, 0, 1, 2, 5});
  Attributes attributes = {{"lambd", f(1.5)}, {"bias", f(1)}};
  expect_array(run_op("Shrink", {&x}, attributes), kI32, {6}, {-2, 0, 0, 0, 1, 4});
  NDArray u = make_array(kU8, {4}, {0, 1, 2, 200});
  expect_array(run_op("Shrink", {&u}, attributes), kU8, {4}, {0, 0, 1, 199});
}

}  // namespace
}  // namespace tessel::ops::testing
