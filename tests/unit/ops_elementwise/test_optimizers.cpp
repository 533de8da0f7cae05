// The optimizer steps of ai.onnx.preview.training after their first step (T > 0: Adagrad's
// decay, Momentum's beta, Adam's bias correction), which the node suite never reaches,
// against their formulas written out here in double precision.
#include <cmath>

#include "executor/node_kernel.h"
#include "unit/ops_test_util.h"

namespace tessel::ops::testing {
namespace {

/// The outputs of `op` (domain ai.onnx.preview.training) on R = 0.1, T = 3 and `lists`
/// one-element float64 tensors.
std::vector<double> step(const std::string& op, Attributes attrs, const std::vector<double>& lists,
                         size_t outputs) {
  NDArray r = make_array(kF64, {}, {0.1}), t = make_array(kI64, {}, {3});
  std::vector<NDArray> arrays;
  for (double v : lists) arrays.push_back(make_array(kF64, {1}, {v}));
  std::vector<const NDArray*> inputs = {&r, &t};
  for (const NDArray& a : arrays) inputs.push_back(&a);
  graph::Graph g;
  graph::Node* node = add_op(g, op, inputs, std::move(attrs), 1, outputs);
  node->domain = "ai.onnx.preview.training";
  std::vector<double> results;
  for (const NDArray& out : executor::run_node(*node, inputs)) results.push_back(element(out, 0));
  return results;
}

TEST(Optimizers, AdagradDecaysItsRate) {
  double x = 1.5, g = -0.5, h = 0.3, decay = 0.2, eps = 1e-3, norm = 0.01;
  std::vector<double> out = step("Adagrad",
                                 {{"decay_factor", Attribute::of_float(decay)},
                                  {"epsilon", Attribute::of_float(eps)},
                                  {"norm_coefficient", Attribute::of_float(norm)}},
                                 {x, g, h}, 2);
  double gr = g + norm * x, h_new = h + gr * gr, rate = 0.1 / (1 + 3 * decay);
  EXPECT_NEAR(out[0], x - rate * gr / (std::sqrt(h_new) + eps), 1e-12);
  EXPECT_NEAR(out[1], h_new, 1e-12);
}

TEST(Optimizers, MomentumTakesBetaAfterTheFirstStep) {
  double x = 1.2, g = -0.9, v = 1.7, alpha = 0.9, beta = 0.3, norm = 0.01;
  for (const char* mode : {"standard", "nesterov"}) {
    std::vector<double> out = step("Momentum",
                                   {{"alpha", Attribute::of_float(alpha)},
                                    {"beta", Attribute::of_float(beta)},
                                    {"mode", Attribute::of_string(mode)},
                                    {"norm_coefficient", Attribute::of_float(norm)}},
                                   {x, g, v}, 2);
    double gr = g + norm * x, v_new = alpha * v + beta * gr;
    double direction = std::string(mode) == "standard" ? v_new : gr + alpha * v_new;
    EXPECT_NEAR(out[0], x - 0.1 * direction, 1e-12) << mode;
    EXPECT_NEAR(out[1], v_new, 1e-12) << mode;
  }
}

TEST(Optimizers, AdamCorrectsItsBias) {
  double x = 0.8, g = 0.4, v = 0.2, h = 0.05, alpha = 0.9, beta = 0.99, eps = 1e-4;
  double norm = 0.02, post = 0.1;
  std::vector<double> out = step("Adam",
                                 {{"alpha", Attribute::of_float(alpha)},
                                  {"beta", Attribute::of_float(beta)},
                                  {"epsilon", Attribute::of_float(eps)},
                                  {"norm_coefficient", Attribute::of_float(norm)},
                                  {"norm_coefficient_post", Attribute::of_float(post)}},
                                 {x, g, v, h}, 3);
  double gr = g + norm * x;
  double v_new = alpha * v + (1 - alpha) * gr, h_new = beta * h + (1 - beta) * gr * gr;
  double rate = 0.1 * std::sqrt(1 - std::pow(beta, 3)) / (1 - std::pow(alpha, 3));
  EXPECT_NEAR(out[0], (1 - post) * (x - rate * v_new / (std::sqrt(h_new) + eps)), 1e-12);
  EXPECT_NEAR(out[1], v_new, 1e-12);
  EXPECT_NEAR(out[2], h_new, 1e-12);
}

TEST(Optimizers, BadListsAreRefused) {
  NDArray r = make_array(kF32, {}, {0.1}), t = make_array(kI64, {}, {0});
  NDArray a = make_array(kF32, {2}, {1, 2}), b = make_array(kF32, {3}, {1, 2, 3});
  auto run = [&](std::vector<const NDArray*> inputs, size_t outputs) {
    graph::Graph g;
    graph::Node* node = add_op(g, "Adagrad", inputs, {}, 1, outputs);
    node->domain = "ai.onnx.preview.training";
    executor::run_node(*node, inputs);
  };
  expect_compile_error([&] { run({&r, &t, &a, &a}, 2); }, "takes R, T and 3 lists of equal length");
  expect_compile_error(
      [&] {
        run({&r, &t, &a, &b, &a}, 2);
      },
      "input 3 float32[3] differs from the tensor it belongs to, float32[2]");
  expect_compile_error([&] { run({&r, &r, &a, &a, &a}, 2); }, "T must be int64");
}

}  // namespace
}  // namespace tessel::ops::testing
