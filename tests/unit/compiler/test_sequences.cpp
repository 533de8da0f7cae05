// Sequences and optionals resolved at compile time (passes/sequences.h): models that split,
// insert, erase, select, concatenate, stack and map over sequences, compiled and run against
// the same slicing written out here; sequence inputs given as their elements and sequence
// outputs returned as theirs; a Loop building a list unrolled; an If giving a list resolved
// for a constant condition, and by the GraphExecutor for each value of a condition input;
// and the errors for positions out of range or unknown at compile time, an empty optional's
// element and structures that do not fit.
#include <gtest/gtest.h>

#include "compiler/compile_model.h"
#include "compiler/graph_executor.h"
#include "passes/sequences.h"
#include "support/error.h"
#include "unit/compiler/compiler_test_util.h"

namespace tessel::compiler {
namespace {

using graph::Attribute;
using graph::ValueKind;
using testing::f32;
using testing::random_array;

/// A graph built node by node; node outputs are untyped (inference types them) and of the
/// kind given.
struct SequenceGraph {
  graph::Graph g;

  SequenceGraph() {
    g.name = "sequences";
    g.opsets = {{"", 17}};
  }
  graph::Value* input(const std::string& name, graph::TensorType type,
                      ValueKind kind = ValueKind::Tensor) {
    graph::Value* v = g.add_value(name, std::move(type));
    v->kind = kind;
    g.add_input(v);
    return v;
  }
  graph::Value* ints(const std::string& name, std::vector<int64_t> values) {
    runtime::NDArray a({static_cast<int64_t>(values.size())}, runtime::DType::Int(64));
    for (size_t k = 0; k < values.size(); ++k) a.data_as<int64_t>()[k] = values[k];
    return g.add_constant(name, std::make_shared<const runtime::NDArray>(std::move(a)));
  }
  graph::Value* scalar(const std::string& name, int64_t value) {
    return g.add_constant(name, testing::int64_scalar(value));
  }
  graph::Value* node(const std::string& op, std::vector<graph::Value*> inputs,
                     ValueKind kind = ValueKind::Sequence,
                     std::map<std::string, Attribute> attributes = {}) {
    graph::Value* out = testing::add_untyped_node(g, op, std::move(inputs), std::move(attributes))[0];
    out->kind = kind;
    return out;
  }
};

/// Columns [begin, end) of the [rows, cols] matrix `x`.
std::vector<float> columns(const runtime::NDArray& x, int64_t begin, int64_t end) {
  int64_t rows = x.shape()[0], cols = x.shape()[1];
  std::vector<float> out;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = begin; j < end; ++j) out.push_back(x.data_as<float>()[i * cols + j]);
  return out;
}

std::vector<float> values(const runtime::NDArray& a) {
  return {a.data_as<float>(), a.data_as<float>() + a.size()};
}

TEST(Sequences, SplitInsertEraseSelectAndConcatenate) {
  // s = SplitToSequence(x, [1, 2, 3], axis 1) = [x0, x12, x345]; t = Insert(s, y, 0) =
  // [y, x0, x12, x345]; u = Erase(t, 2) = [y, x0, x345]; outputs: At(u, -1), Concat(u, 1),
  // Length(u).
  SequenceGraph sg;
  graph::Value* x = sg.input("x", f32({2, 6}));
  graph::Value* y = sg.input("y", f32({2, 2}));
  graph::Value* s = sg.node("SplitToSequence", {x, sg.ints("split", {1, 2, 3})}, ValueKind::Sequence,
                            {{"axis", Attribute::of_int(1)}});
  graph::Value* t = sg.node("SequenceInsert", {s, y, sg.scalar("front", 0)});
  graph::Value* u = sg.node("SequenceErase", {t, sg.scalar("third", 2)});
  sg.g.add_output(sg.node("SequenceAt", {u, sg.scalar("last", -1)}, ValueKind::Tensor));
  sg.g.add_output(sg.node("ConcatFromSequence", {u}, ValueKind::Tensor, {{"axis", Attribute::of_int(1)}}));
  sg.g.add_output(sg.node("SequenceLength", {u}, ValueKind::Tensor));
  runtime::Model model = jit_model(compile_model(sg.g, {f32({2, 6}), f32({2, 2})}));
  runtime::NDArray xa = random_array({2, 6}, 1), ya = random_array({2, 2}, 2);
  std::vector<runtime::NDArray> out = model.run({&xa, &ya});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values(out[0]), columns(xa, 3, 6));
  ASSERT_EQ(out[1].shape(), (std::vector<int64_t>{2, 6}));
  for (int64_t i = 0; i < 2; ++i) {  // [y | x0 | x345] row by row
    std::vector<float> row{ya.data_as<float>()[i * 2], ya.data_as<float>()[i * 2 + 1],
                           xa.data_as<float>()[i * 6]};
    for (int64_t j = 3; j < 6; ++j) row.push_back(xa.data_as<float>()[i * 6 + j]);
    for (int64_t j = 0; j < 6; ++j) EXPECT_EQ(out[1].data_as<float>()[i * 6 + j], row[j]) << i << ", " << j;
  }
  EXPECT_EQ(*out[2].data_as<int64_t>(), 3);
}

