// Kernels reading values whose extent the run finds: a masked selection (NonZero ->
// Transpose -> GatherND -> arithmetic), the kept rows through a product run per block of
// rows and through reductions and a softmax over the run's axis, and a Compress along axis 1
// reduced over axis 0 and fed to another step, each against loops written here, JIT-compiled and
// from a compiled library, at every extent from none to the largest; and the nodes that cannot
// carry such an extent refused with errors naming them.
#include <gtest/gtest.h>

#include "compiler/compile_model.h"
#include "runtime/model.h"
#include "support/error.h"
#include "support/temp_file.h"
#include "unit/compiler/compiler_test_util.h"

namespace tessel::compiler {
namespace {

using testing::f32;

graph::Graph new_graph(const std::string& name) {
  graph::Graph g;
  g.name = name;
  g.opsets = {{"", 17}};
  return g;
}

graph::Value* add(graph::Graph& g, const std::string& op, std::vector<graph::Value*> inputs,
                  std::map<std::string, graph::Attribute> attributes = {}) {
  return testing::add_untyped_node(g, op, std::move(inputs), std::move(attributes))[0];
}

graph::Value* scalar(graph::Graph& g, const std::string& name, float v) {
  runtime::NDArray a({}, runtime::DType::Float(32));
  *a.data_as<float>() = v;
  return g.add_constant(name, std::make_shared<const runtime::NDArray>(std::move(a)));
}

graph::Value* int64s(graph::Graph& g, const std::string& name, std::vector<int64_t> values) {
  runtime::NDArray a({static_cast<int64_t>(values.size())}, runtime::DType::Int(64));
  for (size_t i = 0; i < values.size(); ++i) a.data_as<int64_t>()[i] = values[i];
  return g.add_constant(name, std::make_shared<const runtime::NDArray>(std::move(a)));
}

/// `g` compiled for inputs of `types`, JIT-compiled and through a compiled model library.
std::vector<runtime::Model> compiled_both_ways(const graph::Graph& g,
                                               const std::vector<graph::TensorType>& types) {
  std::vector<runtime::Model> models;
  models.push_back(jit_model(compile_model(g, types)));
  TemporaryFile library(".so");
  export_model(compile_model(g, types), library.path());
  models.push_back(runtime::Model::load(library.path()));
  return models;
}

/// How many steps of `kind` the plan of `model` has.
int count_steps(const runtime::Model& model, runtime::StepKind kind) {
  int n = 0;
  for (const runtime::PlanStep& step : model.plan().steps) n += step.kind == kind;
  return n;
}

/// x[x > 0] * 2 + 1 as torch exports a boolean mask: NonZero -> Transpose -> GatherND;
/// outputs the values and the coordinates.
graph::Graph masked_select_model(int64_t rows, int64_t cols) {
  graph::Graph g = new_graph("masked_select");
  graph::Value* x = g.add_value("x", f32({rows, cols}));
  g.add_input(x);
  graph::Value* mask = add(g, "Greater", {x, scalar(g, "zero", 0.0f)});
  graph::Value* coords = add(g, "Transpose", {add(g, "NonZero", {mask})});
  graph::Value* picked = add(g, "GatherND", {x, coords});
  graph::Value* y =
      add(g, "Add", {add(g, "Mul", {picked, scalar(g, "two", 2.0f)}), scalar(g, "one", 1.0f)});
  g.add_output(y);
  g.add_output(coords);
  return g;
}

/// Sets `x` so that its first `positives` elements in a stride-7 walk are positive.
void fill_walk(runtime::NDArray& x, int64_t positives) {
  int64_t n = x.size();
  for (int64_t k = 0; k < n; ++k)
    x.data_as<float>()[(k * 7) % n] = k < positives ? 0.5f + float(k % 5) : -1.0f - float(k % 3);
}

TEST(RunTimeExtents, AMaskedSelectionRunsThroughKernelsAtEveryExtent) {
  const int64_t rows = 6, cols = 5;
  graph::Graph g = masked_select_model(rows, cols);
  for (runtime::Model& model : compiled_both_ways(g, {f32({rows, cols})})) {
    runtime::NDArray x({rows, cols}, runtime::DType::Float(32));
    for (int64_t positives : {7, 0, 30, 1, 19}) {
      fill_walk(x, positives);
      std::vector<float> want;
      std::vector<int64_t> where;
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
          if (float v = x.data_as<float>()[i * cols + j]; v > 0) {
            want.push_back(v * 2 + 1);
            where.insert(where.end(), {i, j});
          }
      std::vector<runtime::NDArray> out = model.run({&x});
      ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{positives})) << positives;
      ASSERT_EQ(out[1].shape(), (std::vector<int64_t>{positives, 2})) << positives;
      for (int64_t k = 0; k < positives; ++k) {
        EXPECT_EQ(out[0].data_as<float>()[k], want[static_cast<size_t>(k)]) << k;
        EXPECT_EQ(out[1].data_as<int64_t>()[2 * k], where[static_cast<size_t>(2 * k)]) << k;
        EXPECT_EQ(out[1].data_as<int64_t>()[2 * k + 1], where[static_cast<size_t>(2 * k + 1)]);
      }
    }
    // The plan pads the coordinates once for the kernels and trims both outputs.
    EXPECT_EQ(count_steps(model, runtime::StepKind::PadToBound), 1);
    EXPECT_EQ(count_steps(model, runtime::StepKind::TrimFromBound), 2);
  }
}

