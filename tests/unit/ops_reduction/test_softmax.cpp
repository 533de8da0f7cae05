// Softmax, LogSoftmax, Hardmax (both opset rules, large inputs, ties, the row-parallel
// schedule on large tensors), CumSum and TopK against naive references.
#include <algorithm>
#include <functional>
#include <numeric>

#include "reduction_test_util.h"
#include "support/error.h"

namespace tessel::ops::testing {
namespace {

/// Applies `fn` to every group of elements spanning axes [first, last) of `shape` (the
/// other positions fixed); fn gets the group's values and returns their replacements.
Values per_group(const Values& x, const Shape& shape, size_t first, size_t last,
                 const std::function<Values(const Values&)>& fn) {
  Values y(x.size());
  std::vector<bool> done(x.size(), false);
  for (int64_t i = 0; i < count(shape); ++i) {
    if (done[static_cast<size_t>(i)]) continue;
    Shape start = unravel(i, shape);
    std::vector<int64_t> members;
    Shape group_shape(shape.begin() + static_cast<int64_t>(first),
                      shape.begin() + static_cast<int64_t>(last));
    for (int64_t g = 0; g < count(group_shape); ++g) {
      Shape at = start;
      Shape offset = unravel(g, group_shape);
      for (size_t d = first; d < last; ++d) at[d] = offset[d - first];
      members.push_back(ravel(at, shape));
    }
    Values group;
    for (int64_t m : members) group.push_back(x[static_cast<size_t>(m)]);
    Values out = fn(group);
    for (size_t k = 0; k < members.size(); ++k) {
      y[static_cast<size_t>(members[k])] = out[k];
      done[static_cast<size_t>(members[k])] = true;
    }
  }
  return y;
}

Values softmax_ref(const Values& g) {
  double m = *std::max_element(g.begin(), g.end()), s = 0;
  for (double v : g) s += std::exp(v - m);
  Values r;
  for (double v : g) r.push_back(std::exp(v - m) / s);
  return r;
}

Values log_softmax_ref(const Values& g) {
  Values r = softmax_ref(g);
  double m = *std::max_element(g.begin(), g.end()), s = 0;
  for (double v : g) s += std::exp(v - m);
  for (size_t i = 0; i < g.size(); ++i) r[i] = g[i] - m - std::log(s);
  return r;
}

Values hardmax_ref(const Values& g) {
  Values r(g.size(), 0.0);
  r[static_cast<size_t>(std::max_element(g.begin(), g.end()) - g.begin())] = 1;
  return r;
}

const std::map<std::string, std::function<Values(const Values&)>>& softmax_refs() {
  static const std::map<std::string, std::function<Values(const Values&)>> refs = {
      {"Softmax", softmax_ref}, {"LogSoftmax", log_softmax_ref}, {"Hardmax", hardmax_ref}};
  return refs;
}

class SoftmaxOps : public ::testing::TestWithParam<std::string> {};

TEST_P(SoftmaxOps, NormaliseAlongOneAxisFromOpset13) {
  const std::string op = GetParam();
  Shape shape{3, 4, 5};
  Values x = stored(kF32, random_values<double>({count(shape)}, 5, -3, 3));
  NDArray input = make_array(kF32, shape, x);
  for (int64_t axis : {0, 1, 2, -1, -2}) {
    SCOPED_TRACE(op + " axis " + std::to_string(axis));
    auto a = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
    Values expected = per_group(x, shape, a, a + 1, softmax_refs().at(op));
    expect_array(run_op(op, {&input}, {{"axis", Attribute::of_int(axis)}}, 13), kF32, shape,
                 expected, 1e-5, 1e-6);
  }
  expect_array(run_op(op, {&input}, {}, 13), kF32, shape,
               per_group(x, shape, 2, 3, softmax_refs().at(op)), 1e-5, 1e-6);
}

TEST_P(SoftmaxOps, BeforeOpset13TheTrailingAxesAreFlattened) {
  const std::string op = GetParam();
  Shape shape{3, 4, 5};
  Values x = stored(kF32, random_values<double>({count(shape)}, 6, -3, 3));
  NDArray input = make_array(kF32, shape, x);
  for (int64_t axis : {0, 1, 2, -2}) {
    SCOPED_TRACE(op + " axis " + std::to_string(axis));
    auto a = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
    expect_array(run_op(op, {&input}, {{"axis", Attribute::of_int(axis)}}, 11), kF32, shape,
                 per_group(x, shape, a, 3, softmax_refs().at(op)), 1e-5, 1e-6);
  }
  // The default axis is 1 before opset 13.
  expect_array(run_op(op, {&input}, {}, 11), kF32, shape,
               per_group(x, shape, 1, 3, softmax_refs().at(op)), 1e-5, 1e-6);
}

TEST_P(SoftmaxOps, LargeTensorsUseTheRowScheduleCorrectly) {
  const std::string op = GetParam();
  for (auto [shape, opset, axis] :
       {std::tuple{Shape{64, 1001}, 13, -1}, std::tuple{Shape{6, 2, 3000}, 11, 1},
        std::tuple{Shape{4, 70, 130}, 13, 2}}) {
    SCOPED_TRACE(op + " " + ::testing::PrintToString(shape));
    Values x = stored(kF32, random_values<double>({count(shape)}, 9, -5, 5));
    NDArray input = make_array(kF32, shape, x);
    auto a = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(shape.size()) : axis);
    size_t last = opset < 13 ? shape.size() : a + 1;
    expect_array(run_op(op, {&input}, {{"axis", Attribute::of_int(axis)}}, opset), kF32, shape,
                 per_group(x, shape, a, last, softmax_refs().at(op)), 1e-4, 1e-6);
  }
}

INSTANTIATE_TEST_SUITE_P(All, SoftmaxOps, ::testing::Values("Softmax", "LogSoftmax", "Hardmax"));

TEST(Softmax, LargeValuesDoNotOverflow) {
  Shape shape{2, 4};
  Values x{0, 1, 2, 3, 10000, 10001, 10002, 10003};
  NDArray input = make_array(kF32, shape, x);
  Values row = softmax_ref({0, 1, 2, 3});
  Values expected = row;
  expected.insert(expected.end(), row.begin(), row.end());
  expect_array(run_op("Softmax", {&input}, {}, 13), kF32, shape, expected, 1e-5, 1e-6);
  Values log_row = log_softmax_ref({0, 1, 2, 3});
  Values log_expected = log_row;
  log_expected.insert(log_expected.end(), log_row.begin(), log_row.end());
  expect_array(run_op("LogSoftmax", {&input}, {}, 13), kF32, shape, log_expected, 1e-5, 1e-6);
}

TEST(Softmax, Float64AndHardmaxTiesTakeTheFirst) {
  Shape shape{2, 3};
  NDArray input = make_array(kF64, shape, {1, 3, 3, 2, 2, 2});
  expect_array(run_op("Hardmax", {&input}, {}, 13), kF64, shape, {0, 1, 0, 1, 0, 0}, 0, 0);
  Values x{0.5, -1, 2, 7, 7.5, 8};
  NDArray wide = make_array(kF64, shape, x);
  expect_array(run_op("Softmax", {&wide}, {}, 13), kF64, shape,
               per_group(x, shape, 1, 2, softmax_ref), 1e-12, 1e-15);
}

TEST(Softmax, Float16ComputesInFloat32) {
  Shape shape{3, 40};
  NDArray input = make_array(kF16, shape, random_values<double>({count(shape)}, 18, -4, 4));
  Values x = elements(input);
  std::vector<NDArray> out = run_op_outputs("Softmax", {&input}, {}, 13);
  expect_array(out[0], kF16, shape, per_group(x, shape, 1, 2, softmax_ref), 2e-3, 1e-4);
}

TEST(Softmax, BadAxisIsACompileError) {
  NDArray x = make_array(kF32, {2, 3}, random_values<double>({6}, 1));
  EXPECT_THROW(run_op("Softmax", {&x}, {{"axis", Attribute::of_int(2)}}, 13), CompileError);
  EXPECT_THROW(run_op("LogSoftmax", {&x}, {{"axis", Attribute::of_int(-3)}}, 11), CompileError);
  NDArray ints = make_array(kI32, {2}, {1, 2});
  EXPECT_THROW(run_op("Softmax", {&ints}, {}, 13), CompileError);
}

// ---- CumSum ------------------------------------------------------------------------------

Values cumsum_ref(const Values& g, bool exclusive, bool reverse) {
  Values r(g.size());
  double s = 0;
  for (size_t k = 0; k < g.size(); ++k) {
    size_t i = reverse ? g.size() - 1 - k : k;
    if (exclusive) r[i] = s;
    s += g[i];
    if (!exclusive) r[i] = s;
  }
  return r;
}

TEST(CumSum, AllDirectionsAndAxes) {
  Shape shape{3, 4, 2};
  Values x = random_ints(count(shape), 4, -9, 9);
  for (DType dtype : {kF32, kF64, kI32, kI64}) {
    NDArray input = make_array(dtype, shape, x);
    for (int64_t axis : {0, 1, 2, -1}) {
      NDArray axis_input = make_array(kI32, {}, {static_cast<double>(axis)});
      auto a = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
      for (bool exclusive : {false, true}) {
        for (bool reverse : {false, true}) {
          SCOPED_TRACE(dtype.to_string() + " axis " + std::to_string(axis) + " exclusive " +
                       std::to_string(exclusive) + " reverse " + std::to_string(reverse));
          std::vector<NDArray> out = run_op_outputs("CumSum", {&input, &axis_input},
                                                    {{"exclusive", Attribute::of_int(exclusive)},
                                                     {"reverse", Attribute::of_int(reverse)}},
                                                    14);
          expect_array(
              out[0], dtype, shape,
              per_group(x, shape, a, a + 1,
                        [&](const Values& g) { return cumsum_ref(g, exclusive, reverse); }),
              0, 0);
        }
      }
    }
  }
}

TEST(CumSum, BadAxisIsACompileError) {
  NDArray x = make_array(kF32, {2, 3}, random_values<double>({6}, 1));
  NDArray axis = make_array(kI64, {}, {2});
  EXPECT_THROW(run_op("CumSum", {&x, &axis}, {}, 14), CompileError);
}

// ---- TopK --------------------------------------------------------------------------------

/// The first k of a group sorted by value (largest or smallest first), ties by position;
/// values then positions.
std::pair<Values, Values> topk_ref(const Values& g, int64_t k, bool largest) {
  std::vector<size_t> order(g.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return largest ? g[a] > g[b] : g[a] < g[b]; });
  Values values, positions;
  for (int64_t j = 0; j < k; ++j) {
    values.push_back(g[order[static_cast<size_t>(j)]]);
    positions.push_back(static_cast<double>(order[static_cast<size_t>(j)]));
  }
  return {values, positions};
}

