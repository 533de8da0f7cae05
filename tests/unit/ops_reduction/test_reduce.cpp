// Reduce* and ArgMax / ArgMin against naive references: keepdims, negative and several
// axes, reduce-all, ReduceSum's axes input and noop_with_empty_axes, integer types, ties,
// and the errors for bad axes.
#include <algorithm>
#include <functional>
#include <limits>

#include "reduction_test_util.h"
#include "support/error.h"

namespace tessel::reduction_test {
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
  Attrs attrs{{"keepdims", Attribute::of_int(call.keepdims)}};
  if (op == "ReduceSum" && opset >= 13) {
    if (call.axes.empty()) return run_op(op, opset, {&x}, attrs);
    Values axes(call.axes.begin(), call.axes.end());
    NDArray axes_input = make_array({static_cast<int64_t>(axes.size())}, DType::Int(64), axes);
    return run_op(op, opset, {&x, &axes_input}, attrs);
  }
  if (!call.axes.empty()) attrs["axes"] = Attribute::of_ints(call.axes);
  return run_op(op, opset, {&x}, attrs);
}

class ReduceOps : public ::testing::TestWithParam<std::string> {};

TEST_P(ReduceOps, MatchNaiveReferenceOverAxesAndKeepdims) {
  const std::string op = GetParam();
  Shape shape{3, 4, 5};
  // Positive values keep ReduceLogSum defined.
  Values x = as_float32(random_values(count(shape), 7, 0.1, 2.0));
  NDArray input = floats(shape, x);
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
      expect_close(out[0], expected.shape, expected.values, 1e-5, 1e-5);
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
  NDArray input = make_array(shape, DType::Float(64), x);
  std::vector<NDArray> out =
      run_op("ReduceLogSumExp", 13, {&input},
             {{"axes", Attribute::of_ints({1})}, {"keepdims", Attribute::of_int(0)}});
  double tail = std::log(1 + std::exp(-1.0) + std::exp(-2.0));
  expect_close(out[0], {2}, {1002 + tail, -1000 + tail}, 1e-12, 1e-9);
}

TEST(Reduce, ScalarInputReducesToItself) {
  NDArray x = floats({}, {-3.0});
  expect_close(run_op("ReduceL2", 13, {&x})[0], {}, {3.0});
  expect_close(run_op("ReduceSumSquare", 13, {&x})[0], {}, {9.0});
  expect_close(run_op("ReduceLogSumExp", 13, {&x})[0], {}, {-3.0});
}

TEST(Reduce, SumWithEmptyAxesInputReducesAllOrIsANoop) {
  Shape shape{2, 3};
  Values x{1, 2, 3, 4, 5, 6};
  NDArray input = floats(shape, x);
  NDArray no_axes = make_array({0}, DType::Int(64), {});
  std::vector<NDArray> all = run_op("ReduceSum", 13, {&input, &no_axes});
  expect_close(all[0], {1, 1}, {21});
  std::vector<NDArray> noop =
      run_op("ReduceSum", 13, {&input, &no_axes}, {{"noop_with_empty_axes", Attribute::of_int(1)}});
  expect_close(noop[0], shape, x);
  std::vector<NDArray> omitted =
      run_op("ReduceSum", 13, {&input, nullptr}, {{"keepdims", Attribute::of_int(0)}});
  expect_close(omitted[0], {}, {21});
}

TEST(Reduce, IntegerTypesReduceExactly) {
  Shape shape{3, 4};
  Values x = random_ints(count(shape), 3, -50, 50);
  for (DType dtype : {DType::Int(32), DType::Int(64)}) {
    NDArray input = make_array(shape, dtype, x);
    for (const std::string op :
         {"ReduceMax", "ReduceMin", "ReduceSum", "ReduceProd", "ReduceL1", "ReduceSumSquare"}) {
      SCOPED_TRACE(op + " " + dtype.to_string());
      Reduced expected = reduce_reference(x, shape, {1}, false, reference_reducers().at(op));
      std::vector<NDArray> out = run_reduce(op, 13, input, {{1}, false});
      EXPECT_EQ(out[0].dtype(), dtype);
      expect_close(out[0], expected.shape, expected.values, 0, 0);
    }
  }
  // The mean of integers is truncated towards zero, as a float mean converted back.
  NDArray small = make_array({1, 3}, DType::Int(32), {-1, -2, -2});
  expect_close(run_reduce("ReduceMean", 13, small, {{1}, false})[0], {1}, {-1}, 0, 0);
}

TEST(Reduce, Float16AccumulatesInFloat32) {
  Shape shape{2, 500};
  NDArray input = make_array(shape, DType::Float(16), random_values(count(shape), 19, 0, 1));
  Values x = values_of(input);
  for (const std::string op : {"ReduceSum", "ReduceMean", "ReduceL2"}) {
    SCOPED_TRACE(op);
    Reduced expected = reduce_reference(x, shape, {1}, false, reference_reducers().at(op));
    std::vector<NDArray> out = run_reduce(op, 13, input, {{1}, false});
    EXPECT_EQ(out[0].dtype(), DType::Float(16));
    expect_close(out[0], expected.shape, expected.values, 1e-3, 0);
  }
}