/// Relu(x[x.sum(1) > 0] @ w): the kept rows (NonZero -> Transpose -> GatherND) through a
/// product, whose kernel runs per block of rows.
graph::Graph kept_rows_model(int64_t rows, int64_t cols, int64_t outs) {
  graph::Graph g = new_graph("kept_rows");
  graph::Value* x = g.add_value("x", f32({rows, cols}));
  g.add_input(x);
  graph::Value* sums = add(g, "ReduceSum", {x, int64s(g, "axis1", {1})},
                           {{"keepdims", graph::Attribute::of_int(0)}});
  graph::Value* keep = add(g, "Greater", {sums, scalar(g, "zero", 0.0f)});
  graph::Value* index = add(g, "Transpose", {add(g, "NonZero", {keep})});
  graph::Value* kept = add(g, "GatherND", {x, index});
  runtime::NDArray w = testing::random_array({cols, outs}, 5);
  graph::Value* weights =
      g.add_constant("w", std::make_shared<const runtime::NDArray>(std::move(w)));
  g.add_output(add(g, "Relu", {add(g, "MatMul", {kept, weights})}));
  return g;
}

TEST(RunTimeExtents, AProductOfKeptRowsRunsPerBlockOfRows) {
  const int64_t rows = 96, cols = 8, outs = 4;
  graph::Graph g = kept_rows_model(rows, cols, outs);
  runtime::NDArray weights = testing::random_array({cols, outs}, 5);  // the model's w
  const float* w = weights.data_as<float>();
  for (runtime::Model& model : compiled_both_ways(g, {f32({rows, cols})})) {
    int blocked = 0;
    for (const runtime::PlanStep& step : model.plan().steps) blocked += step.block_rows == 48;
    EXPECT_EQ(blocked, 1);  // 96 rows at most: blocks of 48
    runtime::NDArray x({rows, cols}, runtime::DType::Float(32));
    for (int64_t kept : {0, 1, 47, 48, 49, 96, 13}) {
      std::vector<int64_t> chosen;
      for (int64_t i = 0; i < rows; ++i) {
        bool keep = (i * 37) % rows < kept;  // `kept` rows spread over the input
        if (keep) chosen.push_back(i);
        for (int64_t j = 0; j < cols; ++j)
          x.data_as<float>()[i * cols + j] = (keep ? 0.25f : -0.25f) * float(1 + (i + j) % 3);
      }
      std::vector<runtime::NDArray> out = model.run({&x});
      ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{kept, outs})) << kept;
      for (int64_t r = 0; r < kept; ++r)
        for (int64_t o = 0; o < outs; ++o) {
          float want = 0;
          for (int64_t j = 0; j < cols; ++j)
            want += x.data_as<float>()[chosen[static_cast<size_t>(r)] * cols + j] * w[j * outs + o];
          EXPECT_NEAR(out[0].data_as<float>()[r * outs + o], std::max(want, 0.0f), 1e-5)
              << kept << ": " << r << ", " << o;
        }
    }
  }
}

