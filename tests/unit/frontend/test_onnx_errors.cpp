// Bad models: each must fail with a CompileError that names the file and the problem.
#include <gtest/gtest.h>

#include <random>

#include "frontend/onnx_importer.h"
#include "onnx_test_util.h"

namespace tessel::frontend {
namespace {

using testing::expect_compile_error;
using testing::relu_model;
using testing::serialize;
using testing::set_tensor_info;

/// Imports `model` from memory as "bad.onnx", expecting an error containing `text`.
void expect_model_error(const onnx::ModelProto& model, const std::string& text) {
  expect_compile_error([&] { import_onnx_bytes(serialize(model), "bad.onnx"); },
                       "bad.onnx: " + text);
}

TEST(OnnxErrors, MissingAndEmptyFiles) {
  testing::TempDir dir;
  expect_compile_error([&] { import_onnx_file(dir.file("nothing.onnx")); },
                       "nothing.onnx: not a valid ONNX model: no such file");
  expect_compile_error([&] { import_onnx_file(dir.path().string()); },
                       "not a valid ONNX model: no such file (or not a regular file)");
  testing::write_file(dir.path() / "empty.onnx", "");
  expect_compile_error([&] { import_onnx_file(dir.file("empty.onnx")); },
                       "empty.onnx: not a valid ONNX model: the file is empty");
}

// Every strict prefix of a valid model is rejected: a cut inside a field fails to parse, a
// cut between fields loses the graph or the opset_import.
TEST(OnnxErrors, EveryTruncationIsRejected) {
  const std::string bytes = serialize(relu_model());
  EXPECT_NO_THROW(import_onnx_bytes(bytes, "full.onnx"));
  for (size_t n = 0; n < bytes.size(); ++n) {
    SCOPED_TRACE("prefix of " + std::to_string(n) + " bytes");
    expect_compile_error([&] { import_onnx_bytes(bytes.substr(0, n), "cut.onnx"); },
                         "cut.onnx: not a valid ONNX model: ");
  }
}

TEST(OnnxErrors, RandomBytesAreRejected) {
  std::mt19937 rng(20240601);
  for (int round = 0; round < 200; ++round) {
    std::string bytes(1 + rng() % 600, '\0');
    for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
    expect_compile_error([&] { import_onnx_bytes(bytes, "random.onnx"); },
                         "random.onnx: not a valid ONNX model: ");
  }
}

TEST(OnnxErrors, ModelWithoutGraphOrOpsetsOrIrVersion) {
  onnx::ModelProto no_graph = relu_model();
  no_graph.clear_graph();
  expect_model_error(no_graph, "not a valid ONNX model: the model has no graph");
  onnx::ModelProto no_opset = relu_model();
  no_opset.clear_opset_import();
  expect_model_error(no_opset, "not a valid ONNX model: the model has no opset_import");
  onnx::ModelProto no_ir = relu_model();
  no_ir.clear_ir_version();
  expect_model_error(no_ir, "not a valid ONNX model: ir_version is not set");
}

TEST(OnnxErrors, UndefinedValueReference) {
  onnx::ModelProto model = relu_model();
  auto* add = model.mutable_graph()->add_node();
  add->set_name("n");
  add->set_op_type("Add");
  add->add_input("y");
  add->add_input("foo");
  add->add_output("z");
  expect_model_error(model,
                     "node 'n' (Add) input 1 'foo' is not defined by any earlier node, "
                     "graph input or initializer");
}

// A body may read values of the enclosing graphs, but only values that exist there.
TEST(OnnxErrors, BodyReadingAMissingOuterValue) {
  expect_model_error(testing::if_model("missing"),
                     "node 'then_branch_op' (Add) (in node 'if' (If) attribute 'then_branch') "
                     "input 1 'missing' is not defined by any earlier node, graph input or "
                     "initializer");
}

// ONNX requires topological order: a node may not use the output of a later node.
TEST(OnnxErrors, NodesOutOfOrder) {
  onnx::ModelProto model = relu_model();
  auto* g = model.mutable_graph();
  auto* first = g->mutable_node(0);
  first->set_input(0, "t");
  auto* later = g->add_node();
  later->set_op_type("Neg");
  later->add_input("x");
  later->add_output("t");
  expect_model_error(model, "node 'relu' (Relu) input 0 't' is not defined by any earlier node");
}

TEST(OnnxErrors, ValuesDefinedTwiceAndMissingOutputs) {
  onnx::ModelProto twice = relu_model();
  *twice.mutable_graph()->add_node() = twice.graph().node(0);
  expect_model_error(twice, "node 'relu' (Relu) output 0 'y' is already defined");
  onnx::ModelProto dangling = relu_model();
  dangling.mutable_graph()->add_output()->set_name("nowhere");
  expect_model_error(dangling, "graph output 'nowhere' is not computed by any node");
}

TEST(OnnxErrors, AbsurdInitializerShape) {
  onnx::ModelProto model = relu_model();
  *model.mutable_graph()->add_initializer() =
      testing::float_tensor("big", {1024, int64_t{1} << 40}, {});
  expect_model_error(model, "initializer 'big': shape has more than 2^34 elements");
  onnx::ModelProto negative = relu_model();
  *negative.mutable_graph()->add_initializer() = testing::float_tensor("neg", {-3}, {});
  expect_model_error(negative, "initializer 'neg': dimension 0 is -3, expected >= 0");
}

TEST(OnnxErrors, AbsurdDeclaredShape) {
  // A graph input or output declaring 10^12 elements is refused at import, before any
  // size is computed from it; a symbolic dimension beside it is not counted.
  onnx::ModelProto input = relu_model();
  input.mutable_graph()->mutable_input(0)->Clear();
  set_tensor_info(input.mutable_graph()->mutable_input(0), "x", onnx::TensorProto_DataType_FLOAT,
                  {"1000000", "N", "1000000"});
  expect_model_error(input,
                     "value 'x' (read by node 'relu' (Relu)): shape has more than 2^34 elements "
                     "(dimension 2 is 1000000)");
  onnx::ModelProto output = relu_model();
  output.mutable_graph()->mutable_output(0)->Clear();
  set_tensor_info(output.mutable_graph()->mutable_output(0), "y", onnx::TensorProto_DataType_FLOAT,
                  {"1000000", "1000000"});
  expect_model_error(output,
                     "value 'y' (made by node 'relu' (Relu)): shape has more than 2^34 elements");
}

TEST(OnnxErrors, InitializerDataMismatch) {
  onnx::ModelProto raw = relu_model();
  *raw.mutable_graph()->add_initializer() = testing::float_tensor("w", {3}, {1.0f, 2.0f});
  expect_model_error(raw, "initializer 'w': raw_data has 8 bytes, expected 12 for float32[3]");
  onnx::ModelProto typed = relu_model();
  auto* t = typed.mutable_graph()->add_initializer();
  t->set_name("k");
  t->set_data_type(onnx::TensorProto_DataType_INT32);
  t->add_dims(2);
  t->add_int32_data(1);
  expect_model_error(typed, "initializer 'k': int32_data has 1 values, expected 2 for int32[2]");
}

TEST(OnnxErrors, UnsupportedTypes) {
  // Strings import from string_data only, one per element.
  onnx::ModelProto strings = relu_model();
  auto* s = strings.mutable_graph()->add_initializer();
  s->set_name("words");
  s->set_data_type(onnx::TensorProto_DataType_STRING);
  s->add_dims(2);
  s->add_string_data("hi");
  expect_model_error(strings,
                     "initializer 'words': string_data has 1 values, expected 2 for string[2]");
  s->add_string_data("there");
  s->set_raw_data("hi");
  expect_model_error(strings,
                     "initializer 'words': a string tensor keeps its data in string_data, "
                     "not in raw_data");

  // Sequences of tensors and optionals import (passes/sequences.h); a sequence of sequences
  // and a map do not.
  onnx::ModelProto nested = relu_model();
  auto* in = nested.mutable_graph()->add_input();
  in->set_name("seq");
  in->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  expect_model_error(nested,
                     "value 'seq' is a sequence of sequence values: only sequences of tensors are "
                     "supported");
  onnx::ModelProto map = relu_model();
  auto* m = map.mutable_graph()->add_input();
  m->set_name("m");
  m->mutable_type()->mutable_map_type()->set_key_type(onnx::TensorProto_DataType_INT64);
  expect_model_error(map, "value 'm' has map type: not supported");

  onnx::ModelProto complex = relu_model();
  set_tensor_info(complex.mutable_graph()->add_input(), "c", onnx::TensorProto_DataType_COMPLEX64,
                  {"2"});
  expect_model_error(complex, "value 'c' has element type complex64: not supported");

  onnx::ModelProto complex_input = relu_model();  // the node that reads it is named
  set_tensor_info(complex_input.mutable_graph()->add_input(), "z",
                  onnx::TensorProto_DataType_COMPLEX128, {"3"});
  onnx::NodeProto* reader = complex_input.mutable_graph()->add_node();
  reader->set_name("absolute");
  reader->set_op_type("Abs");
  reader->add_input("z");
  reader->add_output("magnitude");
  expect_model_error(complex_input,
                     "value 'z' (read by node 'absolute' (Abs)) has element type complex128: not "
                     "supported");

  onnx::ModelProto no_rank = relu_model();
  no_rank.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  expect_model_error(no_rank, "value 'x' (read by node 'relu' (Relu)) has no shape");
}

TEST(OnnxErrors, UnsupportedAttributes) {
  auto with_attribute = [](auto fill) {
    onnx::ModelProto model = relu_model();
    auto* attr = model.mutable_graph()->mutable_node(0)->add_attribute();
    attr->set_name("a");
    fill(attr);
    return model;
  };
  expect_model_error(with_attribute([](onnx::AttributeProto* a) {
                       a->set_type(onnx::AttributeProto::SPARSE_TENSOR);
                       a->mutable_sparse_tensor();
                     }),
                     "node 'relu' (Relu) attribute 'a' has kind sparse_tensor: not supported");
  expect_model_error(with_attribute([](onnx::AttributeProto* a) {
                       a->set_type(onnx::AttributeProto::TYPE_PROTO);
                       a->mutable_tp();
                     }),
                     "node 'relu' (Relu) attribute 'a' has kind type_proto: not supported");
  expect_model_error(with_attribute([](onnx::AttributeProto* a) {
                       a->set_type(onnx::AttributeProto::INT);
                       a->set_ref_attr_name("alpha");
                     }),
                     "node 'relu' (Relu) attribute 'a' refers to the function attribute 'alpha'");
  expect_model_error(with_attribute([](onnx::AttributeProto*) {}),
                     "node 'relu' (Relu) attribute 'a' has no type and no value");
  expect_model_error(with_attribute([](onnx::AttributeProto* a) {
                       a->set_type(onnx::AttributeProto::TENSOR);
                       a->mutable_t()->set_data_type(onnx::TensorProto_DataType_COMPLEX64);
                     }),
                     "node 'relu' (Relu) attribute 'a' has element type complex64: not supported");
}

TEST(OnnxErrors, MissingOpsetForDomain) {
  onnx::ModelProto model = relu_model();
  model.mutable_graph()->mutable_node(0)->set_domain("com.vendor");
  expect_model_error(model,
                     "node 'relu' (com.vendor.Relu) uses domain 'com.vendor' but the "
                     "model's opset_import has no entry for it");
}

}  // namespace
}  // namespace tessel::frontend