/// TopK along the middle axis of a [rows, n, cols] tensor, by the naive reference.
std::pair<Values, Values> topk_middle(const Values& x, const Shape& shape, int64_t k,
                                      bool largest) {
  Values values, positions;
  Shape out_shape{shape[0], k, shape[2]};
  values.resize(static_cast<size_t>(count(out_shape)));
  positions.resize(values.size());
  for (int64_t r = 0; r < shape[0]; ++r) {
    for (int64_t c = 0; c < shape[2]; ++c) {
      Values g;
      for (int64_t i = 0; i < shape[1]; ++i)
        g.push_back(x[static_cast<size_t>(ravel({r, i, c}, shape))]);
      auto [v, p] = topk_ref(g, k, largest);
      for (int64_t j = 0; j < k; ++j) {
        auto at = static_cast<size_t>(ravel({r, j, c}, out_shape));
        values[at] = v[static_cast<size_t>(j)];
        positions[at] = p[static_cast<size_t>(j)];
      }
    }
  }
  return {values, positions};
}

TEST(TopK, LargestAndSmallestWithTiesTakingTheLowerIndex) {
  Shape shape{2, 7, 3};
  Values x = random_ints(count(shape), 8, 0, 4);  // many ties
  NDArray input = make_array(kF32, shape, x);
  for (int64_t k : {1, 3, 7}) {
    for (bool largest : {true, false}) {
      SCOPED_TRACE("k " + std::to_string(k) + " largest " + std::to_string(largest));
      NDArray k_input = make_array(kI64, {1}, {static_cast<double>(k)});
      std::vector<NDArray> out = run_op_outputs(
          "TopK", {&input, &k_input},
          {{"axis", Attribute::of_int(1)}, {"largest", Attribute::of_int(largest)}}, 11, 2);
      auto [values, positions] = topk_middle(x, shape, k, largest);
      ASSERT_EQ(out.size(), 2u);
      expect_array(out[0], kF32, {2, k, 3}, values, 0, 0);
      expect_array(out[1], kI64, {2, k, 3}, positions, 0, 0);
    }
  }
}

