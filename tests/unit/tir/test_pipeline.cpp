// Tests of the pass pipeline driver: the whole pipeline preserves results, and the
// print_after / stop_after / verify / time_passes options behave as documented.
#include <gtest/gtest.h>

#include <sstream>

#include "ir/structural.h"
#include "pass_test_util.h"
#include "support/error.h"
#include "tir/pipeline.h"
#include "tir/storage_flatten.h"

namespace tessel::tir {
namespace {

using namespace ir;
using testing::expect_same_results;

const DataType f32 = DataType::Float(32);

/// C = A x B (n x kk times kk x m) as lowering would emit it: j split by 4 with a tail
/// guard, the inner part vectorized, k split by 2 with the inner part unrolled.
PrimFunc matmul(int64_t n, int64_t m, int64_t kk) {
  Buffer a = Buffer::make("A", f32, {make_int(n), make_int(kk)});
  Buffer b = Buffer::make("B", f32, {make_int(kk), make_int(m)});
  Buffer c = Buffer::make("C", f32, {make_int(n), make_int(m)});
  Var i("i"), jo("j_outer"), ji("j_inner"), ko("k_outer"), ki("k_inner");
  Expr j = jo * make_int(4) + ji;
  Expr k = ko * make_int(2) + ki;
  Stmt update =
      make_Store(c, make_Load(c, {i, j}) + make_Load(a, {i, k}) * make_Load(b, {k, j}), {i, j});
  Stmt k_loops = make_For(ko, make_int(0), make_int(kk / 2), ForKind::Serial,
                          make_For(ki, make_int(0), make_int(2), ForKind::Unrolled, update));
  Stmt guarded = make_IfThenElse(j < make_int(m),
                                 make_Seq({make_Store(c, make_float(0.0f), {i, j}), k_loops}));
  Stmt body =
      make_For(i, make_int(0), make_int(n), ForKind::Serial,
               make_For(jo, make_int(0), make_int((m + 3) / 4), ForKind::Serial,
                        make_For(ji, make_int(0), make_int(4), ForKind::Vectorized, guarded)));
  return PrimFunc{"matmul", {a, b, c}, body};
}

TEST(Pipeline, PassNamesInOrder) {
  EXPECT_EQ(pass_names(),
            (std::vector<std::string>{"storage_flatten", "simplify", "loop_partition", "simplify",
                                      "vectorize", "unroll", "expand_math", "simplify"}));
}

TEST(Pipeline, WholePipelinePreservesResults) {
  for (int64_t m : {8, 10}) {
    PrimFunc f = matmul(3, m, 4);
    PassOptions opts;
    opts.verify = true;
    PrimFunc out = run_passes(f, opts);
    expect_same_results(f, out);
    for (const Buffer& p : out.params) EXPECT_EQ(p.ndim(), 1);
    EXPECT_FALSE(testing::prints(out, "unrolled")) << out;
  }
}

TEST(Pipeline, PrintAfterNamedPassWhenChanged) {
  PrimFunc f = matmul(2, 8, 4);
  std::ostringstream log;
  PassOptions opts;
  opts.print_after = {"storage_flatten", "unroll"};
  opts.log = &log;
  PrimFunc out = run_passes(f, opts);
  std::string text = log.str();
  EXPECT_EQ(text.rfind("// after storage_flatten\nfunc matmul(A: float32[8], ", 0), 0u) << text;
  size_t unroll = text.find("// after unroll\nfunc matmul(");
  ASSERT_NE(unroll, std::string::npos) << text;
  EXPECT_EQ(text.find("// after simplify"), std::string::npos) << text;
  // What flatten printed still has the unrolled loop; what unroll printed does not.
  EXPECT_LT(text.find("unrolled ("), unroll) << text;
  EXPECT_EQ(text.find("unrolled (", unroll), std::string::npos) << text;

  // An unchanged IR is not printed: an already-flat function has nothing to flatten.
  std::ostringstream quiet;
  opts.print_after = {"storage_flatten"};
  opts.log = &quiet;
  run_passes(out, opts);
  EXPECT_EQ(quiet.str(), "");
}

TEST(Pipeline, PrintAfterAllAndTimes) {
  std::ostringstream log;
  PassOptions opts;
  opts.print_after = {"all"};
  opts.time_passes = true;
  opts.log = &log;
  run_passes(matmul(2, 8, 4), opts);
  std::string text = log.str();
  for (const std::string& name : pass_names())
    EXPECT_NE(text.find("// time " + name + ": "), std::string::npos) << name;
  EXPECT_NE(text.find("// after storage_flatten\n"), std::string::npos);
  EXPECT_NE(text.find("// after vectorize\n"), std::string::npos);
}

TEST(Pipeline, StopAfter) {
  PrimFunc f = matmul(2, 8, 4);
  PassOptions opts;
  opts.stop_after = "storage_flatten";
  PrimFunc out = run_passes(f, opts);
  EXPECT_TRUE(structural_equal(out, storage_flatten(f)));
  EXPECT_TRUE(testing::prints(out, "vectorized (j_inner, 0, 4)")) << out;
}

TEST(Pipeline, UnknownPassNamesAreCompileErrors) {
  auto expect_error = [](const PassOptions& opts, const std::string& text) {
    try {
      run_passes(matmul(2, 8, 4), opts);
      FAIL() << "expected a CompileError containing '" << text << "'";
    } catch (const CompileError& err) {
      EXPECT_NE(std::string(err.what()).find(text), std::string::npos) << err.what();
    }
  };
  PassOptions print;
  print.print_after = {"vectorize", "vectorise"};
  expect_error(print,
               "unknown pass 'vectorise' in print_after; valid passes: storage_flatten, "
               "simplify, loop_partition, vectorize, unroll, expand_math (or all)");
  PassOptions stop;
  stop.stop_after = "all";
  expect_error(stop, "unknown pass 'all' in stop_after; valid passes: storage_flatten,");
}

TEST(Pipeline, VerifyRejectsBrokenInput) {
  Buffer a = Buffer::make("A", f32, {make_int(4)});
  Var stray("stray");
  PrimFunc f{"broken", {a}, make_Store(a, make_float(1.0f), {stray})};
  PassOptions opts;
  opts.verify = true;
  try {
    run_passes(f, opts);
    FAIL() << "expected an InternalError";
  } catch (const InternalError& err) {
    std::string text = err.what();
    EXPECT_NE(text.find("invalid IR after the input"), std::string::npos) << text;
    EXPECT_NE(text.find("variable 'stray'"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace tessel::tir