TEST(Sequences, SplitIntoRowsStackedBackAndMappedOver) {
  // Rows of x without their axis (keepdims 0), each squared by a SequenceMap body, stacked
  // along a new last axis: out[j][i] = x[i][j]^2.
  graph::Graph body;
  body.name = "square";
  graph::Value* row = body.add_value("row", f32({3}));
  body.add_input(row);
  body.add_output(testing::add_untyped_node(body, "Mul", {row, row})[0]);
  SequenceGraph sg;
  graph::Value* x = sg.input("x", f32({4, 3}));
  graph::Value* rows = sg.node("SplitToSequence", {x}, ValueKind::Sequence, {{"keepdims", Attribute::of_int(0)}});
  graph::Value* squared = sg.node("SequenceMap", {rows}, ValueKind::Sequence,
                                  {{"body", Attribute::of_graph(std::make_shared<const graph::Graph>(std::move(body)))}});
  sg.g.add_output(sg.node("ConcatFromSequence", {squared}, ValueKind::Tensor,
                          {{"axis", Attribute::of_int(-1)}, {"new_axis", Attribute::of_int(1)}}));
  runtime::Model model = jit_model(compile_model(sg.g, {f32({4, 3})}));
  runtime::NDArray xa = random_array({4, 3}, 3);
  std::vector<runtime::NDArray> out = model.run({&xa});
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{3, 4}));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      float v = xa.data_as<float>()[i * 3 + j];
      EXPECT_EQ(out[0].data_as<float>()[j * 4 + i], v * v) << i << ", " << j;
    }
}

TEST(Sequences, SequenceInputsAndOutputsAreTheirElements) {
  // y = Insert(s, t) for a sequence input s: compiled for two elements of s, the model takes
  // s[0], s[1], t and returns y[0], y[1], y[2].
  SequenceGraph sg;
  graph::Value* s = sg.input("s", graph::TensorType{ir::DataType::Float(32), {}}, ValueKind::Sequence);
  graph::Value* t = sg.input("t", f32({3}));
  sg.g.add_output(sg.node("SequenceInsert", {s, t}));
  graph::Graph flat = passes::flatten_structured_inputs(sg.g, {{true, {f32({2}), f32({5})}}, {}});
  ASSERT_EQ(flat.inputs().size(), 3u);
  EXPECT_EQ(flat.inputs()[0]->name, "s[0]");
  EXPECT_EQ(flat.inputs()[2]->name, "t");
  CompiledModel compiled = compile_model(flat, {f32({2}), f32({5}), f32({3})});
  ASSERT_EQ(compiled.plan.outputs.size(), 3u);
  for (size_t k = 0; k < 3; ++k)
    EXPECT_EQ(compiled.plan.tensors[static_cast<size_t>(compiled.plan.outputs[k])].name,
              "SequenceInsert0.out[" + std::to_string(k) + "]");
  runtime::Model model = jit_model(std::move(compiled));
  runtime::NDArray a = random_array({2}, 4), b = random_array({5}, 5), c = random_array({3}, 6);
  std::vector<runtime::NDArray> out = model.run({&a, &b, &c});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(values(out[0]), values(a));
  EXPECT_EQ(values(out[1]), values(b));
  EXPECT_EQ(values(out[2]), values(c));
  try {
    passes::flatten_structured_inputs(sg.g, {{false, {}}, {}});
    FAIL() << "flattened";
  } catch (const CompileError& e) {
    EXPECT_STREQ(e.what(), "graph input 0 's' (sequence): a sequence holds a value");
  }
}

