// MaxPool, AveragePool, LpPool and GlobalMaxPool, GlobalAveragePool, GlobalLpPool: one table
// and one registration function over the pooling mechanism of pool.h.
#include "ops/nn/nn_ops.h"
#include "ops/nn/nn_util.h"
#include "ops/nn/pool.h"
#include "ops/op_util.h"
#include "schedules/cpu/contraction.h"
#include "schedules/cpu/generic.h"
#include "schedules/knobs.h"

namespace tessel::ops::nn {
namespace {

using graph::Attribute;
using graph::AttrKind;

struct PoolOp {
  const char* name;
  PoolKind kind;
  bool global;
  /// Oldest opset supported: LpPool-1 took a float p.
  int since_version;
};

constexpr PoolOp kPoolOps[] = {
    {"MaxPool", PoolKind::Max, false, 1},
    {"AveragePool", PoolKind::Average, false, 1},
    {"LpPool", PoolKind::Lp, false, 2},
    {"GlobalMaxPool", PoolKind::Max, true, 1},
    {"GlobalAveragePool", PoolKind::Average, true, 1},
    {"GlobalLpPool", PoolKind::Lp, true, 2},
};

std::vector<AttrSpec> pool_attributes(const PoolOp& op) {
  std::vector<AttrSpec> attrs;
  if (op.kind == PoolKind::Lp) attrs.push_back({"p", AttrKind::Int, Attribute::of_int(2)});
  if (op.global) return attrs;
  attrs.push_back({"auto_pad", AttrKind::String, Attribute::of_string("NOTSET")});
  attrs.push_back({"kernel_shape", AttrKind::Ints, std::nullopt, true});
  attrs.push_back({"pads", AttrKind::Ints, std::nullopt});
  attrs.push_back({"strides", AttrKind::Ints, std::nullopt});
  if (op.kind == PoolKind::Lp) return attrs;
  attrs.push_back({"ceil_mode", AttrKind::Int, Attribute::of_int(0)});
  if (op.kind == PoolKind::Average) {
    attrs.push_back({"count_include_pad", AttrKind::Int, Attribute::of_int(0)});
  } else {
    attrs.push_back({"dilations", AttrKind::Ints, std::nullopt});
    attrs.push_back({"storage_order", AttrKind::Int, Attribute::of_int(0)});
  }
  return attrs;
}

Window pool_window(const OpContext& ctx, const PoolOp& op) {
  std::vector<ir::DataType> types = float_types();
  if (op.kind == PoolKind::Max) {
    types.push_back(ir::DataType::Int(8));
    types.push_back(ir::DataType::UInt(8));
  }
  check_dtype(ctx, 0, types);
  std::vector<int64_t> x = ctx.input_shape(0);
  if (x.size() < 3) ctx.fail("input X " + shape_text(x) + " must have rank >= 3: [N, C, ...]");
  std::vector<int64_t> spatial(x.begin() + 2, x.end());
  if (op.global) return global_window(spatial);
  bool ceil_mode = op.kind != PoolKind::Lp && ctx.attr_int("ceil_mode") != 0;
  return forward_window(ctx, spatial, kernel_extents(ctx, {}), ceil_mode);
}

PoolSpec pool_spec(const OpContext& ctx, const PoolOp& op) {
  PoolSpec spec;
  spec.kind = op.kind;
  if (op.kind == PoolKind::Average && !op.global)
    spec.count_include_pad = ctx.attr_int("count_include_pad") != 0;
  if (op.kind == PoolKind::Lp) {
    spec.p = static_cast<double>(ctx.attr_int("p"));
    if (spec.p <= 0)
      ctx.fail("attribute 'p' is " + std::to_string(ctx.attr_int("p")) + "; must be positive");
  }
  return spec;
}

bool wants_indices(const OpContext& ctx, const PoolOp& op) {
  const auto& outputs = ctx.node().outputs;
  return op.kind == PoolKind::Max && !op.global && outputs.size() > 1 && outputs[1] != nullptr;
}

OpDef pool_def(const PoolOp& op) {
  OpDef def;
  def.name = op.name;
  def.since_version = op.since_version;
  def.attributes = pool_attributes(op);
  def.pattern = op.global ? PatternKind::Reduction : PatternKind::Opaque;
  def.infer = [op](const OpContext& ctx) {
    Window w = pool_window(ctx, op);
    std::vector<int64_t> shape = ctx.input_shape(0);
    shape.resize(2);
    shape.insert(shape.end(), w.output.begin(), w.output.end());
    std::vector types{graph::TensorType::of(ctx.input_type(0).dtype, shape)};
    if (wants_indices(ctx, op))
      types.push_back(graph::TensorType::of(ir::DataType::Int(64), shape));
    return types;
  };
  def.compute = [op](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    Window w = pool_window(ctx, op);
    te::Tensor y = pool_nd(in[0], w, pool_spec(ctx, op), "pool");
    if (!wants_indices(ctx, op)) return std::vector{y};
    bool column_major = ctx.attr_int("storage_order") != 0;
    return std::vector{y, max_pool_indices(in[0], y, w, column_major, "pool.indices")};
  };
  def.schedule = [](const OpContext& ctx, schedule::Schedule& s,
                    const std::vector<te::Tensor>& outputs) {
    for (const char* name : {"pool.sum", "pool", "pool.indices"})
      if (has_stage(s, name) && s.stage(name).op->has_reduction())
        schedules::schedule_contraction(s, s.tensor(name), ctx.target(),
                                        schedules::contraction_config(ctx.knobs()));
    schedules::schedule_generic(s, outputs, ctx.target());
  };
  def.tuning_space = [](const OpContext& ctx) {
    if (ctx.input_type(0).dtype != ir::DataType::Float(32)) return schedules::TuningSpace{};
    return schedules::contraction_tuning_space("pool", ctx.def().infer(ctx).at(0).shape(),
                                               ctx.target());
  };
  return def;
}

}  // namespace

void register_pool_ops(OpRegistry& registry) {
  for (const PoolOp& op : kPoolOps) registry.add(pool_def(op));
}

}  // namespace tessel::ops::nn
