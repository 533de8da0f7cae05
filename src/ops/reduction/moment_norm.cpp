// Normalisations by mean and variance: BatchNormalization (inference, and the training form
// of opsets 14+), InstanceNormalization, LayerNormalization and MeanVarianceNormalization.
//
// All share one helper that computes a group's mean and (population) variance from keep-dims
// sums; arithmetic runs in float32 for 16-bit inputs.
#include "ops/op_util.h"
#include "ops/reduction/reduction_ops.h"
#include "ops/reduction/reduction_util.h"
#include "schedules/cpu/generic.h"
#include "schedules/cpu/row_schedule.h"
#include "schedules/knobs.h"

namespace tessel::ops::reduction {
namespace {

using graph::Attribute;
using graph::AttrKind;
using ir::Expr;

/// Mean and population variance over a set of axes. The mean is the group's first element
/// plus the mean of the differences from it: a group of equal values then gets exactly their
/// value as its mean whatever the order of the sum (any rounding of x - mean is amplified by
/// 1/sqrt(epsilon) in the normalisation), and the sum of small differences rounds less than
/// the sum of the values. The sums are scaled by 1/count once, where they are read: scaling
/// each term would round each.
struct Moments {
  std::vector<int64_t> axes;
  Expr inv_count;
  IndexFn first;                  ///< the first element of the group of a position
  te::Tensor shifted_sum;         ///< keep-dims sums of x - first
  te::Tensor squared_deviations;  ///< keep-dims sums of (x - mean)^2