TEST(Sequences, OptionalsResolveToTheirValueOrItsAbsence) {
  // has = HasElement(o); y = GetElement(o) + 1 for an optional tensor input o.
  SequenceGraph sg;
  graph::Value* o = sg.input("o", graph::TensorType{ir::DataType::Float(32), {}}, ValueKind::OptionalTensor);
  sg.g.add_output(sg.node("OptionalHasElement", {o}, ValueKind::Tensor));
  graph::Value* y = sg.node("OptionalGetElement", {o}, ValueKind::Tensor);
  sg.g.add_output(y);
  graph::Graph present = passes::flatten_structured_inputs(sg.g, {{true, {f32({4})}}});
  runtime::Model model = jit_model(compile_model(present, {f32({4})}));
  runtime::NDArray a = random_array({4}, 7);
  std::vector<runtime::NDArray> out = model.run({&a});
  EXPECT_EQ(*out[0].data_as<uint8_t>(), 1);
  EXPECT_EQ(values(out[1]), values(a));
  graph::Graph absent = passes::flatten_structured_inputs(sg.g, {{false, {}}});
  try {
    compile_model(absent, {});
    FAIL() << "compiled";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("input 0 'o' is an empty optional: it has no element to get"),
              std::string::npos)
        << e.what();
  }
  try {
    passes::flatten_structured_inputs(sg.g, {{true, {f32({4}), f32({4})}}});
    FAIL() << "flattened";
  } catch (const CompileError& e) {
    EXPECT_STREQ(e.what(), "graph input 0 'o' (optional tensor): holds one tensor, given 2");
  }
}

/// The message compiling `g` (for inputs of `types`) fails with.
std::string compile_error(const graph::Graph& g, const std::vector<graph::TensorType>& types) {
  try {
    compile_model(g, types);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

/// Loop(trips, true, SequenceEmpty) whose body appends x * iteration: with `trips` a graph
/// input when `runtime_trips`.
graph::Graph list_building_loop(int64_t trips, bool runtime_trips) {
  graph::Graph body;
  body.name = "append";
  graph::Value* iteration = body.add_value("i", graph::TensorType::of(ir::DataType::Int(64), {}));
  graph::Value* cond = body.add_value("cond", graph::TensorType::of(ir::DataType::Bool(), {}));
  graph::Value* list = body.add_value("list", {});
  list->kind = ValueKind::Sequence;
  graph::Value* x_inside = body.add_value("x", f32({3}));
  for (graph::Value* v : {iteration, cond, list, x_inside}) body.add_input(v);
  body.captured_inputs = 1;
  graph::Value* scale = testing::add_untyped_node(body, "Cast", {iteration}, {{"to", Attribute::of_int(1)}})[0];
  graph::Value* term = testing::add_untyped_node(body, "Mul", {x_inside, scale})[0];
  body.add_output(testing::add_untyped_node(body, "Identity", {cond})[0]);
  graph::Value* longer = testing::add_untyped_node(body, "SequenceInsert", {list, term})[0];
  longer->kind = ValueKind::Sequence;
  body.add_output(longer);
  SequenceGraph sg;
  graph::Value* x = sg.input("x", f32({3}));
  graph::Value* m = runtime_trips ? sg.input("m", graph::TensorType::of(ir::DataType::Int(64), {}))
                                  : sg.scalar("m", trips);
  runtime::NDArray yes = runtime::NDArray::zeros({}, runtime::DType::Bool());
  *yes.data_as<uint8_t>() = 1;
  graph::Value* always = sg.g.add_constant("always", std::make_shared<const runtime::NDArray>(std::move(yes)));
  graph::Value* empty = sg.node("SequenceEmpty", {}, ValueKind::Sequence, {{"dtype", Attribute::of_int(1)}});
  graph::Value* built = sg.node("Loop", {m, always, empty, x}, ValueKind::Sequence,
                                {{"body", Attribute::of_graph(std::make_shared<const graph::Graph>(std::move(body)))}});
  sg.g.add_output(sg.node("ConcatFromSequence", {built}, ValueKind::Tensor,
                          {{"axis", Attribute::of_int(0)}, {"new_axis", Attribute::of_int(1)}}));
  return std::move(sg.g);
}

TEST(Sequences, ALoopBuildingAListIsUnrolled) {
  const int64_t trips = 4;
  runtime::Model model = jit_model(compile_model(list_building_loop(trips, false), {f32({3})}));
  runtime::NDArray x = random_array({3}, 8);
  std::vector<runtime::NDArray> out = model.run({&x});
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{trips, 3}));
  for (int64_t t = 0; t < trips; ++t)
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_EQ(out[0].data_as<float>()[t * 3 + j], x.data_as<float>()[j] * static_cast<float>(t));
  std::string m = compile_error(list_building_loop(0, true),
                                {f32({3}), graph::TensorType::of(ir::DataType::Int(64), {})});
  EXPECT_NE(m.find("the trip count (input 0 'm') must be known at compile time"), std::string::npos) << m;
}

