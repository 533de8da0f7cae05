// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss against a naive reference: every
// reduction, with and without weights, with ignore_index inside and outside the classes.
#include <optional>

#include "reduction_test_util.h"
#include "support/error.h"

namespace tessel::ops::testing {
namespace {

struct LossCase {
  std::string reduction;
  bool weighted;
  std::optional<int64_t> ignore_index;
};

/// The loss of log-probabilities `lp` [N, C, D] (D = product of the trailing extents)
/// against `target` [N, D]; "none" gives N*D values, "sum" / "mean" one.
Values loss_reference(const Values& lp, const Values& target, const Values& weight, int64_t n,
                      int64_t c, int64_t d, const LossCase& lc) {
  Values losses;
  double total = 0, weights = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < d; ++j) {
      auto t = static_cast<int64_t>(target[static_cast<size_t>(i * d + j)]);
      double w = 0, loss = 0;
      if (!lc.ignore_index || t != *lc.ignore_index) {
        w = lc.weighted ? weight[static_cast<size_t>(t)] : 1.0;
        loss = -lp[static_cast<size_t>((i * c + t) * d + j)] * w;
      }
      losses.push_back(loss);
      total += loss;
      weights += w;
    }
  }
  if (lc.reduction == "none") return losses;
  return {lc.reduction == "sum" ? total : total / weights};
}

/// Log-softmax over the classes (axis 1) of `x` [N, C, D].
Values log_softmax_classes(const Values& x, int64_t n, int64_t c, int64_t d) {
  Values lp(x.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < d; ++j) {
      auto at = [&](int64_t k) { return static_cast<size_t>((i * c + k) * d + j); };
      double m = x[at(0)], s = 0;
      for (int64_t k = 1; k < c; ++k) m = std::max(m, x[at(k)]);
      for (int64_t k = 0; k < c; ++k) s += std::exp(x[at(k)] - m);
      for (int64_t k = 0; k < c; ++k) lp[at(k)] = x[at(k)] - m - std::log(s);
    }
  return lp;
}

Attributes loss_attrs(const LossCase& lc) {
  Attributes attrs{{"reduction", Attribute::of_string(lc.reduction)}};
  if (lc.ignore_index) attrs["ignore_index"] = Attribute::of_int(*lc.ignore_index);
  return attrs;
}

std::vector<LossCase> loss_cases() {
  std::vector<LossCase> cases;
  for (const char* reduction : {"none", "sum", "mean"})
    for (bool weighted : {false, true})
      for (std::optional<int64_t> ii : {std::optional<int64_t>(), std::optional<int64_t>(1),
                                        std::optional<int64_t>(-3), std::optional<int64_t>(9)})
        cases.push_back({reduction, weighted, ii});
  return cases;
}

/// Targets in [0, C) with about one in four replaced by `ignored` (when given).
Values make_targets(int64_t count_, int64_t classes, std::optional<int64_t> ignored,
                    unsigned seed) {
  Values t = random_ints(count_, seed, 0, static_cast<int>(classes) - 1);
  Values pick = random_ints(count_, seed + 1, 0, 3);
  if (ignored)
    for (size_t i = 0; i < t.size(); ++i)
      if (pick[i] == 0) t[i] = static_cast<double>(*ignored);
  return t;
}

struct LossShape {
  Shape scores;
  int64_t n, c, d;
  Shape target;
};

std::vector<LossShape> loss_shapes() {
  return {{{3, 5}, 3, 5, 1, {3}}, {{2, 4, 3}, 2, 4, 3, {2, 3}}, {{2, 3, 2, 2}, 2, 3, 4, {2, 2, 2}}};
}

/// Runs every loss case, each on one of the shapes in turn, through `op` (with the
/// log-softmax output for SoftmaxCrossEntropyLoss) and compares with the reference.
void check_loss_cases(const std::string& op, DType target_type, unsigned seed) {
  bool softmax = op == "SoftmaxCrossEntropyLoss";
  std::vector<LossShape> shapes = loss_shapes();
  std::vector<LossCase> cases = loss_cases();
  for (size_t k = 0; k < cases.size(); ++k) {
    const LossCase& lc = cases[k];
    const LossShape& s = shapes[k % shapes.size()];
    SCOPED_TRACE(::testing::PrintToString(s.scores) + " " + lc.reduction + " weighted " +
                 std::to_string(lc.weighted) + " ignore " +
                 (lc.ignore_index ? std::to_string(*lc.ignore_index) : "-"));
    Values x = stored(kF32, random_values<double>({count(s.scores)}, seed, -3, 3));
    Values weight = stored(kF32, random_values<double>({s.c}, seed + 1, 0.2, 2));
    Values t = make_targets(count(s.target), s.c, lc.ignore_index, seed + 2);
    NDArray scores = make_array(kF32, s.scores, x), w = make_array(kF32, {s.c}, weight);
    NDArray target = make_array(target_type, s.target, t);
    std::vector<const NDArray*> inputs{&scores, &target};
    if (lc.weighted) inputs.push_back(&w);
    std::vector<NDArray> out = run_op_outputs(op, inputs, loss_attrs(lc), 13, softmax ? 2 : 1);
    Values lp = softmax ? log_softmax_classes(x, s.n, s.c, s.d) : x;
    Values expected = loss_reference(lp, t, weight, s.n, s.c, s.d, lc);
    expect_array(out[0], kF32, lc.reduction == "none" ? s.target : Shape{}, expected, 1e-5, 1e-6);
    if (softmax) expect_array(out[1], kF32, s.scores, lp, 1e-5, 1e-6);
  }
}

TEST(NllLoss, AllReductionsWeightsAndIgnoredTargets) {
  check_loss_cases("NegativeLogLikelihoodLoss", kI64, 3);
}

TEST(SoftmaxCrossEntropy, LossAndLogProbOutputs) {
  check_loss_cases("SoftmaxCrossEntropyLoss", kI32, 6);
}

TEST(NllLoss, BadShapesTypesAndReductionsAreCompileErrors) {
  NDArray scores = make_array(kF32, {3, 5}, random_values<double>({15}, 1));
  NDArray target = make_array(kI64, {3}, {0, 1, 2});
  NDArray short_target = make_array(kI64, {2}, {0, 1});
  NDArray float_target = make_array(kF32, {3}, {0, 1, 2});
  NDArray bad_weight = make_array(kF32, {4}, {1, 1, 1, 1});
  const std::string op = "NegativeLogLikelihoodLoss";
  EXPECT_THROW(run_op(op, {&scores, &short_target}, {}, 13), CompileError);
  EXPECT_THROW(run_op(op, {&scores, &float_target}, {}, 13), CompileError);
  EXPECT_THROW(run_op(op, {&scores, &target, &bad_weight}, {}, 13), CompileError);
  EXPECT_THROW(run_op(op, {&scores, &target}, {{"reduction", Attribute::of_string("max")}}, 13),
               CompileError);
}

}  // namespace
}  // namespace tessel::ops::testing
