// RNN, GRU and LSTM as operators: bad inputs and attributes give errors naming them, and a
// cell run node by node (without the compiler's rewrites) says why it cannot run. Their
// numbers are checked through the compiler against the ONNX node suite and ONNX Runtime
// (tests/onnx-cases/recurrent).
#include <gtest/gtest.h>

#include "unit/ops_nn/nn_test_util.h"

namespace tessel::ops::testing {
namespace {

/// LSTM inputs X [2, 1, 3], W, R for hidden size 4 and `directions`.
struct LstmInputs {
  explicit LstmInputs(int64_t directions = 1)
      : x(array_of<float>({2, 1, 3}, std::vector<float>(6, 0.5f))),
        w(array_of<float>({directions, 16, 3}, std::vector<float>(directions * 48, 0.1f))),
        r(array_of<float>({directions, 16, 4}, std::vector<float>(directions * 64, 0.1f))) {}
  NDArray x, w, r;
};

std::vector<NDArray> run_lstm(const std::vector<const NDArray*>& inputs, Attributes attributes) {
  return run_op_outputs("LSTM", inputs, std::move(attributes), 14, 3);
}

TEST(Recurrent, InputShapesThatDisagreeAreNamed) {
  LstmInputs in;
  NDArray w_rows = array_of<float>({1, 12, 3}, std::vector<float>(36));
  expect_compile_error(
      [&] {
        run_lstm({&in.x, &w_rows, &in.r}, {});
      },
      {"input W", "[1, 12, 3]", "[1, 16, 3]", "4 * hidden_size"});
  NDArray bias = array_of<float>({1, 16}, std::vector<float>(16));
  expect_compile_error(
      [&] {
        run_lstm({&in.x, &in.w, &in.r, &bias}, {});
      },
      {"input B", "[1, 16]", "[1, 32]"});
  NDArray lengths = array_of<int64_t>({1}, {2});
  expect_compile_error(
      [&] {
        run_lstm({&in.x, &in.w, &in.r, nullptr, &lengths}, {});
      },
      {"sequence_lens", "int64", "int32"});
  NDArray h0 = array_of<float>({1, 2, 4}, std::vector<float>(8));
  expect_compile_error(
      [&] {
        run_lstm({&in.x, &in.w, &in.r, nullptr, nullptr, &h0}, {});
      },
      {"initial_h", "[1, 2, 4]", "[1, 1, 4]"});
  NDArray x2 = array_of<float>({6}, std::vector<float>(6));
  expect_compile_error([&] { run_lstm({&x2, &in.w, &in.r}, {}); }, {"input X", "3-d"});
}

TEST(Recurrent, AttributesOutOfTheirDomainAreNamed) {
  LstmInputs one, two(2);
  expect_compile_error(
      [&] {
        run_lstm({&one.x, &one.w, &one.r}, {{"direction", Attribute::of_string("sideways")}});
      },
      {"'direction'", "sideways"});
  expect_compile_error(
      [&] {
        run_lstm({&one.x, &one.w, &one.r},
                 {{"activations", Attribute::of_strings({"Sigmoid", "Cube", "Tanh"})}});
      },
      {"activation 'Cube'"});
  // Bidirectional takes 3 functions per direction.
  expect_compile_error(
      [&] {
        run_lstm({&two.x, &two.w, &two.r},
                 {{"direction", Attribute::of_string("bidirectional")},
                  {"activations", Attribute::of_strings({"Sigmoid", "Tanh", "Tanh", "Relu"})}});
      },
      {"'activations'", "4 functions", "expected 6"});
  expect_compile_error(
      [&] {
        run_lstm({&two.x, &two.w, &two.r},
                 {{"direction", Attribute::of_string("bidirectional")},
                  {"activations", Attribute::of_strings({"Sigmoid", "Tanh", "Tanh"})}});
      },
      {"'activations'", "3 functions", "expected 6"});
  expect_compile_error(
      [&] {
        run_lstm({&one.x, &one.w, &one.r}, {{"clip", Attribute::of_float(-1.0)}});
      },
      {"'clip'", "positive"});
  expect_compile_error(
      [&] {
        run_lstm({&one.x, &one.w, &one.r}, {{"hidden_size", Attribute::of_int(5)}});
      },
      {"input W", "[1, 20, 3]"});
}

TEST(Recurrent, ACellRunNodeByNodeSaysTheCompilerUnrollsIt) {
  LstmInputs in;
  expect_compile_error(
      [&] {
        run_lstm({&in.x, &in.w, &in.r}, {});
      },
      {"no kernel of its own", "graph rewrites"});
}

}  // namespace
}  // namespace tessel::ops::testing