/// A branch of an If that captures x and returns SequenceConstruct(x, x * k, ...) with one
/// element per factor.
std::shared_ptr<const graph::Graph> list_branch(const std::string& name,
                                                std::vector<float> factors) {
  graph::Graph branch;
  branch.name = name;
  graph::Value* x = branch.add_value("x", f32({3}));
  branch.add_input(x);
  branch.captured_inputs = 1;
  std::vector<graph::Value*> elements;
  for (size_t k = 0; k < factors.size(); ++k) {
    auto factor =
        std::make_shared<runtime::NDArray>(runtime::NDArray::zeros({}, runtime::DType::Float(32)));
    *factor->data_as<float>() = factors[k];
    graph::Value* c = branch.add_constant(name + "_k" + std::to_string(k), std::move(factor));
    elements.push_back(testing::add_untyped_node(branch, "Mul", {x, c})[0]);
  }
  graph::Value* list = testing::add_untyped_node(branch, "SequenceConstruct", elements)[0];
  list->kind = ValueKind::Sequence;
  branch.add_output(list);
  return std::make_shared<const graph::Graph>(std::move(branch));
}

/// If(cond) giving a list of two elements (then) or one (else), concatenated.
graph::Graph branch_to_list(std::optional<bool> constant_condition) {
  SequenceGraph sg;
  graph::Value* x = sg.input("x", f32({3}));
  graph::Value* cond;
  if (constant_condition) {
    runtime::NDArray c = runtime::NDArray::zeros({}, runtime::DType::Bool());
    *c.data_as<uint8_t>() = *constant_condition ? 1 : 0;
    cond = sg.g.add_constant("cond", std::make_shared<const runtime::NDArray>(std::move(c)));
  } else {
    cond = sg.input("cond", graph::TensorType::of(ir::DataType::Bool(), {}));
  }
  graph::Value* list = sg.node("If", {cond, x}, ValueKind::Sequence,
                               {{"then_branch", Attribute::of_graph(list_branch("then", {1, 2}))},
                                {"else_branch", Attribute::of_graph(list_branch("else", {-3}))}});
  sg.g.add_output(
      sg.node("ConcatFromSequence", {list}, ValueKind::Tensor, {{"axis", Attribute::of_int(0)}}));
  return std::move(sg.g);
}

