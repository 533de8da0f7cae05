// The random operators: RandomUniform, RandomNormal (and their Like forms), Bernoulli and
// Multinomial; the mask of Dropout in training mode is drawn by the same generator
// (passes/rules/random_rules.cpp).
//
// Every draw comes from NumPy's RandomState seeded by the node (random_state.h), on the host
// at compile time. RandomUniform and RandomNormal depend on nothing but their attributes and
// their input's type: they fold to constants. Bernoulli and Multinomial read their inputs'
// values, so the compiler's graph rewrites (random_rules.cpp) hand them their uniform draws
// as a constant: Bernoulli becomes element-wise comparisons, Multinomial
// tessel.MultinomialOfDraws, defined here.
#include "graph/onnx_dtype.h"
#include "ops/elementwise/elementwise.h"
#include "ops/elementwise/random_state.h"
#include "runtime/ndarray_element.h"

namespace tessel::ops::elementwise {

using ir::DataType;
using ir::Expr;

namespace {

/// The output element type: attribute `dtype` when set, else `fallback`.
DataType output_dtype(const OpContext& ctx, DataType fallback) {
  if (!ctx.has_attr("dtype")) return fallback;
  std::optional<DataType> dtype = graph::data_type_from_onnx_code(ctx.attr_int("dtype"));
  if (!dtype || !dtype->is_float())
    ctx.fail("attribute 'dtype' is " + std::to_string(ctx.attr_int("dtype")) +
             ", expected a floating-point element type");
  return *dtype;
}

/// The output shape: the attribute `shape`, or the input's (the Like forms).
std::vector<int64_t> random_shape(const OpContext& ctx, bool like) {
  if (like) return ctx.input_shape(0);
  std::vector<int64_t> shape = ctx.attr_ints("shape");
  for (int64_t d : shape)
    if (d < 0) ctx.fail("attribute 'shape' has the negative extent " + std::to_string(d));
  return shape;
}

OpDef random_op(const std::string& name, bool like, bool normal) {
  OpDef def;
  def.name = name;
  def.since_version = 1;
  def.attributes = {float_attr(normal ? "mean" : "high", normal ? 0.0 : 1.0),
                    float_attr(normal ? "scale" : "low", normal ? 1.0 : 0.0),
                    {"seed", graph::AttrKind::Float, std::nullopt},
                    {"dtype", graph::AttrKind::Int, std::nullopt}};
  if (!like) def.attributes.push_back({"shape", graph::AttrKind::Ints, std::nullopt, true});
  def.pattern = PatternKind::Opaque;
  def.infer = [like](const OpContext& ctx) {
    check_input_count(ctx, like ? 1 : 0, like ? 1 : 0);
    DataType fallback = like ? ctx.input_type(0).dtype : DataType::Float(32);
    if (like && !ctx.has_attr("dtype") && !fallback.is_float())
      ctx.fail("the input is " + fallback.to_string() + ": give 'dtype' for the output");
    return std::vector{graph::TensorType::of(output_dtype(ctx, fallback), random_shape(ctx, like))};
  };
  // NumPy's uniform(low, high) and normal(mean, scale): low + (high - low) * random_sample()
  // and mean + scale * standard_normal(), in double, then stored in the output's type.
  def.fold = [normal](const OpContext& ctx) {
    graph::TensorType type = ctx.def().infer(ctx)[0];
    runtime::NDArray values(type.shape(), graph::to_runtime_dtype(type.dtype));
    RandomState state(random_seed(ctx.node()));
    double a = ctx.attr_float(normal ? "mean" : "low");
    double b = ctx.attr_float(normal ? "scale" : "high");
    for (int64_t k = 0; k < values.size(); ++k)
      runtime::set_element_from_double(
          values, k, normal ? a + b * state.standard_normal() : a + (b - a) * state.uniform());
    std::vector<runtime::NDArray> outputs;
    outputs.push_back(std::move(values));
    return outputs;
  };
  return def;
}

/// Multinomial's output type: [batch, sample_size] of int32 or int64 (attribute 'dtype').
std::vector<graph::TensorType> infer_multinomial(const OpContext& ctx, size_t inputs) {
  check_input_count(ctx, inputs, inputs);
  check_input_type(ctx, 0, kFloat);
  std::vector<int64_t> x = ctx.input_shape(0);
  if (x.size() != 2 || x[1] < 1)
    ctx.fail("input must be [batch_size, class_size] with a class, found rank " +
             std::to_string(x.size()));
  int64_t dtype = ctx.attr_int("dtype"), samples = ctx.attr_int("sample_size");
  if (dtype != 6 && dtype != 7)
    ctx.fail("attribute 'dtype' is " + std::to_string(dtype) + ", expected 6 (int32) or 7 (int64)");
  if (samples < 1)
    ctx.fail("attribute 'sample_size' is " + std::to_string(samples) + ", expected >= 1");
  return std::vector{
      graph::TensorType::of(dtype == 6 ? DataType::Int(32) : DataType::Int(64), {x[0], samples})};
}

const std::vector<AttrSpec> kMultinomialAttributes = {
    {"dtype", graph::AttrKind::Int, graph::Attribute::of_int(6)},
    {"sample_size", graph::AttrKind::Int, graph::Attribute::of_int(1)}};

}  // namespace

void register_random_ops(OpRegistry& registry) {
  registry.add(random_op("RandomUniform", false, false));
  registry.add(random_op("RandomUniformLike", true, false));
  registry.add(random_op("RandomNormal", false, true));
  registry.add(random_op("RandomNormalLike", true, true));

  OpDef bernoulli;
  bernoulli.name = "Bernoulli";
  bernoulli.since_version = 15;
  bernoulli.attributes = {{"seed", graph::AttrKind::Float, std::nullopt},
                          {"dtype", graph::AttrKind::Int, std::nullopt}};
  bernoulli.pattern = PatternKind::Elementwise;
  bernoulli.infer = [](const OpContext& ctx) {
    check_input_count(ctx, 1, 1);
    check_input_type(ctx, 0, kFloat);
    DataType dtype = ctx.input_type(0).dtype;
    if (ctx.has_attr("dtype")) {
      std::optional<DataType> given = graph::data_type_from_onnx_code(ctx.attr_int("dtype"));
      if (!given)
        ctx.fail("attribute 'dtype' is " + std::to_string(ctx.attr_int("dtype")) +
                 ": not an element type");
      dtype = *given;
    }
    return std::vector{graph::TensorType::of(dtype, ctx.input_shape(0))};
  };
  registry.add(std::move(bernoulli));

  // Multinomial(x [batch, classes] of log-probabilities): the compiler's rewrites make it
  // tessel.MultinomialOfDraws, with its uniform draws.
  OpDef multinomial;
  multinomial.name = "Multinomial";
  multinomial.since_version = 7;
  multinomial.attributes = kMultinomialAttributes;
  multinomial.attributes.push_back({"seed", graph::AttrKind::Float, std::nullopt});
  multinomial.pattern = PatternKind::Opaque;
  multinomial.infer = [](const OpContext& ctx) { return infer_multinomial(ctx, 1); };
  registry.add(std::move(multinomial));

  // tessel.MultinomialOfDraws(x, draws [batch, samples] in [0, 1)): per sample, the class
  // whose cumulative probability first exceeds its draw.
  OpDef of_draws;
  of_draws.name = "MultinomialOfDraws";
  of_draws.domain = "tessel";
  of_draws.attributes = kMultinomialAttributes;
  of_draws.pattern = PatternKind::Opaque;
  of_draws.infer = [](const OpContext& ctx) {
    std::vector<graph::TensorType> out = infer_multinomial(ctx, 2);
    if (ctx.input_shape(1) != out[0].shape())
      ctx.fail("input 'draws' is " + ctx.input_type(1).to_string() + ", expected the type " +
               out[0].to_string());
    return out;
  };
  of_draws.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& inputs) {
    const DataType f32 = DataType::Float(32);
    std::vector<int64_t> x = ctx.input_shape(0);
    int64_t batch = x[0], classes = x[1], samples = ctx.attr_int("sample_size");
    const te::Tensor& logits = inputs[0];
    const te::Tensor& draws = inputs[1];
    auto load = [&](const Expr& b, const Expr& j) { return ir::cast(f32, logits({b, j})); };
    te::Tensor peak = te::compute_body(
        shape_exprs({batch}),
        [&](const std::vector<te::Var>& i) {
          ir::IterVar j = te::reduce_axis(ir::make_int(classes), "j");
          return te::max_reduce(load(i[0], j.var), {j});
        },
        "multinomial.max");
    auto weight = [&](const Expr& b, const Expr& j) { return ir::exp(load(b, j) - peak({b})); };
    // The unnormalised cumulative weights of the classes up to k, and their total.
    te::Tensor cumulative = te::compute_body(
        shape_exprs({batch, classes}),
        [&](const std::vector<te::Var>& i) {
          ir::IterVar j = te::reduce_axis(ir::make_int(classes), "j");
          return te::sum(weight(i[0], j.var), {j}, j.var <= i[1]);
        },
        "multinomial.cdf");
    DataType out = ctx.def().infer(ctx)[0].dtype;
    std::vector<int64_t> shape{batch, samples};
    // The class drawn: the number of classes before the last whose cumulative weight lies
    // at or below the draw's fraction of the total.
    te::Tensor drawn = te::compute_body(
        shape_exprs(shape),
        [&](const std::vector<te::Var>& i) {
          if (classes == 1) return ir::make_int(0, DataType::Int(64));
          Expr threshold =
              ir::cast(f32, draws({i[0], i[1]})) * cumulative({i[0], ir::make_int(classes - 1)});
          ir::IterVar k = te::reduce_axis(ir::make_int(classes - 1), "k");
          return te::sum(ir::cast(DataType::Int(64), cumulative({i[0], k.var}) <= threshold), {k});
        },
        "multinomial.class");
    auto as_output = [&](const std::vector<te::Var>& i) {
      return ir::cast(out, drawn(std::vector<Expr>(i.begin(), i.end())));
    };
    return std::vector{te::compute_body(shape_exprs(shape), as_output, "multinomial")};
  };
  registry.add(std::move(of_draws));
}

}  // namespace tessel::ops::elementwise
