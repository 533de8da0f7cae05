// Cast, CastLike, Where, Clip, Identity and Dropout (inference, and training by its values),
// against C conversions and naive loops, across element types and opset versions.
#include "unit/ops_elementwise/elementwise_test_util.h"

namespace tessel::ops::testing {
namespace {

using Attributes = std::map<std::string, graph::Attribute>;

/// ONNX TensorProto data type codes of the element types.
int onnx_code(DType t) {
  if (t == kF32) return 1;
  if (t == kU8) return 2;
  if (t == kI8) return 3;
  if (t == kU16) return 4;
  if (t == kI16) return 5;
  if (t == kI32) return 6;
  if (t == kI64) return 7;
  if (t == kBool) return 9;
  if (t == kF16) return 10;
  if (t == kF64) return 11;
  if (t == kU32) return 12;
  if (t == kU64) return 13;
  return 16;  // bfloat16
}

/// `v` converted to `to` as C does (float to integer truncates toward zero).
double convert(double v, DType to) {
  if (to == kBool) return v != 0 ? 1 : 0;
  if (to.code == runtime::DTypeCode::Int || to.code == runtime::DTypeCode::UInt)
    return std::trunc(v);
  return v;
}

TEST(Cast, BetweenAllNumericTypes) {
  const std::vector<DType> types = {kF32, kF64, kF16, kBF16, kI8,  kI16, kI32,
                                    kI64, kU8,  kU16, kU32,  kU64, kBool};
  // Values every type can hold after truncation (no overflow, no negative to unsigned).
  const std::vector<double> values = {0, 1, 2.75, 100.5, 7, 0.25, 3, 126};
  for (DType from : types) {
    std::vector<double> inputs = stored(from, values);
    NDArray x = make_array(from, {2, 4}, inputs);
    for (DType to : types) {
      std::vector<double> expected;
      for (double v : inputs) expected.push_back(convert(v, to));
      std::string what = "Cast " + from.to_string() + " to " + to.to_string();
      expect_array(run_op("Cast", {&x}, {{"to", graph::Attribute::of_int(onnx_code(to))}}), to,
                   {2, 4}, stored(to, expected), 0, 0, what);
      // CastLike shares Cast's conversion: a few target types suffice.
      if (to != kF16 && to != kI64 && to != kBool) continue;
      NDArray like = make_array(to, {1}, {0});
      expect_array(run_op("CastLike", {&x, &like}), to, {2, 4}, stored(to, expected), 0, 0,
                   "CastLike " + from.to_string() + " to " + to.to_string());
    }
  }
}

TEST(Cast, SpecialFloatValues) {
  NDArray x = make_array(kF64, {5}, {kNaN, kInf, -kInf, 1e-300, 70000});
  expect_array(run_op("Cast", {&x}, {{"to", graph::Attribute::of_int(10)}}), kF16, {5},
               {kNaN, kInf, -kInf, 0, kInf});
  expect_array(run_op("Cast", {&x}, {{"to", graph::Attribute::of_int(1)}}), kF32, {5},
               {kNaN, kInf, -kInf, 0, 70000});
  expect_array(run_op("Cast", {&x}, {{"to", graph::Attribute::of_int(9)}}), kBool, {5},
               {1, 1, 1, 1, 1});
}

TEST(Cast, NumbersBecomeShortestText) {
  NDArray x = make_array(kF32, {3}, {1, -2.5, 0.1f});
  NDArray y = run_op("Cast", {&x}, {{"to", graph::Attribute::of_int(8)}});
  ASSERT_TRUE(y.dtype().is_string());
  ASSERT_EQ(y.size(), 3);
  // 0.1f is not exactly 0.1; its text must read back as the same float.
  EXPECT_EQ(y.string_at(0), "1");
  EXPECT_EQ(y.string_at(1), "-2.5");
  EXPECT_EQ(std::stof(std::string(y.string_at(2))), 0.1f);
}

TEST(Cast, RejectsUnknownCodes) {
  NDArray x = make_array(kF32, {2}, {1, 2});
  for (int code : {14, 99}) {
    try {
      run_op("Cast", {&x}, {{"to", graph::Attribute::of_int(code)}});
      ADD_FAILURE() << "Cast to code " << code << " was accepted";
    } catch (const CompileError& e) {
      EXPECT_NE(std::string(e.what()).find(code == 14 ? "complex" : "99"), std::string::npos)
          << e.what();
    }
  }
}

TEST(Where, BroadcastsAllThreeInputs) {
  NDArray condition = make_array(kBool, {2, 1, 4}, {1, 0, 0, 1, 0, 1, 1, 0});
  NDArray x = make_array(kF32, {3, 1}, {10, 20, 30});
  NDArray y = make_array(kF32, {4}, {-1, -2, -3, -4});
  std::vector<double> expected;
  for (int64_t k = 0; k < 24; ++k) {
    int64_t i = k / 12, j = (k / 4) % 3, l = k % 4;
    bool c = element(condition, i * 4 + l) != 0;
    expected.push_back(c ? element(x, j) : element(y, l));
  }
  expect_array(run_op("Where", {&condition, &x, &y}), kF32, {2, 3, 4}, expected);

  for (DType t : {kI64, kU8, kBool, kF16, kF64}) {
    NDArray a = make_array(t, {4}, {1, 0, 1, 1});
    NDArray b = make_array(t, {}, {0});
    NDArray c = make_array(kBool, {4}, {1, 1, 0, 0});
    expect_array(run_op("Where", {&c, &a, &b}), t, {4}, {1, 0, 0, 0}, 0, 0, t.to_string());
  }
}

TEST(Clip, AttributesBeforeOpset11) {
  NDArray x = make_array(kF32, {6}, {-5, -1, 0, 0.5, 3, kNaN});
  Attributes bounds = {{"min", graph::Attribute::of_float(-1.5)},
                       {"max", graph::Attribute::of_float(1)}};
  expect_array(run_op("Clip", {&x}, bounds, 6), kF32, {6}, {-1.5, -1, 0, 0.5, 1, kNaN});
  expect_array(run_op("Clip", {&x}, {}, 6), kF32, {6}, {-5, -1, 0, 0.5, 3, kNaN});
}

TEST(Clip, OptionalInputsFromOpset11) {
  for (DType t : {kF32, kF64, kF16, kI8, kI32, kI64, kU8, kU64}) {
    bool is_unsigned = t.code == runtime::DTypeCode::UInt;
    std::vector<double> values = is_unsigned ? std::vector<double>{0, 1, 2, 5, 9, 100}
                                             : std::vector<double>{-5, -1, 0, 2, 9, 100};
    NDArray x = make_array(t, {2, 3}, values);
    NDArray lo = make_array(t, {}, {is_unsigned ? 1.0 : -1.0});
    NDArray hi = make_array(t, {1}, {9});
    auto clip = [&](double v, bool use_lo, bool use_hi) {
      if (use_lo) v = std::max(v, is_unsigned ? 1.0 : -1.0);
      if (use_hi) v = std::min(v, 9.0);
      return v;
    };
    for (int mask = 0; mask < 4; ++mask) {
      bool use_lo = mask & 1, use_hi = mask & 2;
      std::vector<double> expected;
      for (double v : values) expected.push_back(clip(v, use_lo, use_hi));
      std::vector<const NDArray*> inputs = {&x, use_lo ? &lo : nullptr};
      if (use_hi) inputs.push_back(&hi);
      expect_array(run_op("Clip", inputs, {}, 13), t, {2, 3}, expected, 0, 0,
                   "Clip " + t.to_string() + " bounds " + std::to_string(mask));
    }
  }
}

TEST(Identity, CopiesEveryType) {
  for (DType t : {kF32, kF16, kBF16, kI64, kU8, kBool}) {
    NDArray x = make_array(t, {2, 2}, {1, 0, 1, 1});
    expect_array(run_op("Identity", {&x}), t, {2, 2}, {1, 0, 1, 1}, 0, 0, t.to_string());
  }
}

TEST(Dropout, InferenceIsIdentityWithAllTrueMask) {
  NDArray x = make_array(kF32, {3, 2}, {1, -2, 3, -4, 5, kNaN});
  std::vector<double> same = {1, -2, 3, -4, 5, kNaN};
  // Opset 7: ratio attribute, mask of the input's type.
  auto old = run_op_outputs("Dropout", {&x}, {{"ratio", graph::Attribute::of_float(0.2)}}, 7, 2);
  expect_array(old[0], kF32, {3, 2}, same);
  expect_array(old[1], kF32, {3, 2}, {1, 1, 1, 1, 1, 1});
  // Opset 12+: ratio and training_mode inputs, bool mask.
  NDArray ratio = make_array(kF32, {}, {0.5});
  NDArray training = make_array(kBool, {}, {0});
  auto plain = run_op_outputs("Dropout", {&x}, {}, 13, 1);
  ASSERT_EQ(plain.size(), 1u);
  expect_array(plain[0], kF32, {3, 2}, same);
  auto masked = run_op_outputs("Dropout", {&x, &ratio, &training}, {}, 13, 2);
  expect_array(masked[0], kF32, {3, 2}, same);
  expect_array(masked[1], kBool, {3, 2}, {1, 1, 1, 1, 1, 1});
  // Training with a zero ratio drops nothing.
  NDArray zero = make_array(kF32, {}, {0});
  NDArray on = make_array(kBool, {}, {1});
  expect_array(run_op_outputs("Dropout", {&x, &zero, &on}, {}, 13, 2)[1], kBool, {3, 2},
               {1, 1, 1, 1, 1, 1});
}

TEST(Dropout, TrainingRatioOutsideZeroToOneIsRefused) {
  // (Training itself: tests/unit/passes/test_random_rules.cpp.)
  NDArray x = make_array(kF32, {4}, {1, 2, 3, 4});
  NDArray bad = make_array(kF32, {}, {1.5}), on = make_array(kBool, {}, {1});
  expect_compile_error(
      [&] {
        run_op("Dropout", {&x, &bad, &on}, {}, 13);
      },
      "the ratio is 1.500000, expected 0 to 1");
}

}  // namespace
}  // namespace tessel::ops::testing