TEST(TopK, LastAxisByDefaultAndAttributeKBeforeOpset10) {
  Shape shape{2, 5};
  Values x{5, 1, 9, 9, 3, -1, -4, 0, 2, 2};
  NDArray input = make_array(kI32, shape, x);
  NDArray k_input = make_array(kI64, {1}, {2});
  std::vector<NDArray> out = run_op_outputs("TopK", {&input, &k_input}, {}, 11, 2);
  expect_array(out[0], kI32, {2, 2}, {9, 9, 2, 2}, 0, 0);
  expect_array(out[1], kI64, {2, 2}, {2, 3, 3, 4}, 0, 0);
  std::vector<NDArray> old = run_op_outputs("TopK", {&input}, {{"k", Attribute::of_int(3)}}, 9, 2);
  expect_array(old[0], kI32, {2, 3}, {9, 9, 5, 2, 2, 0}, 0, 0);
  expect_array(old[1], kI64, {2, 3}, {2, 3, 0, 3, 4, 2}, 0, 0);
}

TEST(TopK, KOutOfRangeOrBadAxisIsACompileError) {
  NDArray x = make_array(kF32, {2, 3}, random_values<double>({6}, 1));
  NDArray k = make_array(kI64, {1}, {4});
  EXPECT_THROW(run_op_outputs("TopK", {&x, &k}, {}, 11, 2), CompileError);
  NDArray k1 = make_array(kI64, {1}, {1});
  EXPECT_THROW(run_op_outputs("TopK", {&x, &k1}, {{"axis", Attribute::of_int(2)}}, 11, 2),
               CompileError);
}

}  // namespace
}  // namespace tessel::ops::testing
