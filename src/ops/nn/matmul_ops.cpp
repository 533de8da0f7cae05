// MatMul, Gemm and tessel's MatMulAdd (MatMul plus a bias): float and integer matrix
// products; 2-d float32 products take the tuned matmul compute and schedule (ops/matmul.h,
// schedules/cpu/matmul.h), the rest the generic matmul_nd.
#include "ops/matmul.h"
#include "ops/nn/contraction.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_util.h"
#include "schedules/cpu/contraction.h"
#include "schedules/cpu/generic.h"
#include "schedules/cpu/matmul.h"
#include "schedules/cpu/target_budget.h"
#include "schedules/knobs.h"

namespace tessel::ops::nn {
namespace {

using graph::Attribute;
using graph::AttrKind;

/// Names of the stages a product may create, found again by the schedule.
constexpr const char* kProduct = "matmul";
constexpr const char* kTransposedA = "gemm.a_t";
constexpr const char* kTransposedB = "gemm.b_t";

std::vector<ir::DataType> product_types() {
  std::vector<ir::DataType> types = float_types();
  for (ir::DataType t : {ir::DataType::Int(32), ir::DataType::Int(64), ir::DataType::UInt(32),
                         ir::DataType::UInt(64)})
    types.push_back(t);
  return types;
}

void check_operands(const OpContext& ctx) {
  check_dtype(ctx, 0, product_types());
  if (ctx.input_type(1).dtype != ctx.input_type(0).dtype)
    ctx.fail("operands have element types " + ctx.input_type(0).dtype.to_string() + " and " +
             ctx.input_type(1).dtype.to_string());
}

/// The product `a` x `b` of `shape` as a stage named kProduct (the tuned compute for 2-d
/// float32), converted back to the operands' type when it accumulates in another.
te::Tensor product(const OpContext& ctx, const MatmulShape& shape, const te::Tensor& a,
                   const te::Tensor& b) {
  ir::DataType dtype = a.dtype();
  if (use_tuned_matmul(shape, dtype))
    return ops::matmul(a, b, schedules::matmul_panel(ctx.target()), kProduct);
  ir::DataType acc = accumulation_type(dtype);
  te::Tensor y = matmul_nd(shape, Operand::of(a, acc), Operand::of(b, acc), kProduct);
  return cast_to(y, dtype, std::string(kProduct) + ".cast");
}

/// The schedule of a product: the tuned matmul schedule or the generic contraction one for
/// the kProduct stage, transposed operands read in place, generic epilogues.
void schedule_product(schedule::Schedule& s, const std::vector<te::Tensor>& outputs, bool tuned,
                      const schedules::KnobValues& knobs, const target::Target& target) {
  std::vector<std::string> transposes;
  for (const char* name : {kTransposedA, kTransposedB})
    if (has_stage(s, name)) transposes.push_back(name);
  if (tuned) {
    // The tuned schedule packs its right operand: the transposition is read in the packing.
    schedules::schedule_matmul_cpu(s, s.tensor(kProduct), schedules::matmul_config(knobs, target));
    for (const std::string& name : transposes) s.compute_inline(name);
    // A batched left operand is read in place; the reshape back is computed by its reader.
    std::string rows = std::string(kProduct) + ".rows", nd = std::string(kProduct) + ".nd";
    if (has_stage(s, rows)) s.compute_inline(rows);
    if (has_stage(s, nd) && !s.stage(nd).is_output &&
        s.stage(nd).attach == schedule::AttachKind::Root)
      s.compute_inline(nd);
  } else {
    for (const std::string& name : transposes) s.compute_inline(name);
    schedules::schedule_contraction(s, s.tensor(kProduct), target,
                                    schedules::contraction_config(knobs));
  }
  schedules::schedule_generic(s, outputs, target);
}

/// Sets the schedule of a product operator whose shapes `shape_of` gives, and its tuning
/// template: the matmul template where the tuned matmul applies, the contraction one for
/// other float32 products (both operands batched).
void set_product_schedule(OpDef& def, MatmulShape (*shape_of)(const OpContext&)) {
  def.schedule = [shape_of](const OpContext& ctx, schedule::Schedule& s,
                            const std::vector<te::Tensor>& outputs) {
    bool tuned = use_tuned_matmul(shape_of(ctx), ctx.input_type(0).dtype);
    schedule_product(s, outputs, tuned, ctx.knobs(), ctx.target());
  };
  def.tuning_space = [shape_of](const OpContext& ctx) {
    MatmulShape shape = shape_of(ctx);
    if (ctx.input_type(0).dtype != ir::DataType::Float(32)) return schedules::TuningSpace{};
    if (!use_tuned_matmul(shape, ctx.input_type(0).dtype))
      return schedules::contraction_tuning_space("batched_matmul", shape.output, ctx.target());
    int64_t rows = shape.m;
    for (int64_t b : shape.batch) rows *= b;
    return schedules::matmul_tuning_space(rows, shape.n, shape.k, ctx.target());
  };
}

// ---- MatMul -----------------------------------------------------------------------------

MatmulShape matmul_node_shape(const OpContext& ctx) {
  check_operands(ctx);
  return matmul_shape(ctx, ctx.input_shape(0), ctx.input_shape(1));
}

OpDef matmul_def() {
  OpDef def;
  def.name = "MatMul";
  def.since_version = 1;
  def.pattern = PatternKind::OutFusable;
  def.infer = [](const OpContext& ctx) {
    return std::vector{
        graph::TensorType::of(ctx.input_type(0).dtype, matmul_node_shape(ctx).output)};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    return std::vector{product(ctx, matmul_node_shape(ctx), in[0], in[1])};
  };
  set_product_schedule(def, matmul_node_shape);
  return def;
}

// ---- Gemm -------------------------------------------------------------------------------

/// [M, K] x [K, N] after the transpositions, with C checked to broadcast to [M, N].
MatmulShape gemm_shape(const OpContext& ctx) {
  check_operands(ctx);
  std::vector<int64_t> a = ctx.input_shape(0), b = ctx.input_shape(1);
  if (a.size() != 2 || b.size() != 2)
    ctx.fail("A " + shape_text(a) + " and B " + shape_text(b) + " must be matrices");
  if (ctx.attr_int("transA")) std::swap(a[0], a[1]);
  if (ctx.attr_int("transB")) std::swap(b[0], b[1]);
  MatmulShape shape = matmul_shape(ctx, a, b);
  if (ctx.has_input(2)) {
    if (ctx.input_type(2).dtype != ctx.input_type(0).dtype)
      ctx.fail("C has element type " + ctx.input_type(2).dtype.to_string() + ", A has " +
               ctx.input_type(0).dtype.to_string());
    std::vector<int64_t> c = ctx.input_shape(2);
    bool fits = c.size() <= 2;
    for (size_t d = 0; fits && d < c.size(); ++d)
      fits = c[d] == 1 || c[d] == shape.output[2 - c.size() + d];
    if (!fits)
      ctx.fail("C " + shape_text(c) + " does not broadcast to the product's shape " +
               shape_text(shape.output));
  }
  return shape;
}

te::Tensor transposed(const te::Tensor& m, const char* name) {
  return te::compute({m.shape()[1], m.shape()[0]}, [&](te::Var i, te::Var j) { return m(j, i); },
                     name, {"i", "j"});
}

std::vector<te::Tensor> gemm_compute(const OpContext& ctx, const std::vector<te::Tensor>& in) {
  MatmulShape shape = gemm_shape(ctx);
  te::Tensor a = ctx.attr_int("transA") ? transposed(in[0], kTransposedA) : in[0];
  te::Tensor b = ctx.attr_int("transB") ? transposed(in[1], kTransposedB) : in[1];
  te::Tensor ab = product(ctx, shape, a, b);
  double alpha = ctx.attr_float("alpha"), beta = ctx.attr_float("beta");
  bool with_c = ctx.has_input(2);
  if (alpha == 1 && !with_c) return {ab};
  ir::DataType dtype = ab.dtype();
  te::Tensor y =
      te::compute(ab.shape(),
                  [&](te::Var i, te::Var j) {
                    ir::Expr value = ab(i, j);
                    if (alpha != 1) value = ir::make_const(dtype, alpha) * value;
                    if (with_c)
                      value = value + ir::make_const(dtype, beta) * broadcast_load(in[2], {i, j});
                    return value;
                  },
                  "gemm", {"i", "j"});
  return {y};
}

OpDef gemm_def() {
  OpDef def;
  def.name = "Gemm";
  def.since_version = 1;
  // Before opset 7, attribute 'broadcast' allowed C to broadcast; opset 7 on it always may
  // (a C of the output's shape, what broadcast = 0 required, is one case of it).
  def.attributes = {{"alpha", AttrKind::Float, Attribute::of_float(1.0)},
                    {"beta", AttrKind::Float, Attribute::of_float(1.0)},
                    {"broadcast", AttrKind::Int, Attribute::of_int(0)},
                    {"transA", AttrKind::Int, Attribute::of_int(0)},
                    {"transB", AttrKind::Int, Attribute::of_int(0)}};
  def.pattern = PatternKind::OutFusable;
  def.infer = [](const OpContext& ctx) {
    return std::vector{graph::TensorType::of(ctx.input_type(0).dtype, gemm_shape(ctx).output)};
  };
  def.compute = gemm_compute;
  set_product_schedule(def, gemm_shape);
  return def;
}

// ---- MatMulAdd (tessel domain) -----------------------------------------------------------

/// MatMul's shapes, with C checked to broadcast onto the product's shape.
MatmulShape matmul_add_shape(const OpContext& ctx) {
  MatmulShape shape = matmul_node_shape(ctx);
  if (ctx.input_type(2).dtype != ctx.input_type(0).dtype)
    ctx.fail("C has element type " + ctx.input_type(2).dtype.to_string() + ", A has " +
             ctx.input_type(0).dtype.to_string());
  if (broadcast_shapes(ctx, {shape.output, ctx.input_shape(2)}) != shape.output)
    ctx.fail("C " + shape_text(ctx.input_shape(2)) + " does not broadcast to the product's shape " +
             shape_text(shape.output));
  return shape;
}

/// MatMul(A, B) + C: the bias addition the graph rewrites fold into a MatMul whose operands
/// are not both matrices (Gemm takes the 2-d case).
OpDef matmul_add_def() {
  OpDef def;
  def.name = "MatMulAdd";
  def.domain = "tessel";
  def.since_version = 1;
  def.pattern = PatternKind::OutFusable;
  def.infer = [](const OpContext& ctx) {
    return std::vector{
        graph::TensorType::of(ctx.input_type(0).dtype, matmul_add_shape(ctx).output)};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    te::Tensor ab = product(ctx, matmul_add_shape(ctx), in[0], in[1]);
    te::Tensor y = te::compute(
        ab.shape(),
        [&](const std::vector<te::Var>& i) {
          return broadcast_load(ab, i) + broadcast_load(in[2], i);
        },
        "matmul_add");
    return std::vector{y};
  };
  set_product_schedule(def, matmul_add_shape);
  return def;
}

}  // namespace

void register_matmul_ops(OpRegistry& registry) {
  registry.add(matmul_def());
  registry.add(gemm_def());
  registry.add(matmul_add_def());
}

}  // namespace tessel::ops::nn