/// The kept rows x[x.sum(1) > 0] of the input x [rows, cols] of `g`.
graph::Value* kept_rows_of(graph::Graph& g, int64_t rows, int64_t cols) {
  graph::Value* x = g.add_value("x", f32({rows, cols}));
  g.add_input(x);
  graph::Value* sums = add(g, "ReduceSum", {x, int64s(g, "axis1", {1})},
                           {{"keepdims", graph::Attribute::of_int(0)}});
  graph::Value* keep = add(g, "Greater", {sums, scalar(g, "zero", 0.0f)});
  return add(g, "GatherND", {x, add(g, "Transpose", {add(g, "NonZero", {keep})})});
}

/// The kept rows k of x [rows, cols], reduced over the run's axis: ReduceSum(k, 0),
/// ReduceMean(k, 0, keepdims), ReduceMax(k) and Softmax(k, 0).
graph::Graph kept_rows_reduced(int64_t rows, int64_t cols) {
  graph::Graph g = new_graph("kept_rows_reduced");
  graph::Value* kept = kept_rows_of(g, rows, cols);
  auto keepdims = [](int64_t k) {
    return std::map<std::string, graph::Attribute>{{"keepdims", graph::Attribute::of_int(k)}};
  };
  g.add_output(add(g, "ReduceSum", {kept, int64s(g, "axis0", {0})}, keepdims(0)));
  auto mean = keepdims(1);
  mean["axes"] = graph::Attribute::of_ints({0});
  g.add_output(add(g, "ReduceMean", {kept}, mean));
  g.add_output(add(g, "ReduceMax", {kept}, keepdims(0)));
  g.add_output(add(g, "Softmax", {kept}, {{"axis", graph::Attribute::of_int(0)}}));
  return g;
}

TEST(RunTimeExtents, ReductionsAndSoftmaxOverTheRunsAxisSeeOnlyWhatTheRunFound) {
  const int64_t rows = 96, cols = 5;
  graph::Graph g = kept_rows_reduced(rows, cols);
  for (runtime::Model& model : compiled_both_ways(g, {f32({rows, cols})})) {
    EXPECT_EQ(count_steps(model, runtime::StepKind::ExtentOf), 1);
    runtime::NDArray x = testing::random_array({rows, cols}, 17);
    for (int64_t kept : {96, 5, 40, 1}) {  // the larger runs first leave data in the padding
      std::vector<int64_t> chosen;
      for (int64_t i = 0; i < rows; ++i) {
        bool keep = (i * 29) % rows < kept;
        float row_sum = 0;
        for (int64_t j = 0; j < cols; ++j) row_sum += x.data_as<float>()[i * cols + j];
        // Flip the row's sign so that its sum is positive exactly when it is kept.
        if ((row_sum > 0) != keep)
          for (int64_t j = 0; j < cols; ++j) x.data_as<float>()[i * cols + j] *= -1;
        if (keep) chosen.push_back(i);
      }
      ASSERT_EQ(static_cast<int64_t>(chosen.size()), kept);
      auto at = [&](int64_t r, int64_t j) {
        return x.data_as<float>()[chosen[static_cast<size_t>(r)] * cols + j];
      };
      std::vector<runtime::NDArray> out = model.run({&x});
      ASSERT_EQ(out[3].shape(), (std::vector<int64_t>{kept, cols})) << kept;
      float largest = -INFINITY;
      for (int64_t j = 0; j < cols; ++j) {
        float sum = 0, top = -INFINITY;
        for (int64_t r = 0; r < kept; ++r) {
          sum += at(r, j);
          top = std::max(top, at(r, j));
          largest = std::max(largest, at(r, j));
        }
        EXPECT_NEAR(out[0].data_as<float>()[j], sum, 1e-4) << kept << ", " << j;
        EXPECT_NEAR(out[1].data_as<float>()[j], sum / float(kept), 1e-5) << kept << ", " << j;
        float denominator = 0;
        for (int64_t r = 0; r < kept; ++r) denominator += std::exp(at(r, j) - top);
        for (int64_t r = 0; r < kept; ++r)
          EXPECT_NEAR(out[3].data_as<float>()[r * cols + j], std::exp(at(r, j) - top) / denominator,
                      1e-5)
              << kept << ": " << r << ", " << j;
      }
      EXPECT_EQ(out[2].data_as<float>()[0], largest) << kept;
    }
  }
}

