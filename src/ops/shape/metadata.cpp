// Metadata operators, folded on the host from attributes and input types: Constant, Shape,
// Size.
#include <algorithm>

#include "ops/op_util.h"
#include "ops/shape/shape_ops.h"

namespace tessel::ops::shape {

namespace {

using graph::AttrKind;

/// A rank-0 (`scalar`) or rank-1 array holding `values`.
template <class T>
runtime::NDArray host_array(const std::vector<T>& values, runtime::DType dtype, bool scalar) {
  std::vector<int64_t> shape;
  if (!scalar) shape.push_back(static_cast<int64_t>(values.size()));
  runtime::NDArray array(shape, dtype);
  std::copy(values.begin(), values.end(), array.data_as<T>());
  return array;
}

runtime::NDArray constant_value(const OpContext& ctx) {
  for (const char* name : {"value_string", "value_strings", "sparse_value"})
    if (ctx.has_attr(name))
      ctx.fail(std::string("attribute '") + name +
               "' is not supported: tessel has no string or sparse tensors");
  std::vector<std::string> given;
  for (const char* name : {"value", "value_float", "value_floats", "value_int", "value_ints"})
    if (ctx.has_attr(name)) given.push_back(name);
  if (given.size() != 1)
    ctx.fail("exactly one of the value attributes must be given, found " +
             std::to_string(given.size()));
  const std::string& name = given[0];
  if (name == "value") return ctx.attr_tensor(name).copy();
  if (name == "value_int" || name == "value_ints") {
    bool scalar = name == "value_int";
    auto values = scalar ? std::vector<int64_t>{ctx.attr_int(name)} : ctx.attr_ints(name);
    return host_array(values, runtime::DType::Int(64), scalar);
  }
  bool scalar = name == "value_float";
  auto values = scalar ? std::vector<double>{ctx.attr_float(name)} : ctx.attr_floats(name);
  return host_array(std::vector<float>(values.begin(), values.end()), runtime::DType::Float(32),
                    scalar);
}

/// The type of a folded array.
std::vector<graph::TensorType> type_of(const runtime::NDArray& array) {
  return {graph::TensorType::of(graph::to_data_type(array.dtype()), array.shape())};
}

template <class Fold>
OpDef folded_op(std::string name, int since, std::vector<AttrSpec> attributes, Fold fold) {
  OpDef def;
  def.name = std::move(name);
  def.since_version = since;
  def.attributes = std::move(attributes);
  def.pattern = PatternKind::Opaque;
  def.infer = [fold](const OpContext& ctx) { return type_of(fold(ctx)); };
  def.fold = [fold](const OpContext& ctx) {
    std::vector<runtime::NDArray> outputs;
    outputs.push_back(fold(ctx));
    return outputs;
  };
  return def;
}

}  // namespace

std::pair<int64_t, int64_t> shape_range(const OpContext& ctx) {
  auto rank = static_cast<int64_t>(ctx.input_shape(0).size());
  auto clamp = [rank](int64_t position) {
    return std::clamp(position < 0 ? position + rank : position, int64_t{0}, rank);
  };
  if (ctx.opset() < 15) return {0, rank};
  int64_t start = clamp(ctx.attr_int("start"));
  int64_t end = ctx.has_attr("end") ? clamp(ctx.attr_int("end")) : rank;
  return {start, std::max(start, end)};
}

void register_metadata_ops(OpRegistry& registry) {
  registry.add(folded_op("Constant", 1,
                         {{"value", AttrKind::Tensor, {}},
                          {"value_float", AttrKind::Float, {}},
                          {"value_floats", AttrKind::Floats, {}},
                          {"value_int", AttrKind::Int, {}},
                          {"value_ints", AttrKind::Ints, {}},
                          {"value_string", AttrKind::String, {}},
                          {"value_strings", AttrKind::Strings, {}},
                          {"sparse_value", AttrKind::Tensor, {}}},
                         constant_value));
  registry.add(folded_op(
      "Shape", 1,
      {{"start", AttrKind::Int, graph::Attribute::of_int(0)}, {"end", AttrKind::Int, {}}},
      [](const OpContext& ctx) {
        auto [start, end] = shape_range(ctx);
        std::vector<int64_t> shape = ctx.input_shape(0);
        return host_array(std::vector<int64_t>(shape.begin() + start, shape.begin() + end),
                          runtime::DType::Int(64), false);
      }));
  registry.add(folded_op("Size", 1, {}, [](const OpContext& ctx) {
    return host_array(std::vector<int64_t>{te::shape_size(ctx.input_shape(0))},
                      runtime::DType::Int(64), true);
  }));
}

}  // namespace tessel::ops::shape
