// Det against the Laplace (cofactor) expansion written out here, a different algorithm from
// the elimination tessel compiles: orders 1 to 5 with batch axes, matrices that need row
// swaps (zeros on the diagonal) and singular ones.
#include "unit/ops_test_util.h"

namespace tessel::ops::testing {
namespace {

/// det of the n x n row-major matrix m, by expansion along the first row.
double laplace(const std::vector<double>& m, int64_t n) {
  if (n == 1) return m[0];
  double total = 0;
  for (int64_t c = 0; c < n; ++c) {
    std::vector<double> minor;
    for (int64_t r = 1; r < n; ++r)
      for (int64_t j = 0; j < n; ++j)
        if (j != c) minor.push_back(m[r * n + j]);
    total += (c % 2 ? -1 : 1) * m[c] * laplace(minor, n - 1);
  }
  return total;
}

void expect_det(const NDArray& x, int64_t n, double tolerance) {
  NDArray y = run_op("Det", {&x});
  int64_t matrices = x.size() / (n * n);
  ASSERT_EQ(y.size(), matrices);
  for (int64_t b = 0; b < matrices; ++b) {
    std::vector<double> m;
    for (int64_t e = 0; e < n * n; ++e) m.push_back(element(x, b * n * n + e));
    EXPECT_NEAR(element(y, b), laplace(m, n), tolerance) << "order " << n << ", matrix " << b;
  }
}

TEST(Det, MatchesTheCofactorExpansion) {
  for (int64_t n = 1; n <= 5; ++n) {
    Shape shape = {2, 3, n, n};
    expect_det(make_array(kF64, shape, random_values<double>(shape, static_cast<uint64_t>(n))), n,
               1e-9);
  }
}

TEST(Det, SwapsRowsAndFindsSingularMatrices) {
  // Zeros on the diagonal force swaps; the second matrix repeats a row, the third a column
  // of zeros.
  NDArray x = make_array(kF32, {3, 3, 3}, {0, 2, 1, 3, 0, 4, 5, 6, 0,  //
                                           1, 2, 3, 4, 5, 6, 1, 2, 3,  //
                                           0, 1, 2, 0, 3, 4, 0, 5, 6});
  expect_det(x, 3, 1e-5);
  NDArray rect = make_array(kF32, {2, 3}, std::vector<double>(6, 1));
  expect_compile_error([&] { run_op("Det", {&rect}); }, "must be [..., n, n]: square matrices");
}

}  // namespace
}  // namespace tessel::ops::testing