  /// The mean and variance of the group of input position `p`.
  Expr mean(const std::vector<Expr>& p) const {
    return first(p) + load_reduced(shifted_sum, p, axes) * inv_count;
  }
  Expr var(const std::vector<Expr>& p) const {
    return load_reduced(squared_deviations, p, axes) * inv_count;
  }
};

Moments moments_over(const std::vector<int64_t>& shape, const std::vector<int64_t>& axes,
                     ir::DataType acc, const IndexFn& load, const std::string& name) {
  Moments m;
  m.axes = axes;
  m.inv_count = ir::make_const(acc, 1.0 / static_cast<double>(reduced_count(shape, axes)));
  m.first = [load, axes](const std::vector<Expr>& p) {
    std::vector<Expr> at = p;
    for (int64_t a : axes) at[static_cast<size_t>(a)] = ir::make_int(0);
    return load(at);
  };
  auto shifted = [&](const std::vector<Expr>& p) { return load(p) - m.first(p); };
  m.shifted_sum = reduce_over(shape, axes, true, ir::ReduceOp::Sum, shifted, name + ".mean");
  auto deviation2 = [&](const std::vector<Expr>& p) {
    Expr d = load(p) - m.mean(p);
    return d * d;
  };
  m.squared_deviations =
      reduce_over(shape, axes, true, ir::ReduceOp::Sum, deviation2, name + ".var");
  return m;
}

/// Loads of input `x` converted to its arithmetic type.
IndexFn widened(const te::Tensor& x) {
  ir::DataType acc = float_compute_type(x.dtype());
  return [x, acc](const std::vector<Expr>& p) { return ir::cast(acc, x(p)); };
}

Expr epsilon(const OpContext& ctx, ir::DataType acc) {
  return ir::make_const(acc, ctx.attr_float("epsilon"));
}

std::vector<int64_t> all_but_channel(int64_t rank) {
  std::vector<int64_t> axes{0};
  for (int64_t a = 2; a < rank; ++a) axes.push_back(a);
  return axes;
}

// ---- BatchNormalization ------------------------------------------------------------------

bool batch_norm_training(const OpContext& ctx) {
  check_float_input(ctx, 0, "input X");
  std::vector<int64_t> x = ctx.input_shape(0);
  if (x.size() < 2) ctx.fail("input X " + shape_text(x) + " must have rank >= 2: [N, C, ...]");
  for (size_t i = 1; i < 5; ++i)
    if (ctx.input_shape(i) != std::vector<int64_t>{x[1]})
      ctx.fail("input " + std::to_string(i) + " has shape " + shape_text(ctx.input_shape(i)) +
               ", expected [" + std::to_string(x[1]) + "] (the channels of X)");
  if (ctx.opset() < 9 && ctx.attr_int("spatial") == 0)
    ctx.fail("attribute 'spatial' = 0 is not supported");
  if (ctx.opset() < 7 && ctx.attr_int("is_test") == 0)
    ctx.fail(
        "is_test = 0 (training with the batch's statistics) is not supported; only "
        "inference (is_test = 1) is compiled");
  bool training = ctx.opset() >= 14 && ctx.attr_int("training_mode") != 0;
  size_t outputs = 0;
  for (const graph::Value* v : ctx.node().outputs) outputs += v != nullptr;
  if (!training && outputs > 1)
    ctx.fail("the training outputs (mean, var, ...) are not supported" +
             std::string(ctx.opset() >= 14 ? " without training_mode" : " before opset 14"));
  return training;
}

std::vector<te::Tensor> batch_norm_compute(const OpContext& ctx,
                                           const std::vector<te::Tensor>& in) {
  bool training = batch_norm_training(ctx);
  const te::Tensor &x = in[0], &scale = in[1], &bias = in[2], &mean_in = in[3], &var_in = in[4];
  std::vector<int64_t> shape = ctx.input_shape(0);
  ir::DataType acc = float_compute_type(x.dtype());
  IndexFn load = widened(x);
  std::vector<int64_t> axes = all_but_channel(static_cast<int64_t>(shape.size()));
  Moments batch;
  if (training) batch = moments_over(shape, axes, acc, load, "batchnorm");
  auto param = [&](const te::Tensor& t, const Expr& c) { return ir::cast(acc, t(c)); };
  auto mean = [&](const std::vector<Expr>& p) {
    return training ? batch.mean(p) : param(mean_in, p[1]);
  };
  auto var = [&](const std::vector<Expr>& p) {
    return training ? batch.var(p) : param(var_in, p[1]);
  };
  Expr eps = epsilon(ctx, acc);
  auto normalize = [&](const std::vector<Expr>& p) {
    Expr y = (load(p) - mean(p)) / ir::sqrt(var(p) + eps) * param(scale, p[1]) + param(bias, p[1]);
    return ir::cast(x.dtype(), y);
  };
  std::vector<te::Tensor> outputs{map_over(shape, normalize, "batchnorm")};
  if (!training) return outputs;
  Expr momentum = ir::make_const(acc, ctx.attr_float("momentum"));
  std::vector<int64_t> channels{shape[1]};
  auto running = [&](const te::Tensor& old, const IndexFn& now, const std::string& name) {
    auto update = [&](const std::vector<Expr>& c) {
      std::vector<Expr> at(shape.size(), ir::make_int(0));
      at[1] = c[0];
      Expr blend = param(old, c[0]) * momentum + now(at) * (ir::make_const(acc, 1) - momentum);
      return ir::cast(old.dtype(), blend);
    };
    return map_over(channels, update, name);
  };
  outputs.push_back(running(
      mean_in, [&](const std::vector<Expr>& p) { return batch.mean(p); },
      "batchnorm.running_mean"));
  outputs.push_back(running(
      var_in, [&](const std::vector<Expr>& p) { return batch.var(p); }, "batchnorm.running_var"));
  return outputs;
}

OpDef batch_norm_def() {
  OpDef def;
  def.name = "BatchNormalization";
  def.since_version = 1;
  // Opsets 1-6: is_test (only inference, is_test = 1, is compiled) and 1-5's in-place hint.
  def.attributes = {{"consumed_inputs", AttrKind::Ints, std::nullopt},
                    {"epsilon", AttrKind::Float, Attribute::of_float(1e-5)},
                    {"is_test", AttrKind::Int, Attribute::of_int(0)},
                    {"momentum", AttrKind::Float, Attribute::of_float(0.9)},
                    {"spatial", AttrKind::Int, Attribute::of_int(1)},
                    {"training_mode", AttrKind::Int, Attribute::of_int(0)}};
  def.pattern = PatternKind::Reduction;
  def.infer = [](const OpContext& ctx) {
    std::vector types{ctx.input_type(0)};
    if (batch_norm_training(ctx)) {
      types.push_back(ctx.input_type(3));
      types.push_back(ctx.input_type(4));
    }
    return types;
  };
  def.compute = batch_norm_compute;
  return def;
}

// ---- InstanceNormalization -------------------------------------------------------------

void check_instance_norm(const OpContext& ctx) {
  check_float_input(ctx, 0, "input");
  std::vector<int64_t> x = ctx.input_shape(0);
  if (x.size() < 3) ctx.fail("input " + shape_text(x) + " must have rank >= 3: [N, C, D1, ...]");
  for (size_t i = 1; i < 3; ++i)
    if (ctx.input_shape(i) != std::vector<int64_t>{x[1]})
      ctx.fail("input " + std::to_string(i) + " has shape " + shape_text(ctx.input_shape(i)) +
               ", expected [" + std::to_string(x[1]) + "] (the channels of the input)");
}

std::vector<te::Tensor> instance_norm_compute(const OpContext& ctx,
                                              const std::vector<te::Tensor>& in) {
  check_instance_norm(ctx);
  const te::Tensor &x = in[0], &scale = in[1], &bias = in[2];
  std::vector<int64_t> shape = ctx.input_shape(0);
  ir::DataType acc = float_compute_type(x.dtype());
  IndexFn load = widened(x);
  std::vector<int64_t> axes = trailing_axes(2, static_cast<int64_t>(shape.size()));
  Moments m = moments_over(shape, axes, acc, load, "instancenorm");
  Expr eps = epsilon(ctx, acc);
  auto normalize = [&](const std::vector<Expr>& p) {
    Expr centred = load(p) - m.mean(p);
    Expr y =
        centred / ir::sqrt(m.var(p) + eps) * ir::cast(acc, scale(p[1])) + ir::cast(acc, bias(p[1]));
    return ir::cast(x.dtype(), y);
  };
  return {map_over(shape, normalize, "instancenorm")};
}

OpDef instance_norm_def() {
  OpDef def;
  def.name = "InstanceNormalization";
  def.since_version = 1;  // opsets 1-5 as 6, with the in-place hint consumed_inputs
  def.attributes = {{"consumed_inputs", AttrKind::Ints, std::nullopt},
                    {"epsilon", AttrKind::Float, Attribute::of_float(1e-5)}};
  def.pattern = PatternKind::Reduction;
  def.infer = [](const OpContext& ctx) {
    check_instance_norm(ctx);
    return std::vector{ctx.input_type(0)};
  };
  def.compute = instance_norm_compute;
  def.schedule = [](const OpContext& ctx, schedule::Schedule& s,
                    const std::vector<te::Tensor>& outputs) {
    schedules::schedule_rows(s, outputs[0], 2, ctx.input_type(0).num_elements(), ctx.target());
  };
  return def;
}

// ---- LayerNormalization ----------------------------------------------------------------

/// The ONNX element type codes LayerNormalization's stash_type may take.
ir::DataType stash_dtype(const OpContext& ctx) {
  switch (ctx.attr_int("stash_type")) {
    case 1:
      return ir::DataType::Float(32);
    case 10:
      return ir::DataType::Float(16);
    case 11:
      return ir::DataType::Float(64);
    case 16:
      return ir::DataType::BFloat(16);
    default:
      ctx.fail("attribute 'stash_type' is " + std::to_string(ctx.attr_int("stash_type")) +
               ", expected a float type (1, 10, 11 or 16)");
  }
}

/// The axes normalised (axis..rank-1), after checking the inputs.
std::vector<int64_t> layer_norm_axes(const OpContext& ctx) {
  check_float_input(ctx, 0, "input X");
  std::vector<int64_t> x = ctx.input_shape(0);
  auto rank = static_cast<int64_t>(x.size());
  int64_t axis = normalize_axis(ctx, ctx.attr_int("axis"), rank);
  for (size_t i = 1; i < 3; ++i) {
    if (!ctx.has_input(i)) continue;
    std::vector<int64_t> p = ctx.input_shape(i);
    bool ok = p.size() <= x.size();
    for (size_t d = 0; ok && d < p.size(); ++d) {
      int64_t target = x[x.size() - p.size() + d];
      ok = p[d] == target || p[d] == 1;
    }
    if (!ok)
      ctx.fail("input " + std::to_string(i) + " of shape " + shape_text(p) +
               " does not broadcast to X " + shape_text(x));
  }
  return trailing_axes(axis, rank);
}

std::vector<te::Tensor> layer_norm_compute(const OpContext& ctx,
                                           const std::vector<te::Tensor>& in) {
  std::vector<int64_t> axes = layer_norm_axes(ctx);
  const te::Tensor& x = in[0];
  std::vector<int64_t> shape = ctx.input_shape(0);
  ir::DataType stash = stash_dtype(ctx);
  ir::DataType acc = float_compute_type(stash);
  auto load = [&](const std::vector<Expr>& p) { return ir::cast(acc, x(p)); };
  Moments m = moments_over(shape, axes, acc, load, "layernorm");
  Expr eps = epsilon(ctx, acc);
  auto inv_std = [&](const std::vector<Expr>& p) {
    return ir::make_const(acc, 1) / ir::sqrt(m.var(p) + eps);
  };
  auto normalize = [&](const std::vector<Expr>& p) {
    Expr y = (load(p) - m.mean(p)) * inv_std(p) * ir::cast(acc, broadcast_at(in[1], p));
    if (ctx.has_input(2)) y = y + ir::cast(acc, broadcast_at(in[2], p));
    return ir::cast(x.dtype(), y);
  };
  std::vector<te::Tensor> outputs{map_over(shape, normalize, "layernorm")};
  const auto& node_outputs = ctx.node().outputs;
  if (node_outputs.size() < 2) return outputs;
  std::vector<int64_t> stat_shape = reduced_shape(shape, axes, true);
  auto mean = [&](const std::vector<Expr>& p) { return ir::cast(stash, m.mean(p)); };
  outputs.push_back(map_over(stat_shape, mean, "layernorm.mean_out"));
  if (node_outputs.size() < 3) return outputs;
  auto inv = [&](const std::vector<Expr>& p) { return ir::cast(stash, inv_std(p)); };
  outputs.push_back(map_over(stat_shape, inv, "layernorm.inv_std_dev"));
  return outputs;
}

OpDef layer_norm_def() {
  OpDef def;
  def.name = "LayerNormalization";
  def.since_version = 17;
  def.attributes = {{"axis", AttrKind::Int, Attribute::of_int(-1)},
                    {"epsilon", AttrKind::Float, Attribute::of_float(1e-5)},
                    {"stash_type", AttrKind::Int, Attribute::of_int(1)}};
  def.pattern = PatternKind::Reduction;
  def.infer = [](const OpContext& ctx) {
    std::vector<int64_t> axes = layer_norm_axes(ctx);
    std::vector types{ctx.input_type(0)};
    auto stat =
        graph::TensorType::of(stash_dtype(ctx), reduced_shape(ctx.input_shape(0), axes, true));
    for (size_t k = 1; k < 3 && k < ctx.node().outputs.size(); ++k) types.push_back(stat);
    return types;
  };
  def.compute = layer_norm_compute;
  def.schedule = [](const OpContext& ctx, schedule::Schedule& s,
                    const std::vector<te::Tensor>& outputs) {
    // The statistics outputs read the moments too: per-row computation needs one output.
    if (outputs.size() > 1)
      schedules::schedule_generic(s, outputs, ctx.target());
    else
      schedules::schedule_rows(s, outputs[0], layer_norm_axes(ctx).front(),
                               ctx.input_type(0).num_elements(), ctx.target(),
                               schedules::row_config(ctx.knobs()));
  };
  def.tuning_space = [](const OpContext& ctx) {
    if (ctx.input_type(0).dtype != ir::DataType::Float(32) || ctx.node().outputs.size() > 1)
      return schedules::TuningSpace{};
    return schedules::rows_tuning_space("layernorm", ctx.input_shape(0),
                                        layer_norm_axes(ctx).front(), ctx.target());
  };
  return def;
}

// ---- MeanVarianceNormalization ---------------------------------------------------------

std::vector<int64_t> mvn_axes(const OpContext& ctx) {
  check_float_input(ctx, 0, "input X");
  return normalize_axes(ctx, ctx.attr_ints("axes"), ctx.input_type(0).rank());
}

std::vector<te::Tensor> mvn_compute(const OpContext& ctx, const std::vector<te::Tensor>& in) {
  std::vector<int64_t> axes = mvn_axes(ctx);
  const te::Tensor& x = in[0];
  std::vector<int64_t> shape = ctx.input_shape(0);
  ir::DataType acc = float_compute_type(x.dtype());
  IndexFn load = widened(x);
  Moments m = moments_over(shape, axes, acc, load, "mvn");
  auto normalize = [&](const std::vector<Expr>& p) {
    Expr std_dev = ir::sqrt(m.var(p));
    Expr y = (load(p) - m.mean(p)) / (std_dev + ir::make_const(acc, 1e-9));
    return ir::cast(x.dtype(), y);
  };
  return {map_over(shape, normalize, "mvn")};
}

OpDef mvn_def() {
  OpDef def;
  def.name = "MeanVarianceNormalization";
  def.since_version = 9;
  def.attributes = {{"axes", AttrKind::Ints, Attribute::of_ints({0, 2, 3})}};
  def.pattern = PatternKind::Reduction;
  def.infer = [](const OpContext& ctx) {
    mvn_axes(ctx);
    return std::vector{ctx.input_type(0)};
  };
  def.compute = mvn_compute;
  def.schedule = [](const OpContext& ctx, schedule::Schedule& s,
                    const std::vector<te::Tensor>& outputs) {
    int64_t rows = schedules::row_axes_before(mvn_axes(ctx), ctx.input_type(0).rank());
    schedules::schedule_rows(s, outputs[0], rows, ctx.input_type(0).num_elements(), ctx.target());
  };
  return def;
}

}  // namespace

void register_moment_norm_ops(OpRegistry& registry) {
  registry.add(batch_norm_def());
  registry.add(instance_norm_def());
  registry.add(layer_norm_def());
  registry.add(mvn_def());
}

}  // namespace tessel::ops::reduction
