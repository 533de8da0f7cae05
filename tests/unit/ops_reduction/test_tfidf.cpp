// TfIdfVectorizer against a naive n-gram count written here: random token rows and pools of
// 1- to 3-grams, every mode with and without weights, skips, and the pools refused.
#include <random>

#include "reduction_test_util.h"

namespace tessel::ops::testing {
namespace {

struct PoolSpec {
  std::vector<int64_t> pool, counts, indexes;
  std::vector<double> weights;
};

/// Per row of `x` [rows, cols]: for each n-gram i of the pool with min <= n <= max, its
/// occurrences (tokens d apart, d = 1 .. max_skip + 1; a 1-gram once), weighted by mode.
Values reference(const Values& x, int64_t rows, int64_t cols, const PoolSpec& p, int64_t min_n,
                 int64_t max_n, int64_t max_skip, const std::string& mode) {
  int64_t outputs = *std::max_element(p.indexes.begin(), p.indexes.end()) + 1;
  Values y(static_cast<size_t>(rows * outputs), 0.0);
  size_t entry = 0;
  for (size_t level = 0; level < p.counts.size(); ++level) {
    int64_t n = static_cast<int64_t>(level) + 1;
    int64_t end = level + 1 < p.counts.size() ? p.counts[level + 1]
                                              : static_cast<int64_t>(p.pool.size());
    for (int64_t at = p.counts[level]; at < end; at += n, ++entry) {
      if (n < min_n || n > max_n) continue;
      for (int64_t r = 0; r < rows; ++r) {
        double hits = 0;
        for (int64_t d = 1; d <= (n == 1 ? 1 : max_skip + 1); ++d)
          for (int64_t s = 0; s + (n - 1) * d < cols; ++s) {
            bool all = true;
            for (int64_t k = 0; k < n; ++k)
              all = all && x[static_cast<size_t>(r * cols + s + k * d)] == p.pool[at + k];
            hits += all;
          }
        double w = p.weights.empty() ? 1.0 : p.weights[entry];
        double v = mode == "TF" ? hits : mode == "IDF" ? (hits > 0 ? w : 0) : hits * w;
        y[static_cast<size_t>(r * outputs + p.indexes[entry])] = v;
      }
    }
  }
  return y;
}

Attributes attributes(const PoolSpec& p, int64_t min_n, int64_t max_n, int64_t max_skip,
                      const std::string& mode) {
  Attributes a = {{"min_gram_length", Attribute::of_int(min_n)},
                  {"max_gram_length", Attribute::of_int(max_n)},
                  {"max_skip_count", Attribute::of_int(max_skip)},
                  {"mode", Attribute::of_string(mode)},
                  {"ngram_counts", Attribute::of_ints(p.counts)},
                  {"ngram_indexes", Attribute::of_ints(p.indexes)},
                  {"pool_int64s", Attribute::of_ints(p.pool)}};
  if (!p.weights.empty()) a["weights"] = Attribute::of_floats(p.weights);
  return a;
}

TEST(TfIdf, CountsEveryModeAgainstNaiveLoops) {
  // 3 unigrams, 3 bigrams and 2 trigrams over tokens 0..4 (many repeats), coordinates
  // shuffled; rows of 11 tokens.
  PoolSpec p;
  p.pool = {1, 2, 4, 1, 2, 3, 3, 0, 0, 1, 2, 1, 2, 3, 4};
  p.counts = {0, 3, 9};
  p.indexes = {7, 0, 3, 1, 6, 2, 4, 5};
  const int64_t rows = 3, cols = 11;
  Values x = random_ints(rows * cols, 5, 0, 4);
  for (std::string mode : {"TF", "IDF", "TFIDF"}) {
    for (bool weighted : {false, true}) {
      p.weights = weighted ? std::vector<double>{0.5, 2, 1.5, 0.25, 3, 1, 0.75, 4}
                           : std::vector<double>{};
      for (auto [min_n, max_n, skip] : {std::tuple{1, 3, 0}, std::tuple{2, 3, 2}, std::tuple{1, 1, 4},
                                        std::tuple{3, 3, 3}}) {
        SCOPED_TRACE(mode + (weighted ? " weighted" : "") + ", n " + std::to_string(min_n) + "-" +
                     std::to_string(max_n) + ", skip " + std::to_string(skip));
        NDArray in = make_array(kI64, {rows, cols}, x);
        NDArray y = run_op("TfIdfVectorizer", {&in}, attributes(p, min_n, max_n, skip, mode), 9);
        EXPECT_EQ(y.shape(), (Shape{rows, 8}));
        Values want = reference(x, rows, cols, p, min_n, max_n, skip, mode);
        Values got = elements(y);
        ASSERT_EQ(got.size(), want.size());
        for (size_t k = 0; k < got.size(); ++k) EXPECT_FLOAT_EQ(got[k], want[k]) << "element " << k;
      }
    }
  }
}

TEST(TfIdf, OneRowOfInt32Tokens) {
  PoolSpec p{{5, 6, 7, 8, 6, 7}, {0, 0}, {0, 1, 2}, {}};
  Values x = {1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8};
  NDArray in = make_array(kI32, {12}, x);
  NDArray y = run_op("TfIdfVectorizer", {&in}, attributes(p, 2, 2, 5, "TF"), 9);
  EXPECT_EQ(y.shape(), (Shape{3}));
  Values want = reference(x, 1, 12, p, 2, 2, 5, "TF");
  EXPECT_EQ(elements(y), want);
}

TEST(TfIdf, BadPoolsAreRefused) {
  NDArray in = make_array(kI64, {2, 4}, Values(8, 1));
  PoolSpec p{{1, 2, 3}, {0, 2}, {0, 1, 2}, {}};  // the 2-grams from position 2: 1 token
  expect_compile_error([&] { run_op("TfIdfVectorizer", {&in}, attributes(p, 1, 2, 0, "TF"), 9); },
                       "not whole 2-grams");
  p = {{1, 2, 3}, {0}, {0, 1, 1}, {}};
  expect_compile_error([&] { run_op("TfIdfVectorizer", {&in}, attributes(p, 1, 1, 0, "TF"), 9); },
                       "maps two n-grams to coordinate 1");
  p = {{1, 2, 3}, {0}, {0, 1, 2}, {}};
  expect_compile_error([&] { run_op("TfIdfVectorizer", {&in}, attributes(p, 1, 1, 0, "BM25"), 9); },
                       "mode must be TF, IDF or TFIDF");
  expect_compile_error([&] { run_op("TfIdfVectorizer", {&in}, attributes(p, 2, 1, 0, "TF"), 9); },
                       "expected 1 <= min <= max");
  NDArray floats = make_array(kF32, {4}, Values(4, 1));
  expect_compile_error([&] { run_op("TfIdfVectorizer", {&floats}, attributes(p, 1, 1, 0, "TF"), 9); },
                       "input X must be a 1-d or 2-d int32 or int64 tensor");
}

}  // namespace
}  // namespace tessel::ops::testing