TEST(Sequences, AnIfWithAConstantConditionGivesItsBranchsList) {
  runtime::NDArray x = random_array({3}, 9);
  const float* xs = x.data_as<float>();
  for (bool taken : {true, false}) {
    runtime::Model model = jit_model(compile_model(branch_to_list(taken), {f32({3})}));
    std::vector<runtime::NDArray> out = model.run({&x});
    std::vector<float> expected;
    for (float factor : taken ? std::vector<float>{1, 2} : std::vector<float>{-3})
      for (int j = 0; j < 3; ++j) expected.push_back(xs[j] * factor);
    EXPECT_EQ(values(out[0]), expected) << (taken ? "then" : "else");
  }
  std::string m = compile_error(branch_to_list(std::nullopt),
                                {f32({3}), graph::TensorType::of(ir::DataType::Bool(), {})});
  EXPECT_NE(m.find("the condition (input 0 'cond') must be known at compile time"),
            std::string::npos)
      << m;
}

TEST(Sequences, TheGraphExecutorCompilesAnIfGivingAListForItsCondition) {
  graph::Graph g = branch_to_list(std::nullopt);
  GraphExecutor executor(g);
  EXPECT_EQ(executor.value_dependent_inputs(), (std::vector<bool>{false, true}));
  runtime::NDArray x = random_array({3}, 10);
  for (bool taken : {true, false, true}) {
    runtime::NDArray cond = runtime::NDArray::zeros({}, runtime::DType::Bool());
    *cond.data_as<uint8_t>() = taken ? 1 : 0;
    std::vector<runtime::NDArray> out = executor.run({&x, &cond});
    std::vector<float> expected;
    for (float factor : taken ? std::vector<float>{1, 2} : std::vector<float>{-3})
      for (int j = 0; j < 3; ++j) expected.push_back(x.data_as<float>()[j] * factor);
    EXPECT_EQ(values(out[0]), expected) << (taken ? "then" : "else");
  }
  EXPECT_EQ(executor.compilations(), 2u);
}

TEST(Sequences, PositionsMustBeInRangeAndKnownAtCompileTime) {
  SequenceGraph sg;
  graph::Value* x = sg.input("x", f32({2}));
  graph::Value* s = sg.node("SequenceConstruct", {x, x, x});
  sg.g.add_output(sg.node("SequenceAt", {s, sg.scalar("five", 5)}, ValueKind::Tensor));
  EXPECT_NE(compile_error(sg.g, {f32({2})})
                .find("node 'SequenceAt1' (SequenceAt): position 5 is out of range for a sequence of "
                      "3 elements (valid: -3 to 2)"),
            std::string::npos)
      << compile_error(sg.g, {f32({2})});
  SequenceGraph unknown;
  graph::Value* x2 = unknown.input("x", f32({2}));
  graph::Value* p = unknown.input("p", graph::TensorType::of(ir::DataType::Int(64), {}));
  graph::Value* s2 = unknown.node("SequenceConstruct", {x2});
  unknown.g.add_output(unknown.node("SequenceAt", {s2, p}, ValueKind::Tensor));
  std::string m = compile_error(unknown.g, {f32({2}), graph::TensorType::of(ir::DataType::Int(64), {})});
  EXPECT_NE(m.find("the position (input 1 'p') must be known at compile time"), std::string::npos) << m;
  SequenceGraph mixed;
  graph::Value* a = mixed.input("a", f32({2}));
  graph::Value* b = mixed.input("b", graph::TensorType::of(ir::DataType::Int(64), {2}));
  mixed.g.add_output(mixed.node("ConcatFromSequence", {mixed.node("SequenceConstruct", {a, b})},
                                ValueKind::Tensor, {{"axis", Attribute::of_int(0)}}));
  m = compile_error(mixed.g, {f32({2}), graph::TensorType::of(ir::DataType::Int(64), {2})});
  EXPECT_NE(m.find("input 1 'b' has element type int64, the sequence float32"), std::string::npos) << m;
  // A tensor declared a sequence (an Identity of it): refused, not read as one.
  SequenceGraph declared;
  declared.g.add_output(declared.node("Identity", {declared.input("x", f32({2}))}));
  m = compile_error(declared.g, {f32({2})});
  EXPECT_NE(m.find("is a sequence that Identity computes at run time"), std::string::npos) << m;
}

}  // namespace
}  // namespace tessel::compiler
