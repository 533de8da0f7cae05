// Helpers shared by the index operators (see index_common.h).
#include "ops/index/index_common.h"

#include <algorithm>

#include "ops/op_util.h"

namespace tessel::ops::index {

void check_index_input(const OpContext& ctx, size_t i, const std::string& what) {
  ir::DataType dtype = ctx.input_type(i).dtype;
  if (dtype != ir::DataType::Int(32) && dtype != ir::DataType::Int(64))
    ctx.fail("input " + std::to_string(i) + " (" + what + ") must be int32 or int64, found " +
             dtype.to_string());
}

ir::Expr wrap_index(const ir::Expr& index, int64_t extent) {
  // Floor modulo maps [-extent, 0) to [0, extent) and keeps every value in bounds. An empty
  // extent only occurs with an empty output (nothing is loaded); 1 avoids a zero divisor.
  return ir::cast(ir::DataType::Index(), index) % std::max<int64_t>(extent, 1);
}

ir::Expr clamp_index(const ir::Expr& index, int64_t extent) {
  ir::Expr i = ir::cast(ir::DataType::Index(), index);
  return ir::min(ir::max(i, ir::Expr(int64_t{0})), ir::Expr(std::max<int64_t>(extent - 1, 0)));
}

std::string attr_choice(const OpContext& ctx, const std::string& name,
                        const std::vector<std::string>& choices) {
  std::string value = ctx.attr_string(name);
  if (std::find(choices.begin(), choices.end(), value) != choices.end()) return value;
  std::string list;
  for (const std::string& c : choices) list += (list.empty() ? "'" : ", '") + c + "'";
  ctx.fail("attribute '" + name + "' is '" + value + "', expected one of " + list);
}

ir::Expr all_of(const std::vector<ir::Expr>& terms) {
  ir::Expr result;
  for (const ir::Expr& t : terms) result = result.defined() ? (result && t) : t;
  return result.defined() ? result : ir::make_bool(true);
}

std::vector<ir::Expr> as_exprs(const std::vector<te::Var>& vars) {
  return std::vector<ir::Expr>(vars.begin(), vars.end());
}

OpDef make_op(std::string name, int since_version, PatternKind pattern,
              std::vector<AttrSpec> attributes, InferFn infer, ComputeFn compute,
              std::vector<int> value_inputs) {
  OpDef def;
  def.name = std::move(name);
  def.since_version = since_version;
  def.pattern = pattern;
  def.attributes = std::move(attributes);
  def.infer = std::move(infer);
  def.compute = std::move(compute);
  def.value_inputs = std::move(value_inputs);
  return def;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t d = 0; d < shape.size(); ++d) text += (d ? ", " : "") + std::to_string(shape[d]);
  return text + "]";
}

int64_t elements_axis(const OpContext& ctx, const std::vector<int64_t>& data,
                      const std::vector<int64_t>& indices) {
  if (indices.size() != data.size())
    ctx.fail("indices have rank " + std::to_string(indices.size()) +
             ", expected the rank of data, " + std::to_string(data.size()));
  int64_t axis = normalize_axis(ctx, ctx.attr_int("axis"), static_cast<int64_t>(data.size()));
  for (size_t d = 0; d < data.size(); ++d)
    if (static_cast<int64_t>(d) != axis && indices[d] > data[d])
      ctx.fail("indices shape " + shape_text(indices) + " exceeds data shape " + shape_text(data) +
               " in dimension " + std::to_string(d));
  return axis;
}

}  // namespace tessel::ops::index
