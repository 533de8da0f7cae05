// Models compiled once with a symbolic batch: run at several batch sizes against the graph
// run node by node at each size (the reference executor specialises to the inputs it gets),
// the plan they become, and the models refused because they mix, move or make the batch.
#include <gtest/gtest.h>

#include "compiler/compile_model.h"
#include "support/error.h"
#include "unit/compiler/compiler_test_util.h"

namespace tessel::compiler {
namespace {

using graph::Attribute;
using testing::random_array;
using testing::TypedGraph;

/// An input of `shape` whose leading dimension is the symbol "N".
graph::Value* batched_input(TypedGraph& t, const std::string& name, std::vector<int64_t> shape) {
  graph::Value* x = t.input(name, std::move(shape));
  x->type.dims[0] = graph::Dim::named("N");
  return x;
}

/// The graph's input types as declared (the symbol kept).
std::vector<graph::TensorType> declared_types(const graph::Graph& g) {
  std::vector<graph::TensorType> types;
  for (const graph::Value* in : g.inputs()) types.push_back(in->type);
  return types;
}

/// Compiles `t` once and runs it at batch sizes 1, 3 and 8 against the graph run node by
/// node at each size. `sample` is one sample's input shape (leading extent included).
void expect_every_batch_matches(TypedGraph& t, std::vector<int64_t> sample) {
  CompiledModel compiled = compile_model(t.graph, declared_types(t.graph));
  EXPECT_EQ(compiled.plan.batch_symbol, "N");
  EXPECT_GT(compiled.plan.batch_arena_bytes, 0);
  runtime::Model model = jit_model(std::move(compiled));
  for (int64_t batch : {1, 3, 8}) {
    std::vector<int64_t> shape = sample;
    shape[0] *= batch;
    runtime::NDArray x = random_array(shape, static_cast<uint32_t>(batch));
    std::vector<runtime::NDArray> got = model.run({&x});
    std::vector<runtime::NDArray> want = testing::run_unfused(t.graph, {&x});
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      SCOPED_TRACE("batch " + std::to_string(batch) + ", output " + std::to_string(i));
      testing::expect_close(got[i], want[i]);
    }
  }
}

TEST(SymbolicBatch, AConvolutionNetworkRunsEveryBatchSize) {
  // Conv -> Relu -> GlobalAveragePool -> Flatten -> Gemm: per-sample kernels, a reshape
  // and a product of the batch's rows.
  TypedGraph t;
  graph::Value* x = batched_input(t, "x", {1, 3, 9, 9});
  graph::Value* conv = t.node("Conv", {x, t.constant("w", {5, 3, 3, 3}, 2)}, {1, 5, 9, 9},
                              {{"pads", Attribute::of_ints({1, 1, 1, 1})}});
  graph::Value* pooled = t.node("GlobalAveragePool", {t.node("Relu", {conv}, {1, 5, 9, 9})}, {1, 5, 1, 1});
  graph::Value* flat = t.node("Flatten", {pooled}, {1, 5});
  t.output(t.node("Gemm", {flat, t.constant("fc", {5, 7}, 3), t.constant("bias", {7}, 4)}, {1, 7}));
  expect_every_batch_matches(t, {1, 3, 9, 9});
}

TEST(SymbolicBatch, ShapesFoldedFromTheInputReshapeEachSample) {
  // x: [N, 4, 6] -> Reshape(x, [Shape(x)[0], -1]) -> Softmax over the last axis, plus a mask
  // of ones as large as the batch (ConstantOfShape of the shape: its rows repeat per sample).
  TypedGraph t;
  graph::Value* x = batched_input(t, "x", {1, 4, 6});
  graph::Value* shape = t.node("Shape", {x}, {3});
  graph::Value* lead = t.node("Slice", {shape, t.ints("s0", {0}), t.ints("s1", {1})}, {1});
  graph::Value* target = t.node("Concat", {lead, t.ints("rest", {-1})}, {2},
                                {{"axis", Attribute::of_int(0)}});
  graph::Value* flat = t.node("Reshape", {x, target}, {1, 24});
  graph::Value* flat_shape = t.node("Shape", {flat}, {2});
  graph::Value* ones = t.node("ConstantOfShape", {flat_shape}, {1, 24},
                              {{"value", Attribute::of_tensor(std::make_shared<const runtime::NDArray>(
                                             random_array({1}, 9)))}});
  t.output(t.node("Softmax", {t.node("Add", {flat, ones}, {1, 24})}, {1, 24},
                  {{"axis", Attribute::of_int(-1)}}));
  expect_every_batch_matches(t, {1, 4, 6});
}

TEST(SymbolicBatch, BatchFirstAttentionRunsEverySample) {
  // [N, 5, 8] x W, scores of each sample's rows against themselves, softmax, LayerNorm.
  TypedGraph t;
  graph::Value* x = batched_input(t, "x", {1, 5, 8});
  graph::Value* q = t.node("MatMul", {x, t.constant("wq", {8, 8}, 5)}, {1, 5, 8});
  graph::Value* kt = t.node("Transpose", {x}, {1, 8, 5}, {{"perm", Attribute::of_ints({0, 2, 1})}});
  graph::Value* scores = t.node("Softmax", {t.node("MatMul", {q, kt}, {1, 5, 5})}, {1, 5, 5},
                                {{"axis", Attribute::of_int(-1)}});
  graph::Value* mixed = t.node("MatMul", {scores, x}, {1, 5, 8});
  t.output(t.node("LayerNormalization", {mixed, t.constant("g", {8}, 6), t.constant("b", {8}, 7)},
                  {1, 5, 8}, {{"axis", Attribute::of_int(-1)}}));
  expect_every_batch_matches(t, {1, 5, 8});
}

/// Compiling `t` with its symbolic batch fails with a message holding `text` (and, for a
/// node's fault, the node's description).
void expect_refused(TypedGraph& t, const std::string& text) {
  try {
    compile_model(t.graph, declared_types(t.graph));
    ADD_FAILURE() << "expected a CompileError containing '" << text << "'";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("symbolic batch 'N'"), std::string::npos) << e.what();
  }
}

