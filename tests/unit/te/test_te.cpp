// Tests of the tensor-expression DSL: tensors, computes, reductions, DAG order and errors.
#include <gtest/gtest.h>

#include "ir/printer.h"
#include "te/compute.h"
#include "te/dag.h"
#include "te/rewrite.h"
#include "schedule/schedule.h"
#include "unit/lower/lower_test_util.h"

namespace tessel::te {
namespace {

using testing::expect_compile_error;

const DataType f32 = DataType::Float(32);

TEST(Te, PlaceholderHasShapeTypeAndName) {
  Tensor A = placeholder({3, 4}, f32, "A");
  EXPECT_EQ(A.name(), "A");
  EXPECT_EQ(A.dtype(), f32);
  ASSERT_EQ(A.ndim(), 2);
  EXPECT_TRUE(ir::is_const_int(A.shape()[1], 4));
  EXPECT_TRUE(A.op()->is_placeholder());
  EXPECT_EQ(A.op()->num_outputs(), 1);
}

TEST(Te, LoadBuildsOneIndexPerDimension) {
  Tensor A = placeholder({3, 4}, f32, "A");
  Var i("i");
  Expr e = A(i, 2);
  const auto* load = e.as<ir::LoadNode>();
  ASSERT_TRUE(load);
  EXPECT_EQ(load->indices.size(), 2u);
  EXPECT_TRUE(load->buffer.same_as(A.buffer()));
  EXPECT_EQ(ir::to_string(e), "A[i, 2]");
}

TEST(Te, WrongIndexCountNamesTheTensor) {
  Tensor A = placeholder({3, 4}, f32, "Amat");
  expect_compile_error([&] { A(1); }, "tensor 'Amat' has 2 dimensions, indexed with 1");
  expect_compile_error([&] { A(1, 2, 3); }, "'Amat'");
}

TEST(Te, NarrowIntegerIndicesAreWidened) {
  Tensor A = placeholder({3}, f32, "A");
  Var i("i", DataType::Int(32));
  Expr e = A(i);
  const auto* load = e.as<ir::LoadNode>();
  ASSERT_TRUE(load);
  EXPECT_EQ(load->indices[0].dtype(), DataType::Index());
  expect_compile_error([&] { A(Expr(1.5f)); }, "index 0 must be a scalar integer");
}

TEST(Te, ComputeTakesVarsOneByOneOrAsVector) {
  Tensor A = placeholder({3, 4}, f32, "A");
  Tensor B = compute(
      {3, 4}, [&](Var i, Var j) { return A(i, j) + 1.0f; }, "B");
  Tensor C = compute({3, 4}, [&](const std::vector<Var>& v) { return A(v[0], v[1]) * 2.0f; }, "C",
                     {"x", "y"});
  EXPECT_EQ(B.op()->axis[0].var.name(), "i0");
  EXPECT_EQ(B.op()->axis[1].var.name(), "i1");
  EXPECT_EQ(C.op()->axis[0].var.name(), "x");
  EXPECT_EQ(ir::to_string(C.op()->bodies[0]), "A[x, y] * 2.0f");
  ASSERT_EQ(C.op()->inputs.size(), 1u);
  EXPECT_EQ(C.op()->inputs[0], A);
  EXPECT_EQ(B.dtype(), f32);
}

TEST(Te, ComputeRecordsInputsInFirstReadOrderWithoutRepeats) {
  Tensor A = placeholder({3}, f32, "A");
  Tensor B = placeholder({3}, f32, "B");
  Tensor C = compute(
      {3}, [&](Var i) { return B(i) * A(i) + B(i); }, "C");
  ASSERT_EQ(C.op()->inputs.size(), 2u);
  EXPECT_EQ(C.op()->inputs[0], B);
  EXPECT_EQ(C.op()->inputs[1], A);
}

TEST(Te, ArityMismatchIsAnError) {
  Tensor A = placeholder({3, 4}, f32, "A");
  expect_compile_error(
      [&] {
        compute(
            {3, 4}, [&](Var i) { return A(i, 0); }, "B");
      },
      "compute 'B': the body takes 1 index variables, the shape has 2");
}

TEST(Te, ReductionBuildsReduceWithIdentityAndCondition) {
  Tensor A = placeholder({4, 5}, f32, "A");
  IterVar k = reduce_axis(5, "k");
  Tensor S = compute({4}, [&](Var i) { return max_reduce(A(i, k), {k}, k.var < 3); }, "S", {"i"});
  const auto* r = S.op()->bodies[0].as<ir::ReduceNode>();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->op, ir::ReduceOp::Max);
  EXPECT_EQ(ir::to_string(r->condition), "k < 3");
  ASSERT_EQ(S.op()->reduce_axis.size(), 1u);
  EXPECT_TRUE(S.op()->reduce_axis[0].var.same_as(k.var));
  EXPECT_EQ(S.op()->reduce_axis[0].kind, ir::IterKind::Reduce);
  EXPECT_EQ(sum(A(0, k), {k}).as<ir::ReduceNode>()->op, ir::ReduceOp::Sum);
  EXPECT_EQ(prod(A(0, k), {k}).as<ir::ReduceNode>()->op, ir::ReduceOp::Prod);
  EXPECT_EQ(min_reduce(A(0, k), {k}).as<ir::ReduceNode>()->op, ir::ReduceOp::Min);
}

TEST(Te, ReduceAxisWithMin) {
  IterVar k = reduce_axis(2, 5, "k");
  EXPECT_TRUE(ir::is_const_int(k.min, 2));
  EXPECT_TRUE(ir::is_const_int(k.extent, 5));
  EXPECT_TRUE(ir::is_const_int(reduce_axis(0, "e").extent, 0));  // empty: the identity
  expect_compile_error([] { reduce_axis(-1, "k"); }, "expected an extent >= 0");
}

TEST(Te, ReductionMustBeTheWholeBody) {
  Tensor A = placeholder({4, 5}, f32, "A");
  IterVar k = reduce_axis(5, "k");
  expect_compile_error(
      [&] {
        compute(
            {4}, [&](Var i) { return sum(A(i, k), {k}) + 1.0f; }, "S");
      },
      "compute 'S': a reduction must be the whole body");
}

TEST(Te, AxisNamesMustBeUnique) {
  Tensor A = placeholder({4, 5}, f32, "A");
  IterVar k = reduce_axis(5, "i");
  expect_compile_error([&] { compute({4}, [&](Var i) { return sum(A(i, k), {k}); }, "S", {"i"}); },
                       "compute 'S': two axes are named 'i'");
}

TEST(Te, ComputeMultiSharesOneOperation) {
  Tensor A = placeholder({6}, f32, "A");
  std::vector<Tensor> outs = compute_multi(
      {6},
      [&](Var i) {
        return std::vector<Expr>{A(i) + 1.0f, A(i) * A(i)};
      },
      "M");
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_TRUE(outs[0].op().same_as(outs[1].op()));
  EXPECT_EQ(outs[0].name(), "M.v0");
  EXPECT_EQ(outs[1].name(), "M.v1");
  EXPECT_NE(outs[0], outs[1]);
  EXPECT_EQ(outs[1], outs[1].op()->output(1));  // identity is (operation, index)
}

TEST(Te, ComputeMultiReductionsMustShareAxes) {
  Tensor A = placeholder({4, 5}, f32, "A");
  IterVar k = reduce_axis(5, "k"), r = reduce_axis(5, "r");
  expect_compile_error(
      [&] {
        compute_multi(
            {4},
            [&](Var i) {
              return std::vector<Expr>{sum(A(i, k), {k}), max_reduce(A(i, r), {r})};
            },
            "S");
      },
      "reduces over other axes");
  expect_compile_error(
      [&] {
        compute_multi(
            {4},
            [&](Var i) {
              return std::vector<Expr>{sum(A(i, k), {k}), A(i, 0)};
            },
            "S");
      },
      "is not a reduction while output 0 is");
}

TEST(Te, TopologicalOrderPutsProducersFirst) {
  Tensor A = placeholder({4}, f32, "A");
  Tensor B = compute(
      {4}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Tensor C = compute(
      {4}, [&](Var i) { return A(i) * 2.0f; }, "C");
  Tensor D = compute(
      {4}, [&](Var i) { return B(i) + C(i); }, "D");
  std::vector<Operation> order = topological_order({D});
  std::vector<std::string> names;
  for (const Operation& op : order) names.push_back(op->name);
  EXPECT_EQ(names, (std::vector<std::string>{"A", "B", "C", "D"}));
}

TEST(Te, OperationsMayShareANameAndGetUniqueStages) {
  // Fused operator groups compose computes that name their stages alike.
  Tensor A = placeholder({4}, f32, "A");
  Tensor B1 = compute(
      {4}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Tensor B2 = compute(
      {4}, [&](Var i) { return A(i) + 2.0f; }, "B");
  Tensor D = compute(
      {4}, [&](Var i) { return B1(i) + B2(i); }, "D");
  std::vector<Operation> order = topological_order({D});
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order[1].get(), B1.op().get());
  EXPECT_EQ(order[2].get(), B2.op().get());
  schedule::Schedule s({D});
  EXPECT_EQ(s.stage(B1).name, "B");
  EXPECT_EQ(s.stage(B2).name, "B.1");
  EXPECT_EQ(s.stage("B.1").op.get(), B2.op().get());
}

TEST(Te, RewriteLoadsReplacesOneTensor) {
  Tensor A = placeholder({4}, f32, "A");
  Tensor B = placeholder({4}, f32, "B");
  Tensor C = compute({4}, [&](Var i) { return A(i) + B(i + 1); }, "C", {"i"});
  Operation op = rewrite_op_loads(C.op(), [&](const Tensor& t, const std::vector<Expr>& idx) {
    return t == B ? A(idx) : Expr();
  });
  EXPECT_EQ(ir::to_string(op->bodies[0]), "A[i] + A[i + 1]");
  ASSERT_EQ(op->inputs.size(), 1u);
  EXPECT_TRUE(rewrite_op_loads(C.op(), [](const Tensor&, const std::vector<Expr>&) {
                return Expr();
              }).same_as(C.op()));
}

TEST(Te, SeveralOutputsAndIntrinsics) {
  Tensor A = placeholder({5}, f32, "A");
  Tensor E = compute(
      {5}, [&](Var i) { return ir::exp(A(i)); }, "E");
  Tensor S = compute(
      {5}, [&](Var i) { return ir::select(A(i) > 0.0f, A(i), 0.0f); }, "S");
  std::vector<Operation> order = topological_order({E, S});
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0]->name, "A");
}

}  // namespace
}  // namespace tessel::te