TEST(RunTimeExtents, ShapeAndSizeTellTheRunsExtent) {
  // mean = ReduceSum(k, 0) / Shape(k)[0] of the kept rows k, and Shape(k), Size(k).
  const int64_t rows = 40, cols = 3;
  graph::Graph g = new_graph("kept_rows_measured");
  graph::Value* kept = kept_rows_of(g, rows, cols);
  graph::Value* shape = add(g, "Shape", {kept});
  runtime::NDArray zero({}, runtime::DType::Int(64));
  *zero.data_as<int64_t>() = 0;
  graph::Value* count = add(
      g, "Cast",
      {add(g, "Gather",
           {shape,
            g.add_constant("first", std::make_shared<const runtime::NDArray>(std::move(zero)))})},
      {{"to", graph::Attribute::of_int(1)}});
  graph::Value* sums = add(g, "ReduceSum", {kept, int64s(g, "rows", {0})},
                           {{"keepdims", graph::Attribute::of_int(0)}});
  g.add_output(add(g, "Div", {sums, count}));
  g.add_output(shape);
  g.add_output(add(g, "Size", {kept}));
  for (runtime::Model& model : compiled_both_ways(g, {f32({rows, cols})})) {
    runtime::NDArray x = testing::random_array({rows, cols}, 23);
    for (int64_t kept_rows : {40, 7, 1}) {
      std::vector<float> sum(cols, 0.0f);
      for (int64_t i = 0; i < rows; ++i) {
        bool keep = (i * 13) % rows < kept_rows;
        float row_sum = 0;
        for (int64_t j = 0; j < cols; ++j) row_sum += x.data_as<float>()[i * cols + j];
        if ((row_sum > 0) != keep)
          for (int64_t j = 0; j < cols; ++j) x.data_as<float>()[i * cols + j] *= -1;
        if (keep)
          for (int64_t j = 0; j < cols; ++j) sum[j] += x.data_as<float>()[i * cols + j];
      }
      std::vector<runtime::NDArray> out = model.run({&x});
      for (int64_t j = 0; j < cols; ++j)
        EXPECT_NEAR(out[0].data_as<float>()[j], sum[j] / float(kept_rows), 1e-5) << kept_rows;
      ASSERT_EQ(out[1].shape(), (std::vector<int64_t>{2}));
      EXPECT_EQ(out[1].data_as<int64_t>()[0], kept_rows);
      EXPECT_EQ(out[1].data_as<int64_t>()[1], cols);
      EXPECT_EQ(out[2].data_as<int64_t>()[0], kept_rows * cols);
    }
  }
}

/// Compress(x, keep, axis 1) -> [rows, n]; its column sums r (a reduction over axis 0,
/// padded along axis 0 of r) are an output, and NonZero(r * r > 0.25) reads them.
graph::Graph compress_model(int64_t rows, int64_t cols) {
  graph::Graph g = new_graph("compress");
  graph::Value* x = g.add_value("x", f32({rows, cols}));
  graph::Value* keep = g.add_value("keep", graph::TensorType::of(ir::DataType::Bool(), {cols}));
  g.add_input(x);
  g.add_input(keep);
  graph::Value* kept = add(g, "Compress", {x, keep}, {{"axis", graph::Attribute::of_int(1)}});
  graph::Value* sums = add(g, "ReduceSum", {kept, int64s(g, "axes", {0})},
                           {{"keepdims", graph::Attribute::of_int(0)}});
  graph::Value* large = add(g, "Greater", {add(g, "Mul", {sums, sums}), scalar(g, "q", 0.25f)});
  g.add_output(sums);
  g.add_output(add(g, "NonZero", {large}));
  return g;
}

