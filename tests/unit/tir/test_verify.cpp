// Tests of verify_func: well-formed IR passes, each kind of violation is reported.
#include <gtest/gtest.h>

#include "support/error.h"
#include "tir/verify.h"

namespace tessel::tir {
namespace {

using namespace ir;

const DataType f32 = DataType::Float(32);

void expect_invalid(const PrimFunc& f, const std::string& text) {
  try {
    verify_func(f);
    FAIL() << "expected a verify error containing '" << text << "'";
  } catch (const InternalError& err) {
    EXPECT_NE(std::string(err.what()).find(text), std::string::npos) << err.what();
  }
}

TEST(Verify, AcceptsWellFormedIr) {
  Var n("n");
  Buffer a = Buffer::make("A", f32, {n, make_int(4)});
  Buffer t = Buffer::make("T", f32, {make_int(4)}, MemoryScope::Local);
  Var i("i"), j("j"), x("x", f32);
  Stmt inner = make_For(j, make_int(0), make_int(4), ForKind::Serial,
                        make_Store(t, make_Let(x, make_Load(a, {i, j}), x * x), {j}));
  Stmt body = make_For(
      i, make_int(0), n, ForKind::Parallel,
      make_Allocate(
          t, make_Seq({inner, make_Store(a, make_Load(t, {make_int(0)}), {i, make_int(0)})})));
  verify_func(PrimFunc{"ok", {a}, body});
  // A flattened view of a parameter, declared flat too, is fine.
  Buffer flat = a.with_shape({n * make_int(4)});
  verify_func(PrimFunc{"flat", {flat}, make_Store(flat, make_float(0.0f), {make_int(3)})});
}

TEST(Verify, UndefinedVariable) {
  Buffer a = Buffer::make("A", f32, {make_int(4)});
  Var i("i"), stray("stray");
  Stmt body = make_For(i, make_int(0), make_int(4), ForKind::Serial,
                       make_Store(a, make_float(1.0f), {i + stray}));
  expect_invalid(PrimFunc{"f", {a}, body}, "variable 'stray' is used before its definition");
  expect_invalid(PrimFunc{"f", {a}, body}, "A[i + stray] = 1.0f");  // the IR is printed
  // A loop variable used after its loop.
  Stmt after = make_Seq(
      {make_For(i, make_int(0), make_int(4), ForKind::Serial, make_Store(a, make_float(1.0f), {i})),
       make_Store(a, make_float(2.0f), {i})});
  expect_invalid(PrimFunc{"f", {a}, after}, "variable 'i' is used before its definition");
  // A let's variable in its own value.
  Var x("x");
  Stmt self_ref = make_LetStmt(x, x + make_int(1), make_Store(a, make_float(1.0f), {x}));
  expect_invalid(PrimFunc{"f", {a}, self_ref}, "variable 'x'");
}

TEST(Verify, UnallocatedBuffer) {
  Buffer a = Buffer::make("A", f32, {make_int(4)});
  Buffer t = Buffer::make("T", f32, {make_int(4)}, MemoryScope::Local);
  Stmt use = make_Store(a, make_Load(t, {make_int(0)}), {make_int(0)});
  expect_invalid(PrimFunc{"f", {a}, use},
                 "load from buffer 'T', which is neither a parameter nor allocated here");
  // Used after its allocation ends.
  Stmt after = make_Seq({make_Allocate(t, make_Store(t, make_float(1.0f), {make_int(0)})),
                         make_Store(t, make_float(1.0f), {make_int(1)})});
  expect_invalid(PrimFunc{"f", {a}, after}, "store to buffer 'T', which is neither");
}

TEST(Verify, IndexCountAndTypes) {
  Buffer a = Buffer::make("A", f32, {make_int(12)});
  // A 2-d view of a 1-d parameter: storage_flatten forgot an access.
  Buffer view = a.with_shape({make_int(3), make_int(4)});
  expect_invalid(PrimFunc{"f", {a}, make_Store(view, make_float(0.0f), {make_int(1), make_int(2)})},
                 "with 2 indices; it is declared with 1 dimensions");
  // A stored value of the wrong type, built without the checking builder.
  Stmt bad = make_ref<StoreNode>(a, make_int(1), std::vector<Expr>{make_int(0)});
  expect_invalid(PrimFunc{"f", {a}, bad},
                 "store to 'A' of a int64 value where float32 is expected");
  // A vector value stored at a scalar index.
  Stmt wide =
      make_ref<StoreNode>(a, make_Broadcast(make_float(1.0f), 4), std::vector<Expr>{make_int(0)});
  expect_invalid(PrimFunc{"f", {a}, wide}, "float32x4 value where float32 is expected");
}

TEST(Verify, ReduceDoesNotReachLoopIr) {
  Buffer a = Buffer::make("A", f32, {make_int(4)});
  Var k("k");
  Expr sum = make_Reduce(ReduceOp::Sum, make_Load(a, {k}),
                         {IterVar{k, make_int(0), make_int(4), IterKind::Reduce}});
  expect_invalid(PrimFunc{"f", {a}, make_Store(a, sum, {make_int(0)})}, "a Reduce remains");
}

}  // namespace
}  // namespace tessel::tir
