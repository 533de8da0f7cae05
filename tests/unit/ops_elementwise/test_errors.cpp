// Bad input to element-wise operators: CompileErrors that name the node and the problem.
#include "unit/ops_elementwise/elementwise_test_util.h"

namespace tessel::ops::testing {
namespace {

/// The message of the CompileError that running `op` raises ("" when none is raised).
std::string error_of(const std::string& op, const std::vector<const NDArray*>& inputs,
                     std::map<std::string, graph::Attribute> attributes = {}, int opset = 17) {
  try {
    run_op(op, inputs, std::move(attributes), opset);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& message, const std::vector<std::string>& parts) {
  ASSERT_FALSE(message.empty()) << "no CompileError";
  for (const std::string& part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
}

TEST(Errors, IncompatibleBroadcastShapesAreNamed) {
  NDArray a = make_array(kF32, {2, 3}, std::vector<double>(6, 1));
  NDArray b = make_array(kF32, {4}, std::vector<double>(4, 1));
  NDArray c = make_array(kF32, {3}, std::vector<double>(3, 1));
  expect_error(error_of("Add", {&a, &b}), {"Add", "[2,3]", "[4]", "broadcast"});
  expect_error(error_of("Equal", {&a, &b}), {"Equal", "[2,3]", "[4]"});
  expect_error(error_of("Sum", {&a, &c, &b}), {"Sum", "[2,3]", "[4]"});
  NDArray condition = make_array(kBool, {5}, std::vector<double>(5, 1));
  expect_error(error_of("Where", {&condition, &a, &a}), {"Where", "[5]", "[2,3]"});
}

TEST(Errors, PReluSlopeMustBroadcastToTheInput) {
  NDArray x = make_array(kF32, {3}, {1, 2, 3});
  NDArray slope = make_array(kF32, {2, 3}, std::vector<double>(6, 1));
  expect_error(error_of("PRelu", {&x, &slope}), {"PRelu", "[2,3]", "[3]"});
}

TEST(Errors, MismatchedElementTypes) {
  NDArray f = make_array(kF32, {2}, {1, 2});
  NDArray i = make_array(kI32, {2}, {1, 2});
  expect_error(error_of("Add", {&f, &i}), {"Add", "float32", "int32", "same element type"});
  expect_error(error_of("Max", {&f, &i}), {"Max", "float32", "int32"});
  expect_error(error_of("And", {&f, &f}), {"And", "float32", "bool"});
  expect_error(error_of("Where", {&f, &f, &f}), {"Where", "input 0", "float32", "bool"});
  expect_error(error_of("Sum", {&i, &i}), {"Sum", "int32", "floating-point"});
}

TEST(Errors, BadAttributes) {
  NDArray f = make_array(kF32, {2}, {1, 2});
  expect_error(error_of("Mod", {&f, &f}), {"Mod", "'fmod' must be 1", "float32"});
  NDArray u = make_array(kU8, {2}, {1, 2});
  expect_error(error_of("BitShift", {&u, &u}, {{"direction", graph::Attribute::of_string("UP")}}),
               {"BitShift", "direction", "UP"});
  expect_error(error_of("BitShift", {&u, &u}), {"BitShift", "direction", "required"});
  expect_error(error_of("Cast", {&f}), {"Cast", "'to'", "required"});
}

TEST(Errors, WrongInputCounts) {
  NDArray f = make_array(kF32, {2}, {1, 2});
  expect_error(error_of("Add", {&f}), {"Add", "expected 2 inputs, found 1"});
  expect_error(error_of("Relu", {&f, &f}), {"Relu", "expected 1 inputs, found 2"});
  expect_error(error_of("Clip", {&f, &f}, {}, 6), {"Clip", "expected 1 inputs, found 2"});
  NDArray pair = make_array(kF32, {2}, {0, 1});
  expect_error(error_of("Clip", {&f, &pair}, {}, 13), {"Clip", "min", "scalar"});
}

}  // namespace
}  // namespace tessel::ops::testing
