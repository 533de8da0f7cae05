// Binary operators with numpy broadcasting (arithmetic, logic, comparisons, PRelu) against
// naive loops in double precision, for each element type they accept.
#include "unit/ops_elementwise/elementwise_test_util.h"

namespace tessel::ops::testing {
namespace {

using Reference = std::function<double(double, double)>;
using Attributes = std::map<std::string, graph::Attribute>;

struct Shapes {
  std::vector<int64_t> a, b, out;
};

const std::vector<Shapes> kShapes = {
    {{2, 3, 4}, {2, 3, 4}, {2, 3, 4}}, {{2, 3, 4}, {3, 1}, {2, 3, 4}},
    {{4}, {2, 3, 1}, {2, 3, 4}},       {{}, {2, 3}, {2, 3}},
    {{1, 17}, {3, 1}, {3, 17}},
};

/// `values` repeated to fill `shape`.
std::vector<double> fill(const std::vector<int64_t>& shape, const std::vector<double>& values) {
  std::vector<double> result;
  for (int64_t k = 0; k < count(shape); ++k)
    result.push_back(values[static_cast<size_t>(k) % values.size()]);
  return result;
}

struct BinaryCheck {
  std::string op;
  Reference reference;
  DType a_type, b_type, out_type;
  std::vector<double> a_values, b_values;
  Attributes attributes = {};
  int opset = 17;
  double rtol = 0;  ///< 0: rtol_for(out_type)
};

/// Runs the check on every shape pair of kShapes for float32 inputs, on one broadcasting
/// pair for other types (the broadcast does not depend on the element type).
void check(const BinaryCheck& c) {
  for (const Shapes& s : kShapes) {
    if (c.a_type != kF32 && &s != &kShapes[1]) continue;
    std::vector<double> a = stored(c.a_type, fill(s.a, c.a_values));
    std::vector<double> b = stored(c.b_type, fill(s.b, c.b_values));
    NDArray a_array = make_array(c.a_type, s.a, a);
    NDArray b_array = make_array(c.b_type, s.b, b);
    std::string what = c.op + "(" + c.a_type.to_string() + ", " + c.b_type.to_string() + ")";
    std::vector<NDArray> y;
    try {
      y = run_op_outputs(c.op, {&a_array, &b_array}, c.attributes, c.opset);
    } catch (const std::exception& e) {
      ADD_FAILURE() << what << ": " << e.what();
      return;
    }
    std::vector<double> expected;
    for (int64_t k = 0; k < count(s.out); ++k)
      expected.push_back(c.reference(a[static_cast<size_t>(broadcast_index(s.out, s.a, k))],
                                     b[static_cast<size_t>(broadcast_index(s.out, s.b, k))]));
    expected = stored(c.out_type, expected);
    double rtol = c.rtol ? c.rtol : rtol_for(c.out_type);
    expect_array(y[0], c.out_type, s.out, expected, rtol, 1e-6, what);
  }
}

/// The check of `op` with both inputs and the output of `dtype`.
BinaryCheck same(std::string op, Reference reference, DType dtype, std::vector<double> a,
                 std::vector<double> b, Attributes attributes = {}) {
  return {std::move(op), std::move(reference), dtype,        dtype,
          dtype,         std::move(a),         std::move(b), std::move(attributes)};
}

const std::vector<DType> kFloatTypes = {kF32, kF64, kF16};
const std::vector<DType> kIntTypes = {kI8, kI16, kI32, kI64, kU8, kU16, kU32, kU64};
const std::vector<DType> kSignedTypes = {kI8, kI16, kI32, kI64};

const std::vector<double> kFloatA = {1.5, -2.25, 0.0, 3.0, -7.5, 100.0, kNaN, kInf, -0.5};
const std::vector<double> kFloatB = {2.0, -0.5, 4.0, -3.0, 0.75, kInf};
const std::vector<double> kIntA = {7, -7, 0, 13, -13, 100, 1, -1};
const std::vector<double> kIntB = {2, -2, 3, -5, 1, 7};
const std::vector<double> kUintA = {7, 0, 13, 100, 1, 200, 255};
const std::vector<double> kUintB = {2, 3, 5, 1, 7};

TEST(Binary, AddSubMul) {
  struct Op {
    const char* name;
    Reference reference;
  };
  const Op ops[] = {{"Add", [](double a, double b) { return a + b; }},
                    {"Sub", [](double a, double b) { return a - b; }},
                    {"Mul", [](double a, double b) { return a * b; }}};
  for (const Op& op : ops) {
    for (DType t : kFloatTypes) check(same(op.name, op.reference, t, kFloatA, kFloatB));
    for (DType t : kSignedTypes) check(same(op.name, op.reference, t, kIntA, kIntB));
    // Unsigned results wrap around (uint8 7 - 200 == 63).
    for (DType t : kIntTypes) check(same(op.name, op.reference, t, kUintA, kUintB));
  }
}

TEST(Binary, DivTruncatesIntegersTowardZero) {
  auto divide = [](double a, double b) { return a / b; };
  auto truncating = [](double a, double b) { return std::trunc(a / b); };
  for (DType t : kFloatTypes) check(same("Div", divide, t, kFloatA, {2.0, -0.5, 0.0, -3.0, kInf}));
  for (DType t : kSignedTypes) check(same("Div", truncating, t, kIntA, kIntB));
  for (DType t : kIntTypes) check(same("Div", truncating, t, kUintA, kUintB));
}

TEST(Binary, ModFloorsByDefaultAndTruncatesWithFmod) {
  auto floor_mod = [](double a, double b) { return a - b * std::floor(a / b); };
  auto c_fmod = [](double a, double b) { return std::fmod(a, b); };
  Attributes fmod = {{"fmod", graph::Attribute::of_int(1)}};
  for (DType t : kSignedTypes) {
    check(same("Mod", floor_mod, t, kIntA, kIntB));
    check(same("Mod", c_fmod, t, kIntA, kIntB, fmod));
  }
  for (DType t : kIntTypes) check(same("Mod", c_fmod, t, kUintA, kUintB, fmod));
  for (DType t : kFloatTypes)
    check(
        same("Mod", c_fmod, t, {5.5, -5.5, 0.0, 7.25, -1.0, kInf}, {2.0, -2.0, 0.75, kInf}, fmod));
}

TEST(Binary, PowWithMixedTypes) {
  auto power = [](double a, double b) { return std::pow(a, b); };
  for (DType t : kFloatTypes)
    check(same("Pow", power, t, {1.5, 2.0, 0.5, 3.0, 0.0, -2.0}, {2.0, 0.5, -1.0, 3.0}));
  std::vector<double> bases = {1.5, 2.0, -2.0, 3.0, 0.5}, exponents = {2, 3, 0, 1, -1};
  for (DType exponent : {kI32, kI64, kU32, kU64, kF64, kI8})
    check({"Pow", power, kF32, exponent, kF32, bases, {2, 3, 0, 1, 4}});
  check({"Pow", power, kF32, kI64, kF32, bases, exponents});
  check({"Pow", power, kI32, kF32, kI32, {1, 2, 3, 4, 5}, {2, 3, 0, 1, 1.5}});
  check({"Pow", power, kI64, kI64, kI64, {1, 2, 3, -2, 5}, {2, 3, 0, 1, 10}});
  check({"Pow", power, kI32, kI32, kI32, {1, 2, 3, -2, 5}, {2, 3, 0, 1, 10}});
}

TEST(Binary, BitShiftBothDirections) {
  auto left = [](double a, double b) {
    return b >= 64 ? 0.0 : static_cast<double>(static_cast<uint64_t>(a) << static_cast<int>(b));
  };
  auto right = [](double a, double b) {
    return b >= 64 ? 0.0 : static_cast<double>(static_cast<uint64_t>(a) >> static_cast<int>(b));
  };
  for (DType t : {kU8, kU16, kU32, kU64}) {
    std::vector<double> shifts = {0, 1, 3, 7, static_cast<double>(t.bits), t.bits + 1.0};
    // The reference shifts in 64 bits; storing the result wraps it to the element width.
    check(same("BitShift", left, t, {1, 3, 255, 16, 0}, shifts,
               {{"direction", graph::Attribute::of_string("LEFT")}}));
    check(same("BitShift", right, t, {1, 3, 255, 16, 200}, shifts,
               {{"direction", graph::Attribute::of_string("RIGHT")}}));
  }
}

TEST(Binary, LogicOnBools) {
  std::vector<double> a = {1, 0, 1, 0, 1}, b = {1, 1, 0};
  check({"And", [](double x, double y) { return double(x && y); }, kBool, kBool, kBool, a, b});
  check({"Or", [](double x, double y) { return double(x || y); }, kBool, kBool, kBool, a, b});
  check({"Xor", [](double x, double y) { return double(x != y); }, kBool, kBool, kBool, a, b});
}

TEST(Binary, ComparisonsIncludingNaN) {
  struct Op {
    const char* name;
    Reference reference;
  };
  const Op ops[] = {{"Equal", [](double a, double b) { return double(a == b); }},
                    {"Greater", [](double a, double b) { return double(a > b); }},
                    {"Less", [](double a, double b) { return double(a < b); }},
                    {"GreaterOrEqual", [](double a, double b) { return double(a >= b); }},
                    {"LessOrEqual", [](double a, double b) { return double(a <= b); }}};
  for (const Op& op : ops) {
    for (DType t : kFloatTypes)
      check({op.name, op.reference, t, t, kBool, {1.5, kNaN, -2, 4, kInf}, {1.5, -2, kNaN, 7}});
    for (DType t : kSignedTypes) check({op.name, op.reference, t, t, kBool, kIntA, kIntB});
    for (DType t : kIntTypes) check({op.name, op.reference, t, t, kBool, kUintA, kUintB});
  }
  check({"Equal",
         [](double a, double b) { return double(a == b); },
         kBool,
         kBool,
         kBool,
         {1, 0, 1},
         {1, 0}});
}

TEST(Binary, PReluBroadcastsTheSlopeToTheInput) {
  auto prelu = [](double x, double slope) { return x < 0 ? slope * x : x; };
  std::vector<double> x = {-1.5, 2.0, -0.25, 0.0, 3.0, -4.0, kNaN};
  for (std::vector<int64_t> slope_shape : {std::vector<int64_t>{3, 1}, {4}, {1}, {}}) {
    NDArray input = make_array(kF32, {2, 3, 4}, stored(kF32, fill({2, 3, 4}, x)));
    NDArray slope = make_array(kF32, slope_shape, fill(slope_shape, {0.1, 0.2, 0.3, 0.4}));
    std::vector<double> in = elements(input), s = elements(slope), expected;
    for (int64_t k = 0; k < 24; ++k)
      expected.push_back(prelu(in[static_cast<size_t>(k)],
                               s[static_cast<size_t>(broadcast_index({2, 3, 4}, slope_shape, k))]));
    expect_array(run_op("PRelu", {&input, &slope}), kF32, {2, 3, 4}, stored(kF32, expected));
  }
  NDArray ints = make_array(kI32, {4}, {-3, 2, -1, 0});
  NDArray int_slope = make_array(kI32, {1}, {2});
  expect_array(run_op("PRelu", {&ints, &int_slope}), kI32, {4}, {-6, 2, -2, 0});
}

}  // namespace
}  // namespace tessel::ops::testing
