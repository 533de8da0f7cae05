// Reduce* and ArgMax / ArgMin against naive references: keepdims, negative and several
// axes, reduce-all, ReduceSum's axes input and noop_with_empty_axes, integer types, ties,
// and the errors for bad axes.
#include <algorithm>
#include <functional>
#include <limits>

#include "reduction_test_util.h"
#include "support/error.h"

namespace tessel::ops::testing {
namespace {

/// One reduction of a group of values, computed in double.
using GroupFn = std::function<double(const Values& group)>;

double sum_of(const Values& g) {
  double s = 0;
  for (double v : g) s += v;
  return s;
}

const std::map<std::string, GroupFn>& reference_reducers() {
  static const std::map<std::string, GroupFn> reducers = {
      {"ReduceSum", sum_of},
      {"ReduceMean", [](const Values& g) { return sum_of(g) / static_cast<double>(g.size()); }},
      {"ReduceMax", [](const Values& g) { return *std::max_element(g.begin(), g.end()); }},
      {"ReduceMin", [](const Values& g) { return *std::min_element(g.begin(), g.end()); }},
      {"ReduceProd",
       [](const Values& g) {
         double p = 1;
         for (double v : g) p *= v;
         return p;
       }},
      {"ReduceL1",
       [](const Values& g) {
         double s = 0;
         for (double v : g) s += std::fabs(v);
         return s;
       }},
      {"ReduceL2",
       [](const Values& g) {
         double s = 0;
         for (double v : g) s += v * v;
         return std::sqrt(s);
       }},
      {"ReduceLogSum", [](const Values& g) { return std::log(sum_of(g)); }},
      {"ReduceLogSumExp",
       [](const Values& g) {
         double s = 0;
         for (double v : g) s += std::exp(v);
         return std::log(s);
       }},
      {"ReduceSumSquare",
       [](const Values& g) {
         double s = 0;
         for (double v : g) s += v * v;
         return s;
       }},
  };
  return reducers;
}

struct Reduced {
  Shape shape;
  Values values;
};

/// Groups the elements of `x` by their position off `axes` (all axes when empty) and
/// reduces each group with `fn`.
Reduced reduce_reference(const Values& x, const Shape& shape, Shape axes, bool keepdims,
                         const GroupFn& fn) {
  auto rank = static_cast<int64_t>(shape.size());
  if (axes.empty())
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  for (int64_t& a : axes) a = a < 0 ? a + rank : a;
  auto reduced = [&](size_t d) {
    return std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
  };
  Shape kept, out_shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    kept.push_back(reduced(d) ? 1 : shape[d]);
    if (!reduced(d) || keepdims) out_shape.push_back(kept.back());
  }
  std::vector<Values> groups(static_cast<size_t>(count(kept)));
  for (int64_t i = 0; i < count(shape); ++i) {
    Shape index = unravel(i, shape);
    for (size_t d = 0; d < shape.size(); ++d)
      if (reduced(d)) index[d] = 0;
    groups[static_cast<size_t>(ravel(index, kept))].push_back(x[static_cast<size_t>(i)]);
  }
  Reduced result{out_shape, {}};
  for (const Values& g : groups) result.values.push_back(fn(g));
  return result;
}

/// Attributes (and for ReduceSum from opset 13 the axes input) of one reduction.
struct ReduceCall {
  Shape axes;  // empty: the attribute / input is omitted
  bool keepdims;
};

std::vector<NDArray> run_reduce(const std::string& op, int opset, const NDArray& x,
                                const ReduceCall& call) {
  Attributes attrs{{"keepdims", Attribute::of_int(call.keepdims)}};
  if (op == "ReduceSum" && opset >= 13) {
    if (call.axes.empty()) return run_op_outputs(op, {&x}, attrs, opset);
    Values axes(call.axes.begin(), call.axes.end());
    NDArray axes_input = make_array(kI64, {static_cast<int64_t>(axes.size())}, axes);
    return run_op_outputs(op, {&x, &axes_input}, attrs, opset);
  }
  if (!call.axes.empty()) attrs["axes"] = Attribute::of_ints(call.axes);
  return run_op_outputs(op, {&x}, attrs, opset);
}

class ReduceOps : public ::testing::TestWithParam<std::string> {};

TEST_P(ReduceOps, MatchNaiveReferenceOverAxesAndKeepdims) {
  const std::string op = GetParam();
  Shape shape{3, 4, 5};
  // Positive values keep ReduceLogSum defined.
  Values x = stored(kF32, random_values<double>({count(shape)}, 7, 0.1, 2.0));
  NDArray input = make_array(kF32, shape, x);
  std::vector<ReduceCall> calls = {{{1}, true},    {{1}, false}, {{-1}, true}, {{0, 2}, false},
                                   {{2, 0}, true}, {{}, false},  {{}, true},   {{0, 1, 2}, false}};
  for (int opset : {11, 13}) {
    for (const ReduceCall& call : calls) {
      SCOPED_TRACE(op + " opset " + std::to_string(opset) + " axes " +
                   ::testing::PrintToString(call.axes) + " keepdims " +
                   std::to_string(call.keepdims));
      Reduced expected =
          reduce_reference(x, shape, call.axes, call.keepdims, reference_reducers().at(op));
      std::vector<NDArray> out = run_reduce(op, opset, input, call);
      expect_array(out[0], kF32, expected.shape, expected.values, 1e-5, 1e-5);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, ReduceOps,
                         ::testing::Values("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                                           "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
                                           "ReduceLogSumExp", "ReduceSumSquare"));

TEST(Reduce, LogSumExpIsStableForLargeValues) {
  Shape shape{2, 3};
  Values x{1000, 1001, 1002, -1000, -1001, -1002};
  NDArray input = make_array(kF64, shape, x);
  std::vector<NDArray> out =
      run_op_outputs("ReduceLogSumExp", {&input},
                     {{"axes", Attribute::of_ints({1})}, {"keepdims", Attribute::of_int(0)}}, 13);
  double tail = std::log(1 + std::exp(-1.0) + std::exp(-2.0));
  expect_array(out[0], kF64, {2}, {1002 + tail, -1000 + tail}, 1e-12, 1e-9);
}

TEST(Reduce, ScalarInputReducesToItself) {
  NDArray x = make_array(kF32, {}, {-3.0});
  expect_array(run_op("ReduceL2", {&x}, {}, 13), kF32, {}, {3.0}, 1e-5, 1e-6);
  expect_array(run_op("ReduceSumSquare", {&x}, {}, 13), kF32, {}, {9.0}, 1e-5, 1e-6);
  expect_array(run_op("ReduceLogSumExp", {&x}, {}, 13), kF32, {}, {-3.0}, 1e-5, 1e-6);
}

TEST(Reduce, SumWithEmptyAxesInputReducesAllOrIsANoop) {
  Shape shape{2, 3};
  Values x{1, 2, 3, 4, 5, 6};
  NDArray input = make_array(kF32, shape, x);
  NDArray no_axes = make_array(kI64, {0}, {});
  std::vector<NDArray> all = run_op_outputs("ReduceSum", {&input, &no_axes}, {}, 13);
  expect_array(all[0], kF32, {1, 1}, {21}, 1e-5, 1e-6);
  std::vector<NDArray> noop = run_op_outputs("ReduceSum", {&input, &no_axes},
                                             {{"noop_with_empty_axes", Attribute::of_int(1)}}, 13);
  expect_array(noop[0], kF32, shape, x, 1e-5, 1e-6);
  std::vector<NDArray> omitted =
      run_op_outputs("ReduceSum", {&input, nullptr}, {{"keepdims", Attribute::of_int(0)}}, 13);
  expect_array(omitted[0], kF32, {}, {21}, 1e-5, 1e-6);
}

TEST(Reduce, IntegerTypesReduceExactly) {
  Shape shape{3, 4};
  Values x = random_ints(count(shape), 3, -50, 50);
  for (DType dtype : {kI32, kI64}) {
    NDArray input = make_array(dtype, shape, x);
    for (const std::string op :
         {"ReduceMax", "ReduceMin", "ReduceSum", "ReduceProd", "ReduceL1", "ReduceSumSquare"}) {
      SCOPED_TRACE(op + " " + dtype.to_string());
      Reduced expected = reduce_reference(x, shape, {1}, false, reference_reducers().at(op));
      std::vector<NDArray> out = run_reduce(op, 13, input, {{1}, false});
      expect_array(out[0], dtype, expected.shape, expected.values, 0, 0);
    }
  }
  // The mean of integers is truncated towards zero, as a float mean converted back.
  NDArray small = make_array(kI32, {1, 3}, {-1, -2, -2});
  expect_array(run_reduce("ReduceMean", 13, small, {{1}, false})[0], kI32, {1}, {-1}, 0, 0);
}

TEST(Reduce, Float16AccumulatesInFloat32) {
  Shape shape{2, 500};
  NDArray input = make_array(kF16, shape, random_values<double>({count(shape)}, 19, 0, 1));
  Values x = elements(input);
  for (const std::string op : {"ReduceSum", "ReduceMean", "ReduceL2"}) {
    SCOPED_TRACE(op);
    Reduced expected = reduce_reference(x, shape, {1}, false, reference_reducers().at(op));
    std::vector<NDArray> out = run_reduce(op, 13, input, {{1}, false});
    expect_array(out[0], kF16, expected.shape, expected.values, 1e-3, 0);
  }
}

TEST(Reduce, BadAxesAreCompileErrors) {
  NDArray x = make_array(kF32, {2, 3, 4}, random_values<double>({24}, 1));
  EXPECT_THROW(run_op("ReduceMax", {&x}, {{"axes", Attribute::of_ints({3})}}, 13), CompileError);
  EXPECT_THROW(run_op("ReduceMax", {&x}, {{"axes", Attribute::of_ints({-4})}}, 13), CompileError);
  EXPECT_THROW(run_op("ReduceMean", {&x}, {{"axes", Attribute::of_ints({1, -2})}}, 13),
               CompileError);
  NDArray axes = make_array(kI64, {1}, {5});
  EXPECT_THROW(run_op("ReduceSum", {&x, &axes}, {}, 13), CompileError);
  // From opset 13 on ReduceSum takes its axes as an input, not an attribute.
  EXPECT_THROW(run_op("ReduceSum", {&x}, {{"axes", Attribute::of_ints({1})}}, 13), CompileError);
}

TEST(Reduce, LargeTrailingReductionsRunRowsInParallel) {
  Shape shape{64, 40, 20};
  Values x = stored(kF32, random_values<double>({count(shape)}, 12, 0.1, 2.0));
  NDArray input = make_array(kF32, shape, x);
  for (const std::string op : {"ReduceMean", "ReduceLogSumExp", "ReduceMax"}) {
    for (bool keepdims : {true, false}) {
      SCOPED_TRACE(op + " keepdims " + std::to_string(keepdims));
      Attributes attrs{{"axes", Attribute::of_ints({1, 2})},
                       {"keepdims", Attribute::of_int(keepdims)}};
      InspectedRun run = run_and_inspect(op, {&input}, attrs, 13);
      EXPECT_NE(run.ir.find("parallel"), std::string::npos);
      Reduced expected = reduce_reference(x, shape, {1, 2}, keepdims, reference_reducers().at(op));
      expect_array(run.outputs[0], kF32, expected.shape, expected.values, 1e-5, 1e-5);
    }
  }
}

TEST(Reduce, ReductionsOverLeadingAxesAccumulateColumnsOfVectors) {
  // The last axis kept and a whole number of vectors long: columns accumulated a vector at
  // a time (vectorized, parallel when large); 48 lanes-multiple columns with 1 to 3 axes.
  const int64_t lanes = 16;  // a multiple of every target's float lanes
  for (Shape shape : {Shape{37, 3 * lanes}, Shape{7, 5, 2 * lanes}, Shape{1024, 2 * lanes}}) {
    Values x = stored(kF32, random_values<double>({count(shape)}, 21, 0.1, 2.0));
    NDArray input = make_array(kF32, shape, x);
    Shape axes = shape.size() == 3 ? Shape{0, 1} : Shape{0};
    for (const std::string op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceLogSumExp"}) {
      for (bool keepdims : {true, false}) {
        SCOPED_TRACE(op + " over " + std::to_string(axes.size()) + " axes of " +
                     std::to_string(shape[0]) + " rows, keepdims " + std::to_string(keepdims));
        Attributes attrs{{"axes", Attribute::of_ints(axes)},
                         {"keepdims", Attribute::of_int(keepdims)}};
        if (op == "ReduceSum") attrs.erase("axes");
        std::vector<const NDArray*> inputs{&input};
        NDArray axes_input = make_array(DType::Int(64), {static_cast<int64_t>(axes.size())},
                                        Values(axes.begin(), axes.end()));
        if (op == "ReduceSum") inputs.push_back(&axes_input);
        InspectedRun run = run_and_inspect(op, inputs, attrs, 13);
        EXPECT_NE(run.ir.find("ramp("), std::string::npos);  // vector loads and stores
        Reduced expected = reduce_reference(x, shape, axes, keepdims, reference_reducers().at(op));
        expect_array(run.outputs[0], kF32, expected.shape, expected.values, 1e-5, 1e-4);
      }
    }
  }
}

// ---- ArgMax / ArgMin ---------------------------------------------------------------------

/// Position of the first (or last) extreme element of each line along `axis`.
Reduced arg_reference(const Values& x, const Shape& shape, int64_t axis, bool keepdims, bool is_max,
                      bool last) {
  auto better = [&](double a, double b) { return is_max ? a > b : a < b; };
  Shape axes{axis};
  Reduced positions = reduce_reference(x, shape, axes, keepdims, [&](const Values& g) {
    size_t best = 0;
    for (size_t i = 1; i < g.size(); ++i)
      if (better(g[i], g[best]) || (last && g[i] == g[best])) best = i;
    return static_cast<double>(best);
  });
  return positions;
}

TEST(ArgReduce, FirstOrLastIndexOfTheExtremeWithTies) {
  Shape shape{3, 4, 5};
  Values x = random_ints(count(shape), 11, 0, 3);  // many ties
  NDArray input = make_array(kF32, shape, x);
  for (const std::string op : {"ArgMax", "ArgMin"}) {
    for (int64_t axis : {0, 1, 2, -1, -3}) {
      for (bool keepdims : {true, false}) {
        for (bool last : {false, true}) {
          SCOPED_TRACE(op + " axis " + std::to_string(axis) + " keepdims " +
                       std::to_string(keepdims) + " last " + std::to_string(last));
          Attributes attrs{{"axis", Attribute::of_int(axis)},
                           {"keepdims", Attribute::of_int(keepdims)},
                           {"select_last_index", Attribute::of_int(last)}};
          std::vector<NDArray> out = run_op_outputs(op, {&input}, attrs, 13);
          Reduced expected =
              arg_reference(x, shape, axis < 0 ? axis + 3 : axis, keepdims, op == "ArgMax", last);
          expect_array(out[0], kI64, expected.shape, expected.values, 0, 0);
        }
      }
    }
  }
}

TEST(ArgReduce, LargeLastAxisRunsRowsInParallel) {
  Shape shape{256, 150};
  Values x = random_ints(count(shape), 13, -20, 20);
  NDArray input = make_array(kI32, shape, x);
  Attributes attrs{{"axis", Attribute::of_int(-1)}, {"keepdims", Attribute::of_int(0)}};
  InspectedRun run = run_and_inspect("ArgMin", {&input}, attrs, 13);
  EXPECT_NE(run.ir.find("parallel"), std::string::npos);
  Reduced expected = arg_reference(x, shape, 1, false, false, false);
  expect_array(run.outputs[0], kI64, expected.shape, expected.values, 0, 0);
}

TEST(ArgReduce, DefaultAxisIsZeroAndIntegerInputsWork) {
  Shape shape{4, 2};
  Values x{3, -7, 9, 2, 9, 8, -1, 8};
  NDArray input = make_array(kI64, shape, x);
  expect_array(run_op("ArgMax", {&input}, {}, 11), kI64, {1, 2}, {1, 2}, 0, 0);
  expect_array(run_op("ArgMin", {&input}, {{"keepdims", Attribute::of_int(0)}}, 11), kI64, {2},
               {3, 0}, 0, 0);
}

TEST(ArgReduce, BadAxisIsACompileError) {
  NDArray x = make_array(kF32, {2, 3}, random_values<double>({6}, 2));
  EXPECT_THROW(run_op("ArgMax", {&x}, {{"axis", Attribute::of_int(2)}}, 13), CompileError);
  EXPECT_THROW(run_op("ArgMin", {&x}, {{"axis", Attribute::of_int(-3)}}, 13), CompileError);
}

}  // namespace
}  // namespace tessel::ops::testing
