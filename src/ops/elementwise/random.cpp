// The random operators: RandomUniform, RandomNormal (and their Like forms), Bernoulli and
// Multinomial, and the mask of Dropout in training mode (passthrough.cpp).
//
// Each element is a function of its position and the node's seed: a 32-bit integer hash
// (two rounds of multiply-xorshift, as in counter-based generators) of the flat index and a
// key drawn from the seed gives 24 random bits, a float in [0, 1). So the values fit the
// gather form of a compute (any schedule, vectorised or parallel, computes the same ones), a
// seed gives the same values on every run, and a node without a seed takes one from its
// output's name (two such nodes draw apart; the same model draws the same numbers every
// time). Normal values come from two uniforms by the Box-Muller transform.
#include "ops/elementwise/elementwise.h"
#include "ops/elementwise/random.h"
#include "graph/onnx_dtype.h"

namespace tessel::ops::elementwise {

namespace {

using ir::DataType;
using ir::Expr;

constexpr uint32_t kGolden = 0x9E3779B1u;

Expr u32(uint32_t value) { return ir::make_const(DataType::UInt(32), static_cast<double>(value)); }

/// One multiply-xorshift round of the hash.
Expr mix(Expr x) {
  x = ir::bitwise_xor(x, ir::shift_right(x, u32(16)));
  x = x * u32(0x21F0AAADu);
  x = ir::bitwise_xor(x, ir::shift_right(x, u32(15)));
  x = x * u32(0x735A2D97u);
  return ir::bitwise_xor(x, ir::shift_right(x, u32(15)));
}

uint32_t mix_host(uint32_t x) {
  x ^= x >> 16;
  x *= 0x21F0AAADu;
  x ^= x >> 15;
  x *= 0x735A2D97u;
  return x ^ (x >> 15);
}

/// The flat (row-major) index of `index` in `shape`, as uint32 (wrapping past 2^32).
Expr flat_index(const std::vector<te::Var>& index, const std::vector<int64_t>& shape) {
  Expr flat = ir::make_int(0, DataType::Int(64));
  for (size_t d = 0; d < shape.size(); ++d)
    flat = flat * ir::make_int(shape[d], DataType::Int(64)) + ir::cast(DataType::Int(64), index[d]);
  return ir::cast(DataType::UInt(32), flat);
}

}  // namespace

uint32_t random_key(const OpContext& ctx, uint32_t stream) {
  uint32_t seed;
  if (const graph::Attribute* given = ctx.node().attribute("seed")) {  // a float, or Dropout's int
    seed = static_cast<uint32_t>(given->kind == graph::AttrKind::Int ? given->i
                                                                      : static_cast<int64_t>(given->f));
  } else {  // FNV-1a of the first output's name
    seed = 2166136261u;
    const graph::Value* out = ctx.node().outputs.empty() ? nullptr : ctx.node().outputs[0];
    for (char c : out ? out->name : ctx.node().name) seed = (seed ^ static_cast<uint8_t>(c)) * 16777619u;
  }
  return mix_host(mix_host(seed) + stream * kGolden);
}

Expr random_uniform(const std::vector<te::Var>& index, const std::vector<int64_t>& shape,
                    uint32_t key) {
  Expr bits = mix(mix(flat_index(index, shape) * u32(kGolden) + u32(key)) + u32(key));
  Expr top24 = ir::cast(DataType::Float(32), ir::shift_right(bits, u32(8)));
  return top24 * ir::make_const(DataType::Float(32), 1.0 / 16777216.0);
}

Expr random_normal(const std::vector<te::Var>& index, const std::vector<int64_t>& shape,
                   uint32_t key) {
  const DataType f32 = DataType::Float(32);
  // u1 in (0, 1], so that its logarithm is finite.
  Expr u1 = ir::make_const(f32, 1.0) - random_uniform(index, shape, key);
  Expr u2 = random_uniform(index, shape, mix_host(key + 1));
  Expr radius = ir::sqrt(ir::make_const(f32, -2.0) * ir::log(u1));
  return radius * ir::cos(ir::make_const(f32, 6.283185307179586) * u2);
}

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
  def.pattern = like ? PatternKind::Elementwise : PatternKind::Injective;
  def.infer = [like](const OpContext& ctx) {
    check_input_count(ctx, like ? 1 : 0, like ? 1 : 0);
    DataType fallback = like ? ctx.input_type(0).dtype : DataType::Float(32);
    if (like && !ctx.has_attr("dtype") && !fallback.is_float())
      ctx.fail("the input is " + fallback.to_string() + ": give 'dtype' for the output");
    return std::vector{graph::TensorType::of(output_dtype(ctx, fallback), random_shape(ctx, like))};
  };
  def.compute = [like, normal](const OpContext& ctx, const std::vector<te::Tensor>& inputs) {
    std::vector<int64_t> shape = random_shape(ctx, like);
    DataType dtype = output_dtype(ctx, like ? inputs[0].dtype() : DataType::Float(32));
    uint32_t key = random_key(ctx, 0);
    double a = ctx.attr_float(normal ? "mean" : "low");
    double b = ctx.attr_float(normal ? "scale" : "high");
    auto body = [&](const std::vector<te::Var>& index) {
      const DataType f32 = DataType::Float(32);
      Expr r = normal ? ir::make_const(f32, a) + ir::make_const(f32, b) * random_normal(index, shape, key)
                      : ir::make_const(f32, a) + ir::make_const(f32, b - a) * random_uniform(index, shape, key);
      return ir::cast(dtype, r);
    };
    return std::vector{te::compute(shape_exprs(shape), body, stage_name(ctx.def().name))};
  };
  return def;
}

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
      if (!given) ctx.fail("attribute 'dtype' is " + std::to_string(ctx.attr_int("dtype")) + ": not an element type");
      dtype = *given;
    }
    return std::vector{graph::TensorType::of(dtype, ctx.input_shape(0))};
  };
  bernoulli.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& inputs) {
    std::vector<int64_t> shape = ctx.input_shape(0);
    graph::TensorType out = ctx.def().infer(ctx)[0];
    uint32_t key = random_key(ctx, 0);
    auto body = [&](const std::vector<te::Var>& index) {
      Expr p = ir::cast(DataType::Float(32), inputs[0](std::vector<Expr>(index.begin(), index.end())));
      return ir::cast(out.dtype, ir::cast(DataType::Bool(), random_uniform(index, shape, key) < p));
    };
    return std::vector{te::compute(shape_exprs(shape), body, "bernoulli")};
  };
  registry.add(std::move(bernoulli));

  // Multinomial(x [batch, classes] of log-probabilities): per sample, the class whose
  // cumulative probability first exceeds a uniform draw.
  OpDef multinomial;
  multinomial.name = "Multinomial";
  multinomial.since_version = 7;
  multinomial.attributes = {{"seed", graph::AttrKind::Float, std::nullopt},
                            {"dtype", graph::AttrKind::Int, graph::Attribute::of_int(6)},
                            {"sample_size", graph::AttrKind::Int, graph::Attribute::of_int(1)}};
  multinomial.pattern = PatternKind::Opaque;
  multinomial.infer = [](const OpContext& ctx) {
    check_input_count(ctx, 1, 1);
    check_input_type(ctx, 0, kFloat);
    std::vector<int64_t> x = ctx.input_shape(0);
    if (x.size() != 2 || x[1] < 1)
      ctx.fail("input must be [batch_size, class_size] with a class, found rank " + std::to_string(x.size()));
    int64_t dtype = ctx.attr_int("dtype"), samples = ctx.attr_int("sample_size");
    if (dtype != 6 && dtype != 7) ctx.fail("attribute 'dtype' is " + std::to_string(dtype) + ", expected 6 (int32) or 7 (int64)");
    if (samples < 1) ctx.fail("attribute 'sample_size' is " + std::to_string(samples) + ", expected >= 1");
    return std::vector{graph::TensorType::of(dtype == 6 ? DataType::Int(32) : DataType::Int(64), {x[0], samples})};
  };
  multinomial.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& inputs) {
    const DataType f32 = DataType::Float(32);
    std::vector<int64_t> x = ctx.input_shape(0);
    int64_t batch = x[0], classes = x[1], samples = ctx.attr_int("sample_size");
    const te::Tensor& logits = inputs[0];
    auto load = [&](const Expr& b, const Expr& j) { return ir::cast(f32, logits({b, j})); };
    te::Tensor peak = te::compute_body(shape_exprs({batch}), [&](const std::vector<te::Var>& i) {
      ir::IterVar j = te::reduce_axis(ir::make_int(classes), "j");
      return te::max_reduce(load(i[0], j.var), {j});
    }, "multinomial.max");
    auto weight = [&](const Expr& b, const Expr& j) { return ir::exp(load(b, j) - peak({b})); };
    // The unnormalised cumulative weights of the classes up to k, and their total.
    te::Tensor cumulative = te::compute_body(shape_exprs({batch, classes}), [&](const std::vector<te::Var>& i) {
      ir::IterVar j = te::reduce_axis(ir::make_int(classes), "j");
      return te::sum(weight(i[0], j.var), {j}, j.var <= i[1]);
    }, "multinomial.cdf");
    uint32_t key = random_key(ctx, 0);
    DataType out = ctx.def().infer(ctx)[0].dtype;
    std::vector<int64_t> shape{batch, samples};
    // The class drawn: the number of classes before the last whose cumulative weight lies
    // at or below a uniform fraction of the total.
    te::Tensor drawn = te::compute_body(shape_exprs(shape), [&](const std::vector<te::Var>& i) {
      if (classes == 1) return ir::make_int(0, DataType::Int(64));
      Expr threshold = random_uniform(i, shape, key) * cumulative({i[0], ir::make_int(classes - 1)});
      ir::IterVar k = te::reduce_axis(ir::make_int(classes - 1), "k");
      return te::sum(ir::cast(DataType::Int(64), cumulative({i[0], k.var}) <= threshold), {k});
    }, "multinomial.class");
    auto as_output = [&](const std::vector<te::Var>& i) {
      return ir::cast(out, drawn(std::vector<Expr>(i.begin(), i.end())));
    };
    return std::vector{te::compute_body(shape_exprs(shape), as_output, "multinomial")};
  };
  registry.add(std::move(multinomial));
}

}  // namespace tessel::ops::elementwise
