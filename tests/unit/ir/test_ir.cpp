// Unit tests of the loop IR core: construction checks, printer, mutator, structural equality.
#include <gtest/gtest.h>

#include "ir/functor.h"
#include "ir/printer.h"
#include "ir/structural.h"
#include "support/error.h"

namespace tessel::ir {
namespace {

TEST(IrExpr, ImmediatesAdoptTheOtherSideType) {
  Var x("x", DataType::Float(32));
  Expr e = x * 2 + 1.5;
  EXPECT_EQ(e.dtype(), DataType::Float(32));
  EXPECT_EQ(to_string(e), "x * 2.0f + 1.5f");
  Var i("i");
  EXPECT_EQ((i + 1).dtype(), DataType::Index());
}

TEST(IrExpr, MismatchedTypesAreUserErrors) {
  Var f("f", DataType::Float(32));
  Var i("i");
  EXPECT_THROW(f + i, CompileError);
  try {
    (void)(f + i);
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("float32 vs int64"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_Add(f, i), CompileError);
  EXPECT_THROW(make_Ramp(f, f, 4), CompileError);
}

TEST(IrExpr, NarrowIntegersWiden) {
  Var a("a", DataType::Int(32));
  Var b("b", DataType::Int(64));
  EXPECT_EQ((a + b).dtype(), DataType::Int(64));
}

TEST(IrExpr, VectorTypesDeriveFromOperands) {
  Var i("i");
  Expr r = make_Ramp(i, 1, 8);
  EXPECT_EQ(r.dtype(), DataType::Int(64, 8));
  Expr sum = r + 3;  // scalar immediate broadcasts
  EXPECT_EQ(sum.dtype(), DataType::Int(64, 8));
  Buffer buf = Buffer::make("A", DataType::Float(32), {64});
  Expr load = make_Load(buf, {r});
  EXPECT_EQ(load.dtype(), DataType::Float(32, 8));
  EXPECT_EQ((load < load).dtype(), DataType::Bool(8));
}

TEST(IrExpr, LoadChecksIndexCount) {
  Buffer buf = Buffer::make("A", DataType::Float(32), {4, 4});
  try {
    make_Load(buf, {Expr(1)});
    FAIL() << "expected an error";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("'A'"), std::string::npos) << e.what();
  }
}

TEST(IrPrinter, PrecedenceAndUniqueNames) {
  Var a("a"), b("b"), a2("a");
  EXPECT_EQ(to_string((a + b) * a2), "(a + b) * a_1");
  EXPECT_EQ(to_string(a - (b - a)), "a - (b - a)");
  EXPECT_EQ(to_string(a - b - a), "a - b - a");
  EXPECT_EQ(to_string(min(a, b) / 2 % 3), "min(a, b) / 2 % 3");
}

TEST(IrPrinter, Statements) {
  Buffer c = Buffer::make("C", DataType::Float(32), {16, 8});
  Var i("i"), j("j");
  Stmt body = make_Store(c, make_float(0), {i, j});
  Stmt loop = make_For(i, 0, 16, ForKind::Parallel, make_For(j, 0, 8, ForKind::Vectorized, body));
  PrimFunc f{"zero", {c}, loop};
  EXPECT_EQ(to_string(f),
            "func zero(C: float32[16, 8]) {\n"
            "  parallel (i, 0, 16) {\n"
            "    vectorized (j, 0, 8) {\n"
            "      C[i, j] = 0.0f\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(IrMutator, RebuildsOnlyChangedNodes) {
  Var x("x"), y("y");
  Expr e = (x + 1) * (y + 2);
  class RenameX : public IRMutator {
   public:
    explicit RenameX(Var from, Var to) : from_(from), to_(to) {}
    Expr mutate_Var(const VarNode* op, const Expr& self) override {
      return op == from_.get() ? Expr(to_) : self;
    }
    Var from_, to_;
  };
  Var z("z");
  Expr out = RenameX(x, z).mutate(e);
  EXPECT_EQ(to_string(out), "(z + 1) * (y + 2)");
  const auto* mul = out.as<MulNode>();
  ASSERT_NE(mul, nullptr);
  EXPECT_TRUE(mul->b.same_as(e.as<MulNode>()->b));  // untouched subtree is shared
  Expr same = RenameX(Var("w"), z).mutate(e);
  EXPECT_TRUE(same.same_as(e));
}

TEST(IrMutator, VectorLanesFollowRebuiltChildren) {
  Var i("i");
  Buffer buf = Buffer::make("A", DataType::Float(32), {64});
  Expr e = cast(DataType::Float(64), make_Load(buf, {i}));
  Expr v = substitute(e, {{i, make_Ramp(i, 1, 4)}});
  EXPECT_EQ(v.dtype(), DataType::Float(64, 4));
}

TEST(IrStructural, EqualUpToRenaming) {
  Var i("i"), j("j"), k("k");
  Buffer a = Buffer::make("A", DataType::Float(32), {8});
  Buffer b = Buffer::make("B", DataType::Float(32), {8});
  Stmt s1 = make_For(i, 0, 8, ForKind::Serial, make_Store(a, make_float(1), {i}));
  Stmt s2 = make_For(j, 0, 8, ForKind::Serial, make_Store(b, make_float(1), {j}));
  Stmt s3 = make_For(k, 0, 8, ForKind::Serial, make_Store(b, make_float(2), {k}));
  EXPECT_TRUE(structural_equal(s1, s2));
  EXPECT_EQ(structural_hash(s1), structural_hash(s2));
  EXPECT_FALSE(structural_equal(s1, s3));
  EXPECT_NE(structural_hash(s1), structural_hash(s3));
  // A bijection is required: x + y is not equal to x + x.
  Var x("x"), y("y");
  EXPECT_FALSE(structural_equal(x + y, x + x));
  EXPECT_TRUE(structural_equal(x + y, y + x));  // renaming x<->y
}

TEST(IrStructural, IdentityMatchingNeedsTheSameVariables) {
  Var x("x"), y("y");
  EXPECT_TRUE(structural_equal(x + 1, x + 1, VarMatch::Identity));
  EXPECT_FALSE(structural_equal(x + 1, y + 1, VarMatch::Identity));
  EXPECT_TRUE(structural_equal(x + 1, y + 1, VarMatch::Rename));
  Buffer a = Buffer::make("A", DataType::Float(32), {8});
  EXPECT_TRUE(structural_equal(make_Load(a, {x}), make_Load(a, {x}), VarMatch::Identity));
  Buffer b = Buffer::make("A", DataType::Float(32), {8});
  EXPECT_FALSE(structural_equal(make_Load(a, {x}), make_Load(b, {x}), VarMatch::Identity));
}

TEST(IrStmt, SeqFlattensAndChecks) {
  Buffer a = Buffer::make("A", DataType::Float(32), {2});
  Stmt s0 = make_Store(a, make_float(0), {Expr(0)});
  Stmt s1 = make_Store(a, make_float(1), {Expr(1)});
  Stmt seq = make_Seq({s0, make_Seq({s1, nullptr})});
  ASSERT_NE(seq.as<SeqNode>(), nullptr);
  EXPECT_EQ(seq.as<SeqNode>()->seq.size(), 2u);
  EXPECT_THROW(make_Store(a, make_int(0, DataType::Int(32)), {Expr(0)}), CompileError);
  EXPECT_THROW(make_For(Var("i"), 0, 4, ForKind::ThreadBinding, s0), CompileError);
}

TEST(IrType, TextRoundTrip) {
  for (DataType t : {DataType::Float(32), DataType::Int(64, 8), DataType::Bool(), DataType::UInt(8),
                     DataType::BFloat(16, 4), DataType::Handle()}) {
    EXPECT_EQ(DataType::parse(t.to_string()), t) << t.to_string();
  }
  EXPECT_THROW(DataType::parse("complex64"), CompileError);
}

}  // namespace
}  // namespace tessel::ir
