// RNN, GRU and LSTM: attribute schemas, input checks and type inference. The graph rewrite
// unrolls them (passes/rules/recurrent_rules.cpp); they have no compute.
#include <algorithm>
#include <cctype>
#include <map>

#include "ops/nn/nn_ops.h"
#include "ops/nn/nn_util.h"
#include "ops/nn/recurrent.h"

namespace tessel::ops::nn {
namespace {

using graph::AttrKind;

/// The alpha and beta ONNX's operator of each name defaults to; which of them it takes.
struct ActivationDefaults {
  bool takes_alpha = false, takes_beta = false;
  double alpha = 0, beta = 0;
};

const std::map<std::string, ActivationDefaults>& activation_table() {
  static const std::map<std::string, ActivationDefaults> table = {
      {"Relu", {}},
      {"Tanh", {}},
      {"Sigmoid", {}},
      {"Softsign", {}},
      {"Softplus", {}},
      {"Affine", {true, true, 1.0, 0.0}},
      {"LeakyRelu", {true, false, 0.01, 0.0}},
      {"ThresholdedRelu", {true, false, 1.0, 0.0}},
      {"ScaledTanh", {true, true, 1.0, 1.0}},
      {"HardSigmoid", {true, true, 0.2, 0.5}},
      {"Elu", {true, false, 1.0, 0.0}},
  };
  return table;
}

/// The table's spelling of an activation name (ONNX compares them case-insensitively).
std::string canonical_activation(const OpContext& ctx, const std::string& name) {
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  for (const auto& entry : activation_table())
    if (lower(entry.first) == lower(name)) return entry.first;
  ctx.fail("activation '" + name + "' is not one of Relu, Tanh, Sigmoid, Affine, LeakyRelu, " +
           "ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus");
}

/// The functions of each direction: the node's `activations` (the first functions of the
/// list, as many per direction as the cell takes; alpha and beta taken in order by the
/// functions that use them), or the cell's defaults.
std::vector<std::vector<Activation>> activations_of(const OpContext& ctx, const Recurrent& r) {
  std::vector<std::string> defaults = r.cell == Cell::Rnn ? std::vector<std::string>{"Tanh"}
                                      : r.cell == Cell::Gru
                                          ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                          : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  size_t per_direction = defaults.size(), directions = static_cast<size_t>(r.directions);
  std::vector<std::string> names;
  if (ctx.has_attr("activations")) {
    names = ctx.node().attributes.at("activations").strings;
    if (names.size() < per_direction * directions) {
      ctx.fail("attribute 'activations' names " + std::to_string(names.size()) +
               " functions, expected " + std::to_string(per_direction * directions) + " (" +
               std::to_string(per_direction) + " per direction)");
    }
  } else {
    for (size_t d = 0; d < directions; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  }
  std::vector<double> alphas = ctx.has_attr("activation_alpha")
                                   ? ctx.attr_floats("activation_alpha")
                                   : std::vector<double>{};
  std::vector<double> betas =
      ctx.has_attr("activation_beta") ? ctx.attr_floats("activation_beta") : std::vector<double>{};
  size_t next_alpha = 0, next_beta = 0;
  std::vector<std::vector<Activation>> result(directions);
  for (size_t k = 0; k < per_direction * directions; ++k) {
    Activation a;
    a.name = canonical_activation(ctx, names[k]);
    const ActivationDefaults& d = activation_table().at(a.name);
    a.alpha = d.takes_alpha && next_alpha < alphas.size() ? alphas[next_alpha++] : d.alpha;
    a.beta = d.takes_beta && next_beta < betas.size() ? betas[next_beta++] : d.beta;
    result[k / per_direction].push_back(a);
  }
  return result;
}

/// Fails unless optional input `i`, when given, has `shape`.
void check_shape(const OpContext& ctx, size_t i, const char* name,
                 const std::vector<int64_t>& shape) {
  if (ctx.has_input(i) && ctx.input_shape(i) != shape)
    ctx.fail(std::string("input ") + name + " " + shape_text(ctx.input_shape(i)) +
             " must have shape " + shape_text(shape));
}

Cell cell_of(const std::string& op_type) {
  return op_type == "RNN" ? Cell::Rnn : op_type == "GRU" ? Cell::Gru : Cell::Lstm;
}

std::vector<graph::TensorType> infer_recurrent(const OpContext& ctx) {
  Recurrent r = recurrent_of(ctx);
  std::vector<graph::TensorType> types;
  for (const std::vector<int64_t>& shape : r.output_shapes())
    types.push_back(graph::TensorType::of(r.dtype, shape));
  return types;
}

OpDef recurrent_def(const std::string& name) {
  OpDef def;
  def.name = name;
  def.since_version = 7;
  def.attributes = {{"activation_alpha", AttrKind::Floats, std::nullopt},
                    {"activation_beta", AttrKind::Floats, std::nullopt},
                    {"activations", AttrKind::Strings, std::nullopt},
                    {"clip", AttrKind::Float, std::nullopt},
                    {"direction", AttrKind::String, graph::Attribute::of_string("forward")},
                    {"hidden_size", AttrKind::Int, std::nullopt},
                    {"layout", AttrKind::Int, graph::Attribute::of_int(0)}};
  if (name == "GRU")
    def.attributes.push_back({"linear_before_reset", AttrKind::Int, graph::Attribute::of_int(0)});
  if (name == "LSTM")
    def.attributes.push_back({"input_forget", AttrKind::Int, graph::Attribute::of_int(0)});
  def.pattern = PatternKind::Opaque;
  def.infer = infer_recurrent;
  return def;
}

}  // namespace

std::vector<std::vector<int64_t>> Recurrent::output_shapes() const {
  std::vector<int64_t> y = {seq_length, directions, batch, hidden};
  std::vector<int64_t> state = {directions, batch, hidden};
  if (batch_major) {
    y = {batch, seq_length, directions, hidden};
    state = {batch, directions, hidden};
  }
  std::vector<std::vector<int64_t>> shapes = {y, state};
  if (cell == Cell::Lstm) shapes.push_back(state);
  return shapes;
}

Recurrent recurrent_of(const OpContext& ctx) {
  Recurrent r;
  r.cell = cell_of(ctx.node().op_type);
  r.gates = r.cell == Cell::Rnn ? 1 : r.cell == Cell::Gru ? 3 : 4;
  check_dtype(ctx, 0, float_types());
  r.dtype = ctx.input_type(0).dtype;
  for (size_t i : {1, 2, 3, 5, 6, 7})
    if (ctx.has_input(i) && ctx.input_type(i).dtype != r.dtype)
      ctx.fail("input " + std::to_string(i) + " is " + ctx.input_type(i).dtype.to_string() +
               ", expected " + r.dtype.to_string() + " like X");
  int64_t layout = ctx.attr_int("layout");
  if (layout != 0 && layout != 1)
    ctx.fail("attribute 'layout' is " + std::to_string(layout) + ", expected 0 or 1");
  r.batch_major = layout == 1;
  std::string direction = ctx.attr_string("direction");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    ctx.fail("attribute 'direction' is '" + direction +
             "', expected 'forward', 'reverse' or 'bidirectional'");
  r.directions = direction == "bidirectional" ? 2 : 1;
  r.reverse = direction == "reverse";

  std::vector<int64_t> x = ctx.input_shape(0), w = ctx.input_shape(1), rec = ctx.input_shape(2);
  if (x.size() != 3) ctx.fail("input X " + shape_text(x) + " must be 3-d");
  r.seq_length = r.batch_major ? x[1] : x[0];
  r.batch = r.batch_major ? x[0] : x[1];
  r.input_size = x[2];
  if (rec.size() != 3) ctx.fail("input R " + shape_text(rec) + " must be 3-d");
  r.hidden = ctx.has_attr("hidden_size") ? ctx.attr_int("hidden_size") : rec[2];
  if (r.hidden <= 0)
    ctx.fail("attribute 'hidden_size' is " + std::to_string(r.hidden) + ", expected > 0");
  int64_t rows = r.gates * r.hidden;
  if (w != std::vector<int64_t>{r.directions, rows, r.input_size})
    ctx.fail("input W " + shape_text(w) + " must have shape " +
             shape_text({r.directions, rows, r.input_size}) + " ([directions, " +
             std::to_string(r.gates) + " * hidden_size, input_size])");
  check_shape(ctx, 2, "R", {r.directions, rows, r.hidden});
  check_shape(ctx, 3, "B", {r.directions, 2 * rows});
  if (ctx.has_input(4)) {
    check_shape(ctx, 4, "sequence_lens", {r.batch});
    if (ctx.input_type(4).dtype != ir::DataType::Int(32))
      ctx.fail("input sequence_lens is " + ctx.input_type(4).dtype.to_string() +
               ", expected int32");
  }
  std::vector<int64_t> state = r.batch_major
                                   ? std::vector<int64_t>{r.batch, r.directions, r.hidden}
                                   : std::vector<int64_t>{r.directions, r.batch, r.hidden};
  check_shape(ctx, 5, "initial_h", state);
  if (r.cell == Cell::Lstm) {
    check_shape(ctx, 6, "initial_c", state);
    check_shape(ctx, 7, "P", {r.directions, 3 * r.hidden});
  } else if (ctx.num_inputs() > 6) {
    ctx.fail("takes at most 6 inputs, got " + std::to_string(ctx.num_inputs()));
  }
  if (ctx.has_attr("clip")) {
    r.clip = ctx.attr_float("clip");
    if (!(*r.clip > 0)) ctx.fail("attribute 'clip' must be positive");
  }
  if (r.cell == Cell::Lstm) r.input_forget = ctx.attr_int("input_forget") != 0;
  if (r.cell == Cell::Gru) r.linear_before_reset = ctx.attr_int("linear_before_reset") != 0;
  r.activations = activations_of(ctx, r);
  return r;
}

void register_recurrent_ops(OpRegistry& registry) {
  for (const char* name : {"RNN", "GRU", "LSTM"}) registry.add(recurrent_def(name));
}

}  // namespace tessel::ops::nn