TEST(RunTimeExtents, AnExtentAlongAnInnerAxisFeedsAReductionAndAStep) {
  const int64_t rows = 4, cols = 9;
  graph::Graph g = compress_model(rows, cols);
  graph::TensorType bools = graph::TensorType::of(ir::DataType::Bool(), {cols});
  for (runtime::Model& model : compiled_both_ways(g, {f32({rows, cols}), bools})) {
    // Compress and NonZero run as steps; the sums are trimmed for the caller and for NonZero.
    EXPECT_EQ(count_steps(model, runtime::StepKind::Compress), 1);
    EXPECT_EQ(count_steps(model, runtime::StepKind::TrimFromBound), 2);
    runtime::NDArray x = testing::random_array({rows, cols}, 11);
    for (uint32_t pattern : {0b101100111u, 0u, 0b111111111u, 0b000010000u}) {
      runtime::NDArray keep({cols}, runtime::DType::Bool());
      std::vector<float> sums;
      std::vector<int64_t> large;
      for (int64_t j = 0; j < cols; ++j) {
        keep.data_as<uint8_t>()[j] = (pattern >> j) & 1;
        if (!((pattern >> j) & 1)) continue;
        float s = 0;
        for (int64_t i = 0; i < rows; ++i) s += x.data_as<float>()[i * cols + j];
        if (s * s > 0.25f) large.push_back(static_cast<int64_t>(sums.size()));
        sums.push_back(s);
      }
      std::vector<runtime::NDArray> out = model.run({&x, &keep});
      int64_t n = static_cast<int64_t>(sums.size());
      ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{n})) << pattern;
      for (int64_t k = 0; k < n; ++k)
        EXPECT_NEAR(out[0].data_as<float>()[k], sums[static_cast<size_t>(k)], 1e-5) << k;
      ASSERT_EQ(out[1].shape(), (std::vector<int64_t>{1, static_cast<int64_t>(large.size())}));
      for (size_t k = 0; k < large.size(); ++k) EXPECT_EQ(out[1].data_as<int64_t>()[k], large[k]);
    }
  }
}

void expect_refused(const graph::Graph& g, const std::vector<graph::TensorType>& types,
                    const std::vector<std::string>& phrases) {
  try {
    compile_model(g, types);
    FAIL() << "compiled";
  } catch (const CompileError& e) {
    std::string m = e.what();
    for (const std::string& phrase : phrases) EXPECT_NE(m.find(phrase), std::string::npos) << m;
  }
}

TEST(RunTimeExtents, NodesThatCannotCarryTheExtentAreRefused) {
  graph::TensorType bools = graph::TensorType::of(ir::DataType::Bool(), {9});
  {  // an arg-max over the axis the run sets would count the padding (no mask makes it right)
    graph::Graph g = compress_model(4, 9);
    graph::Value* kept = g.nodes()[0]->outputs[0];
    g.add_output(add(g, "ArgMax", {kept}, {{"axis", graph::Attribute::of_int(1)}}));
    expect_refused(g, {f32({4, 9}), bools},
                   {"(ArgMax) reads 'Compress0.out', whose extent along axis 1",
                    "(Compress) finds at run time: it reduces over axis 1"});
  }
  {  // two selections of the same capacity, each of its own extent
    graph::Graph g = new_graph("two");
    graph::Value* a = g.add_value("a", f32({2, 3}));
    graph::Value* b = g.add_value("b", f32({2, 3}));
    g.add_input(a);
    g.add_input(b);
    g.add_output(add(g, "Add", {add(g, "NonZero", {a}), add(g, "NonZero", {b})}));
    expect_refused(g, {f32({2, 3}), f32({2, 3})},
                   {"(Add) reads", "it pairs two extents the run finds separately"});
  }
  {  // a fixed operand spanning the axis cannot broadcast against the run's extent
    graph::Graph g = new_graph("fixed");
    graph::Value* a = g.add_value("a", f32({2, 3}));
    g.add_input(a);
    graph::Value* nonzero = add(g, "NonZero", {a});
    g.add_output(add(g, "Add", {nonzero, int64s(g, "six", {1, 2, 3, 4, 5, 6})}));
    expect_refused(g, {f32({2, 3})}, {"its operand 'six' spans the axis 1", "fixed extent 6"});
  }
}

}  // namespace
}  // namespace tessel::compiler