TEST(SymbolicBatch, ModelsMixingTheSamplesAreRefused) {
  {
    TypedGraph t;  // a softmax over the batch axis
    graph::Value* x = batched_input(t, "x", {1, 6});
    t.output(t.node("Softmax", {x}, {1, 6}, {{"axis", Attribute::of_int(0)}}));
    expect_refused(t, "node 'Softmax0' (Softmax) cannot run sample by sample: its axis is the batch's");
  }
  {
    TypedGraph t;  // a sum over every axis
    graph::Value* x = batched_input(t, "x", {1, 6});
    t.output(t.node("ReduceSum", {x}, {1, 1}));
    expect_refused(t, "node 'ReduceSum0' (ReduceSum) reads batched values but its output");
  }
  {
    TypedGraph t;  // the batch moved to the last axis
    graph::Value* x = batched_input(t, "x", {1, 6});
    t.output(t.node("Relu", {t.node("Transpose", {x}, {6, 1})}, {6, 1}));
    expect_refused(t, "is float32[6, 1] at batch 1 and float32[6, 2] at batch 2: the batch is not "
                      "its leading dimension");
  }
  {
    TypedGraph t;  // the batch tiled: [x; x]
    graph::Value* x = batched_input(t, "x", {1, 6});
    t.output(t.node("Tile", {x, t.ints("reps", {2, 1})}, {2, 6}));
    expect_refused(t, "(Tile) cannot run sample by sample: it changes the extent of the batch axis");
  }
  {
    TypedGraph t;  // the batch reversed
    graph::Value* x = batched_input(t, "x", {1, 6});
    t.output(t.node("Slice", {x, t.ints("b", {-1}), t.ints("e", {-1000}), t.ints("a", {0}),
                              t.ints("st", {-1})},
                    {1, 6}));
    expect_refused(t, "(Slice) cannot run sample by sample: it slices the batch axis");
  }
  {
    TypedGraph t;  // the batch size used as data: x / N
    graph::Value* x = batched_input(t, "x", {1, 6});
    graph::Value* n = t.node("Gather", {t.node("Shape", {x}, {2}), t.ints("zero", {0})}, {1});
    graph::Value* nf = t.node("Cast", {n}, {1}, {{"to", Attribute::of_int(1)}});
    t.output(t.node("Div", {x, nf}, {1, 6}));
    expect_refused(t, "a constant that depends on the batch size");
  }
  {
    TypedGraph t;  // a value as long as the batch made from nothing batched: Range(0, N)
    graph::Value* x = batched_input(t, "x", {1, 6});
    graph::Value* n = t.node("Squeeze", {t.node("Slice", {t.node("Shape", {x}, {2}), t.ints("s0", {0}),
                                                          t.ints("s1", {1})},
                                                {1})},
                             {});
    graph::Value* zero = t.graph.add_constant("zero", testing::int64_scalar(0));
    graph::Value* one = t.graph.add_constant("one", testing::int64_scalar(1));
    graph::Value* range = t.node("Range", {zero, n, one}, {1});
    graph::Value* col = t.node("Unsqueeze", {t.node("Cast", {range}, {1}, {{"to", Attribute::of_int(1)}}),
                                             t.ints("ax", {1})},
                               {1, 1});
    t.output(t.node("Add", {x, col}, {1, 6}));
    expect_refused(t, "depends on the batch size");
  }
}