TEST(Reduce, BadAxesAreCompileErrors) {
  NDArray x = floats({2, 3, 4}, random_values(24, 1));
  EXPECT_THROW(run_op("ReduceMax", 13, {&x}, {{"axes", Attribute::of_ints({3})}}), CompileError);
  EXPECT_THROW(run_op("ReduceMax", 13, {&x}, {{"axes", Attribute::of_ints({-4})}}), CompileError);
  EXPECT_THROW(run_op("ReduceMean", 13, {&x}, {{"axes", Attribute::of_ints({1, -2})}}),
               CompileError);
  NDArray axes = make_array({1}, DType::Int(64), {5});
  EXPECT_THROW(run_op("ReduceSum", 13, {&x, &axes}), CompileError);
  // From opset 13 on ReduceSum takes its axes as an input, not an attribute.
  EXPECT_THROW(run_op("ReduceSum", 13, {&x}, {{"axes", Attribute::of_ints({1})}}), CompileError);
}

TEST(Reduce, LargeTrailingReductionsRunRowsInParallel) {
  Shape shape{64, 40, 20};
  Values x = as_float32(random_values(count(shape), 12, 0.1, 2.0));
  NDArray input = floats(shape, x);
  for (const std::string op : {"ReduceMean", "ReduceLogSumExp", "ReduceMax"}) {
    for (bool keepdims : {true, false}) {
      SCOPED_TRACE(op + " keepdims " + std::to_string(keepdims));
      Attrs attrs{{"axes", Attribute::of_ints({1, 2})}, {"keepdims", Attribute::of_int(keepdims)}};
      InspectedRun run = run_and_inspect(op, 13, {&input}, attrs);
      EXPECT_NE(run.ir.find("parallel"), std::string::npos);
      Reduced expected = reduce_reference(x, shape, {1, 2}, keepdims, reference_reducers().at(op));
      expect_close(run.outputs[0], expected.shape, expected.values, 1e-5, 1e-5);
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
  NDArray input = floats(shape, x);
  for (const std::string op : {"ArgMax", "ArgMin"}) {
    for (int64_t axis : {0, 1, 2, -1, -3}) {
      for (bool keepdims : {true, false}) {
        for (bool last : {false, true}) {
          SCOPED_TRACE(op + " axis " + std::to_string(axis) + " keepdims " +
                       std::to_string(keepdims) + " last " + std::to_string(last));
          Attrs attrs{{"axis", Attribute::of_int(axis)},
                      {"keepdims", Attribute::of_int(keepdims)},
                      {"select_last_index", Attribute::of_int(last)}};
          std::vector<NDArray> out = run_op(op, 13, {&input}, attrs);
          EXPECT_EQ(out[0].dtype(), DType::Int(64));
          Reduced expected =
              arg_reference(x, shape, axis < 0 ? axis + 3 : axis, keepdims, op == "ArgMax", last);
          expect_close(out[0], expected.shape, expected.values, 0, 0);
        }
      }
    }
  }
}

TEST(ArgReduce, LargeLastAxisRunsRowsInParallel) {
  Shape shape{256, 150};
  Values x = random_ints(count(shape), 13, -20, 20);
  NDArray input = make_array(shape, DType::Int(32), x);
  Attrs attrs{{"axis", Attribute::of_int(-1)}, {"keepdims", Attribute::of_int(0)}};
  InspectedRun run = run_and_inspect("ArgMin", 13, {&input}, attrs);
  EXPECT_NE(run.ir.find("parallel"), std::string::npos);
  Reduced expected = arg_reference(x, shape, 1, false, false, false);
  expect_close(run.outputs[0], expected.shape, expected.values, 0, 0);
}

TEST(ArgReduce, DefaultAxisIsZeroAndIntegerInputsWork) {
  Shape shape{4, 2};
  Values x{3, -7, 9, 2, 9, 8, -1, 8};
  NDArray input = make_array(shape, DType::Int(64), x);
  expect_close(run_op("ArgMax", 11, {&input})[0], {1, 2}, {1, 2}, 0, 0);
  expect_close(run_op("ArgMin", 11, {&input}, {{"keepdims", Attribute::of_int(0)}})[0], {2}, {3, 0},
               0, 0);
}

TEST(ArgReduce, BadAxisIsACompileError) {
  NDArray x = floats({2, 3}, random_values(6, 2));
  EXPECT_THROW(run_op("ArgMax", 13, {&x}, {{"axis", Attribute::of_int(2)}}), CompileError);
  EXPECT_THROW(run_op("ArgMin", 13, {&x}, {{"axis", Attribute::of_int(-3)}}), CompileError);
}

}  // namespace
}  // namespace tessel::reduction_test
