// ModelProto -> Graph: node order, attributes of every kind, opsets, initializers in raw and
// typed form, omitted optional inputs / outputs, symbolic and unknown dimensions.
#include <gtest/gtest.h>

#include <cstring>

#include "frontend/onnx_importer.h"
#include "onnx_test_util.h"

namespace tessel::frontend {
namespace {

using graph::AttrKind;
using graph::Dim;
using testing::float_tensor;
using testing::serialize;
using testing::set_tensor_info;

/// x: float[N, 3, ?] -> Clip(x, <omitted min>, m) -> y -> com.example.Mix(y, w) -> z, <none>
/// with every attribute kind on Mix; m and w are initializers, b an unused int64 one.
onnx::ModelProto two_node_model() {
  onnx::ModelProto model;
  model.set_ir_version(7);
  auto* onnx_opset = model.add_opset_import();
  onnx_opset->set_domain("ai.onnx");
  onnx_opset->set_version(13);
  auto* custom_opset = model.add_opset_import();
  custom_opset->set_domain("com.example");
  custom_opset->set_version(2);
  auto* g = model.mutable_graph();
  g->set_name("two_nodes");
  set_tensor_info(g->add_input(), "x", onnx::TensorProto_DataType_FLOAT, {"N", "3", ""});
  *g->add_initializer() = float_tensor("m", {}, {6.0f});
  *g->add_initializer() = float_tensor("w", {3}, {1.0f, 2.0f, 3.0f});
  auto* b = g->add_initializer();
  b->set_name("b");
  b->set_data_type(onnx::TensorProto_DataType_INT64);
  b->add_dims(2);
  b->add_int64_data(-5);
  b->add_int64_data(int64_t{1} << 40);

  auto* clip = g->add_node();
  clip->set_name("clip");
  clip->set_op_type("Clip");
  clip->set_domain("ai.onnx");
  clip->add_input("x");
  clip->add_input("");
  clip->add_input("m");
  clip->add_output("y");

  auto* mix = g->add_node();
  mix->set_name("mix");
  mix->set_op_type("Mix");
  mix->set_domain("com.example");
  mix->add_input("y");
  mix->add_input("w");
  mix->add_output("z");
  mix->add_output("");
  auto attr = [&](const std::string& name, onnx::AttributeProto::AttributeType type) {
    auto* a = mix->add_attribute();
    a->set_name(name);
    a->set_type(type);
    return a;
  };
  attr("i", onnx::AttributeProto::INT)->set_i(-7);
  attr("f", onnx::AttributeProto::FLOAT)->set_f(0.5f);
  attr("s", onnx::AttributeProto::STRING)->set_s("same_upper");
  *attr("t", onnx::AttributeProto::TENSOR)->mutable_t() = float_tensor("", {2}, {4.0f, -1.5f});
  auto* ints = attr("ints", onnx::AttributeProto::INTS);
  ints->add_ints(1);
  ints->add_ints(-2);
  auto* floats = attr("floats", onnx::AttributeProto::FLOATS);
  floats->add_floats(0.25f);
  auto* strings = attr("strings", onnx::AttributeProto::STRINGS);
  strings->add_strings("a");
  strings->add_strings("bc");
  attr("body", onnx::AttributeProto::GRAPH)->mutable_g()->set_name("body");
  // Old models leave `type` unset: the kind comes from the field that is set.
  auto* untyped = mix->add_attribute();
  untyped->set_name("untyped_ints");
  untyped->add_ints(9);

  set_tensor_info(g->add_output(), "z", onnx::TensorProto_DataType_FLOAT, {"N", "3", ""});
  // value_info of an intermediate value is not taken: the executor infers it.
  set_tensor_info(g->add_value_info(), "y", onnx::TensorProto_DataType_FLOAT, {"N", "3", ""});
  return model;
}

TEST(OnnxImport, TwoNodeGraph) {
  graph::Graph g = import_onnx_bytes(serialize(two_node_model()), "two.onnx");
  EXPECT_EQ(g.name, "two_nodes");
  EXPECT_EQ(g.opsets, (std::map<std::string, int>{{"", 13}, {"com.example", 2}}));

  ASSERT_EQ(g.inputs().size(), 1u);
  const graph::Value* x = g.inputs()[0];
  EXPECT_EQ(x->name, "x");
  EXPECT_EQ(x->type.dtype, ir::DataType::Float(32));
  EXPECT_EQ(x->type.dims, (std::vector<Dim>{Dim::named("N"), Dim::of(3), Dim::named("")}));

  ASSERT_EQ(g.nodes().size(), 2u);
  const graph::Node& clip = *g.nodes()[0];
  const graph::Node& mix = *g.nodes()[1];
  EXPECT_EQ(clip.op_type, "Clip");
  EXPECT_EQ(clip.domain, "");
  EXPECT_EQ(clip.opset, 13);
  ASSERT_EQ(clip.inputs.size(), 3u);
  EXPECT_EQ(clip.inputs[0], x);
  EXPECT_EQ(clip.inputs[1], nullptr);
  ASSERT_NE(clip.inputs[2], nullptr);
  EXPECT_TRUE(clip.inputs[2]->is_constant());
  EXPECT_EQ(clip.inputs[2]->constant->shape(), std::vector<int64_t>{});
  EXPECT_EQ(*clip.inputs[2]->constant->data_as<float>(), 6.0f);
  ASSERT_EQ(clip.outputs.size(), 1u);
  EXPECT_EQ(clip.outputs[0]->producer, &clip);
  EXPECT_EQ(clip.outputs[0]->type, graph::TensorType{});

  EXPECT_EQ(mix.op_type, "Mix");
  EXPECT_EQ(mix.domain, "com.example");
  EXPECT_EQ(mix.opset, 2);
  ASSERT_EQ(mix.inputs.size(), 2u);
  EXPECT_EQ(mix.inputs[0], clip.outputs[0]);
  const float* w = mix.inputs[1]->constant->data_as<float>();
  EXPECT_EQ(mix.inputs[1]->type, graph::TensorType::of(ir::DataType::Float(32), {3}));
  EXPECT_EQ(std::vector<float>(w, w + 3), (std::vector<float>{1.0f, 2.0f, 3.0f}));
  ASSERT_EQ(mix.outputs.size(), 2u);
  EXPECT_EQ(mix.outputs[1], nullptr);
  const graph::Value* z = mix.outputs[0];
  EXPECT_EQ(z->type.dtype, ir::DataType::Float(32));
  EXPECT_EQ(z->type.dims, x->type.dims);
  EXPECT_EQ(g.outputs(), std::vector<graph::Value*>{const_cast<graph::Value*>(z)});

  ASSERT_EQ(mix.attributes.size(), 9u);
  EXPECT_EQ(mix.attribute("i")->kind, AttrKind::Int);
  EXPECT_EQ(mix.attribute("i")->i, -7);
  EXPECT_EQ(mix.attribute("f")->kind, AttrKind::Float);
  EXPECT_EQ(mix.attribute("f")->f, 0.5);
  EXPECT_EQ(mix.attribute("s")->kind, AttrKind::String);
  EXPECT_EQ(mix.attribute("s")->s, "same_upper");
  const graph::Attribute* t = mix.attribute("t");
  EXPECT_EQ(t->kind, AttrKind::Tensor);
  ASSERT_EQ(t->tensor->shape(), std::vector<int64_t>{2});
  EXPECT_EQ(t->tensor->data_as<float>()[0], 4.0f);
  EXPECT_EQ(t->tensor->data_as<float>()[1], -1.5f);
  EXPECT_EQ(mix.attribute("ints")->kind, AttrKind::Ints);
  EXPECT_EQ(mix.attribute("ints")->ints, (std::vector<int64_t>{1, -2}));
  EXPECT_EQ(mix.attribute("floats")->kind, AttrKind::Floats);
  EXPECT_EQ(mix.attribute("floats")->floats, std::vector<double>{0.25});
  EXPECT_EQ(mix.attribute("strings")->kind, AttrKind::Strings);
  EXPECT_EQ(mix.attribute("strings")->strings, (std::vector<std::string>{"a", "bc"}));
  EXPECT_EQ(mix.attribute("body")->kind, AttrKind::Graph);
  EXPECT_EQ(mix.attribute("untyped_ints")->kind, AttrKind::Ints);
  EXPECT_EQ(mix.attribute("untyped_ints")->ints, std::vector<int64_t>{9});

  const graph::Value* b = g.find_value("b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->type, graph::TensorType::of(ir::DataType::Int(64), {2}));
  EXPECT_EQ(b->constant->data_as<int64_t>()[0], -5);
  EXPECT_EQ(b->constant->data_as<int64_t>()[1], int64_t{1} << 40);
}

// IR < 4 lists initializers among the graph inputs: they stay constants.
// A body's reads of enclosing values become its last inputs (captured), the same list in
// every body of the node, which passes those values after its own inputs.
TEST(OnnxImport, BodiesReadOuterValuesThroughCapturedInputs) {
  graph::Graph g = import_onnx_bytes(serialize(testing::if_model("x")), "if.onnx");
  const graph::Node& node = *g.nodes().back();
  ASSERT_EQ(node.op_type, "If");
  ASSERT_EQ(node.inputs.size(), 3u);
  EXPECT_EQ(node.inputs[0]->name, "c");
  EXPECT_EQ(node.inputs[1]->name, "y");
  EXPECT_EQ(node.inputs[2]->name, "x");
  for (const char* name : {"then_branch", "else_branch"}) {
    const graph::Attribute* body = node.attribute(name);
    ASSERT_TRUE(body && body->kind == AttrKind::Graph && body->graph) << name;
    EXPECT_EQ(body->graph->captured_inputs, 2u) << name;
    ASSERT_EQ(body->graph->inputs().size(), 2u) << name;
    EXPECT_EQ(body->graph->inputs()[0]->name, "y") << name;
    EXPECT_EQ(body->graph->inputs()[1]->name, "x") << name;
    EXPECT_EQ(body->graph->nodes().size(), 1u) << name;
  }
  // The else branch reads only x; its unread y still takes y's place.
  const graph::Graph& else_branch = *node.attribute("else_branch")->graph;
  EXPECT_EQ(else_branch.nodes()[0]->inputs[0], else_branch.inputs()[1]);
}

TEST(OnnxImport, InitializersListedAsInputsStayConstants) {
  onnx::ModelProto model = testing::relu_model();
  model.set_ir_version(3);
  auto* g = model.mutable_graph();
  set_tensor_info(g->add_input(), "w", onnx::TensorProto_DataType_FLOAT, {"2"});
  *g->add_initializer() = float_tensor("w", {2}, {1.0f, 2.0f});
  graph::Graph graph = import_onnx_bytes(serialize(model), "ir3.onnx");
  ASSERT_EQ(graph.inputs().size(), 1u);
  EXPECT_EQ(graph.inputs()[0]->name, "x");
  EXPECT_TRUE(graph.find_value("w")->is_constant());
}

// One initializer per element type, each in the typed field ONNX assigns to it, against the
// bytes the values have in memory.
TEST(OnnxImport, InitializersFromTypedFields) {
  struct Case {
    onnx::TensorProto_DataType type;
    runtime::DType dtype;
    std::vector<int64_t> values;  // what goes into the field
    std::vector<uint8_t> bytes;   // little-endian memory image
  };
  using runtime::DType;
  const std::vector<Case> cases = {
      {onnx::TensorProto_DataType_INT8, DType::Int(8), {-1, 5}, {0xff, 0x05}},
      {onnx::TensorProto_DataType_UINT8, DType::UInt(8), {200, 7}, {200, 7}},
      {onnx::TensorProto_DataType_INT16, DType::Int(16), {-2, 258}, {0xfe, 0xff, 0x02, 0x01}},
      {onnx::TensorProto_DataType_UINT16, DType::UInt(16), {65535, 1}, {0xff, 0xff, 1, 0}},
      {onnx::TensorProto_DataType_INT32, DType::Int(32), {-1, 1}, {255, 255, 255, 255, 1, 0, 0, 0}},
      {onnx::TensorProto_DataType_BOOL, DType::Bool(), {0, 2}, {0, 1}},
      {onnx::TensorProto_DataType_FLOAT16, DType::Float(16), {0x3c00, 0xc000}, {0, 0x3c, 0, 0xc0}},
      {onnx::TensorProto_DataType_BFLOAT16,
       DType::BFloat(16),
       {0x3f80, 0x4000},
       {0x80, 0x3f, 0, 0x40}},
      {onnx::TensorProto_DataType_INT64,
       DType::Int(64),
       {-2, 3},
       {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 3, 0, 0, 0, 0, 0, 0, 0}},
      {onnx::TensorProto_DataType_UINT32,
       DType::UInt(32),
       {4000000000, 1},
       {0x00, 0x28, 0x6b, 0xee, 1, 0, 0, 0}},
      {onnx::TensorProto_DataType_UINT64,
       DType::UInt(64),
       {1, 256},
       {1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}},
  };
  onnx::ModelProto model = testing::relu_model();
  auto* g = model.mutable_graph();
  for (const Case& c : cases) {
    auto* t = g->add_initializer();
    t->set_name("t" + std::to_string(c.type));
    t->set_data_type(c.type);
    t->add_dims(2);
    for (int64_t v : c.values) {
      if (c.type == onnx::TensorProto_DataType_INT64)
        t->add_int64_data(v);
      else if (c.type == onnx::TensorProto_DataType_UINT32 ||
               c.type == onnx::TensorProto_DataType_UINT64)
        t->add_uint64_data(static_cast<uint64_t>(v));
      else
        t->add_int32_data(static_cast<int32_t>(v));
    }
  }
  auto* d = g->add_initializer();
  d->set_name("double");
  d->set_data_type(onnx::TensorProto_DataType_DOUBLE);
  d->add_double_data(-0.125);
  auto* f = g->add_initializer();
  f->set_name("float");
  f->set_data_type(onnx::TensorProto_DataType_FLOAT);
  f->add_dims(1);
  f->add_float_data(2.5f);

  graph::Graph graph = import_onnx_bytes(serialize(model), "typed.onnx");
  for (const Case& c : cases) {
    SCOPED_TRACE(onnx::TensorProto_DataType_Name(c.type));
    const graph::Value* v = graph.find_value("t" + std::to_string(c.type));
    ASSERT_NE(v, nullptr);
    ASSERT_EQ(v->constant->dtype(), c.dtype);
    ASSERT_EQ(v->constant->nbytes(), static_cast<int64_t>(c.bytes.size()));
    const auto* bytes = static_cast<const uint8_t*>(v->constant->data());
    EXPECT_EQ(std::vector<uint8_t>(bytes, bytes + c.bytes.size()), c.bytes);
  }
  EXPECT_EQ(*graph.find_value("double")->constant->data_as<double>(), -0.125);
  EXPECT_EQ(graph.find_value("double")->type.rank(), 0);
  EXPECT_EQ(*graph.find_value("float")->constant->data_as<float>(), 2.5f);
}

TEST(OnnxImport, RawBoolDataIsNormalized) {
  onnx::ModelProto model = testing::relu_model();
  auto* t = model.mutable_graph()->add_initializer();
  t->set_name("mask");
  t->set_data_type(onnx::TensorProto_DataType_BOOL);
  t->add_dims(3);
  t->set_raw_data(std::string("\x00\x01\x07", 3));
  graph::Graph graph = import_onnx_bytes(serialize(model), "bool.onnx");
  const auto* mask = static_cast<const uint8_t*>(graph.find_value("mask")->constant->data());
  EXPECT_EQ(std::vector<uint8_t>(mask, mask + 3), (std::vector<uint8_t>{0, 1, 1}));
}

// A graph output that is a graph input needs no node; an output declared without a shape
// keeps the empty type of an intermediate value.
TEST(OnnxImport, OutputsWithoutNodesAndWithoutShapes) {
  onnx::ModelProto model = testing::relu_model();
  auto* g = model.mutable_graph();
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  g->add_output()->set_name("x");
  graph::Graph graph = import_onnx_bytes(serialize(model), "outputs.onnx");
  ASSERT_EQ(graph.outputs().size(), 2u);
  EXPECT_EQ(graph.outputs()[0]->type, graph::TensorType{});
  EXPECT_EQ(graph.outputs()[1], graph.inputs()[0]);
}

}  // namespace
}  // namespace tessel::frontend
