// eval_interval: symbolic intervals for bound inference.
#include <gtest/gtest.h>

#include <sstream>

#include "arith/analyzer.h"
#include "ir/printer.h"

namespace tessel::arith {
namespace {

using namespace ir;

std::string show(const IntervalSet& s) {
  std::ostringstream os;
  os << "[";
  if (s.min.defined())
    os << s.min;
  else
    os << "-inf";
  os << ", ";
  if (s.max.defined())
    os << s.max;
  else
    os << "+inf";
  os << "]";
  return os.str();
}

TEST(EvalInterval, LinearIndexOfASplitLoop) {
  Var io("i_outer"), ii("i_inner");
  Analyzer a;
  VarDomain dom{{ii.get(), IntervalSet::from_range(0, 4)}};
  EXPECT_EQ(show(a.eval_interval(io * 4 + ii, dom)), "[i_outer * 4, i_outer * 4 + 3]");
  EXPECT_EQ(show(a.eval_interval(io * 4 - ii * 2, dom)), "[i_outer * 4 - 6, i_outer * 4]");
  EXPECT_EQ(show(a.eval_interval(io, dom)), "[i_outer, i_outer]");
  // Correlated occurrences cancel before intervals are taken.
  EXPECT_EQ(show(a.eval_interval(io * 4 + ii - ii, dom)), "[i_outer * 4, i_outer * 4]");
}

TEST(EvalInterval, SymbolicDomains) {
  Var i("i"), n("n"), k("k");
  Analyzer a;
  VarDomain dom{{i.get(), IntervalSet::from_range(k, n)}};
  EXPECT_EQ(show(a.eval_interval(i * 2 + 1, dom)), "[k * 2 + 1, k * 2 + n * 2 - 1]");
  EXPECT_EQ(show(a.eval_interval(0 - i, dom)), "[1 - k - n, 0 - k]");
}

TEST(EvalInterval, DivisionAndModulo) {
  Var io("io"), ii("ii");
  Analyzer a;
  a.bind(io, 0, 16);
  VarDomain dom{{ii.get(), IntervalSet::from_range(0, 4)}};
  EXPECT_EQ(show(a.eval_interval((io * 4 + ii) / 2, dom)), "[io * 2, io * 2 + 1]");
  EXPECT_EQ(show(a.eval_interval((io * 4 + ii) / -2, dom)), "[(io * 4 + 3) / -2, io * 4 / -2]");
  // Within one period of the divisor: exact.
  EXPECT_EQ(show(a.eval_interval((io * 4 + ii) % 8, dom)), "[io % 2 * 4, io % 2 * 4 + 3]");
  // Across periods: falls back to constant bounds.
  EXPECT_EQ(show(a.eval_interval((io * 4 + ii) % 3, dom)), "[0, 2]");
}

TEST(EvalInterval, MinMaxSelect) {
  Var i("i"), n("n");
  Analyzer a;
  VarDomain dom{{i.get(), IntervalSet::from_range(0, 10)}};
  EXPECT_EQ(show(a.eval_interval(min(i, n), dom)), "[min(n, 0), min(n, 9)]");
  EXPECT_EQ(show(a.eval_interval(max(i * 2, 5), dom)), "[5, 18]");
  EXPECT_EQ(show(a.eval_interval(select(n < 3, i, i + n), dom)), "[min(n, 0), max(n + 9, 9)]");
}

TEST(EvalInterval, UnsafeSymbolicCasesFallBackToConstantBounds) {
  Var i("i"), j("j"), n("n");
  Analyzer a;
  a.bind(j, 0, 3);
  VarDomain dom{{i.get(), IntervalSet::from_range(0, 10)}};
  EXPECT_EQ(show(a.eval_interval(i * j, dom)), "[0, j * 9]");  // j >= 0 is invariant
  EXPECT_EQ(show(a.eval_interval(i * n, dom)), "[-inf, +inf]");
  EXPECT_EQ(show(a.eval_interval(i * i, dom)), "[0, 81]");
  VarDomain open{{i.get(), IntervalSet{Expr(0), Expr()}}};
  EXPECT_EQ(show(a.eval_interval(i + 1, open)), "[1, +inf]");
  EXPECT_EQ(show(a.eval_interval(min(i, 5), open)), "[0, 5]");
}

}  // namespace
}  // namespace tessel::arith