TEST(SymbolicBatch, OnlyALeadingSymbolicDimensionOfASymbolicModel) {
  TypedGraph t;
  graph::Value* x = t.input("x", {2, 6});
  x->type.dims[1] = graph::Dim::named("N");
  t.output(t.node("Relu", {x}, {2, 6}));
  try {
    compile_model(t.graph, declared_types(t.graph));
    ADD_FAILURE() << "expected an error";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("input 'x': dimension 1 is symbolic ('N'); only the "
                                         "leading one, a batch, may stay symbolic"),
              std::string::npos)
        << e.what();
  }
  TypedGraph s;  // declared with a static batch of 1
  graph::Value* y = s.input("y", {1, 6});
  s.output(s.node("Relu", {y}, {1, 6}));
  graph::TensorType wanted = y->type;
  wanted.dims[0] = graph::Dim::named("N");
  try {
    compile_model(s.graph, {wanted});
    ADD_FAILURE() << "expected an error";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("input 'y' declares a batch of 1"), std::string::npos)
        << e.what();
  }
}

TEST(SymbolicBatch, TheRuntimeTakesTheBatchFromTheInputs) {
  TypedGraph t;
  graph::Value* x = batched_input(t, "x", {1, 6});
  t.output(t.node("Relu", {x}, {1, 6}));
  runtime::Model model = jit_model(compile_model(t.graph, declared_types(t.graph)));
  for (const std::vector<int64_t>& bad : {std::vector<int64_t>{3, 5}, std::vector<int64_t>{0, 6}}) {
    runtime::NDArray wrong = random_array(bad, 1);
    try {
      model.run({&wrong});
      ADD_FAILURE() << "expected an error";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("expected shape [1, 6] with the leading extent times the "
                                           "batch size 'N'"),
                std::string::npos)
          << e.what();
    }
  }
  runtime::NDArray six = random_array({6, 6}, 2);
  std::vector<runtime::NDArray> out = model.run({&six});
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{6, 6}));
  EXPECT_EQ(model.context().batch_size(), 6);
  for (int64_t i = 0; i < 36; ++i)
    EXPECT_EQ(out[0].data_as<float>()[i], std::max(six.data_as<float>()[i], 0.0f));
}

}  // namespace
}  // namespace tessel::compiler
