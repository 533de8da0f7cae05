// Compress: the slices along an axis (or the elements of the flattened input without an
// axis) whose condition entry is true. The output's shape depends on the condition's value:
// with a condition known at compile time, the kernel maps each output position to its
// source position through the runs of consecutive selected positions; else the runtime
// runs it as a data-dependent step (runtime/data_dependent.h).
#include "ops/data_dependent_types.h"
#include "ops/index/index_common.h"
#include "ops/op_util.h"

namespace tessel::ops::index {
namespace {

using ir::Expr;
using te::Var;

struct CompressForm {
  std::optional<size_t> axis;  // nullopt: the flattened input
  std::vector<int64_t> selected, out;
};

CompressForm compress_form(const OpContext& ctx) {
  std::vector<int64_t> shape = ctx.input_shape(0);
  if (ctx.input_shape(1).size() != 1)
    ctx.fail("the condition has shape " + shape_text(ctx.input_shape(1)) + ", expected rank 1");
  CompressForm f;
  int64_t extent = te::shape_size(shape);
  if (ctx.has_attr("axis")) {
    f.axis = static_cast<size_t>(
        normalize_axis(ctx, ctx.attr_int("axis"), static_cast<int64_t>(shape.size())));
    extent = shape[*f.axis];
  }
  std::vector<int64_t> condition = ctx.input_ints(1);
  for (size_t k = 0; k < condition.size(); ++k) {
    if (!condition[k]) continue;
    if (static_cast<int64_t>(k) >= extent)
      ctx.fail("the condition selects position " + std::to_string(k) + ", beyond the extent " +
               std::to_string(extent));
    f.selected.push_back(static_cast<int64_t>(k));
  }
  int64_t count = static_cast<int64_t>(f.selected.size());
  f.out = f.axis ? shape : std::vector<int64_t>{count};
  if (f.axis) f.out[*f.axis] = count;
  return f;
}

/// The source position of output position `i`: selected[i], as a search over the runs of
/// consecutive selected positions starting at run `first` (inclusive) to `last` (exclusive).
Expr source_position(const Expr& i, const std::vector<int64_t>& selected,
                     const std::vector<size_t>& run_starts, size_t first, size_t last) {
  if (last - first == 1) {
    int64_t start = static_cast<int64_t>(run_starts[first]);
    return i + (selected[run_starts[first]] - start);
  }
  size_t middle = (first + last) / 2;
  return ir::select(i < static_cast<int64_t>(run_starts[middle]),
                    source_position(i, selected, run_starts, first, middle),
                    source_position(i, selected, run_starts, middle, last));
}

/// The runtime step where the condition is known only at run time.
std::optional<DataDependentStep> compress_step(const OpContext& ctx) {
  if (ctx.input_value(1)) return std::nullopt;
  int64_t axis = -1;
  if (ctx.has_attr("axis")) axis = normalize_axis(ctx, ctx.attr_int("axis"), ctx.input_type(0).rank());
  return DataDependentStep{runtime::StepKind::Compress, {axis}};
}

std::vector<te::Tensor> compress(const OpContext& ctx, const std::vector<te::Tensor>& in) {
  CompressForm f = compress_form(ctx);
  std::vector<int64_t> shape = ctx.input_shape(0);
  const te::Tensor& x = in[0];
  if (f.selected.empty()) {  // an empty output: the body is never run
    std::vector<Expr> origin(shape.size(), Expr(int64_t{0}));
    return {te::compute(
        shape_exprs(f.out), [&](const std::vector<Var>&) { return x(origin); }, "compress")};
  }
  std::vector<size_t> run_starts{0};
  for (size_t k = 1; k < f.selected.size(); ++k)
    if (f.selected[k] != f.selected[k - 1] + 1) run_starts.push_back(k);
  auto body = [&](const std::vector<Var>& p) {
    size_t d = f.axis.value_or(0);
    Expr source = source_position(p[d], f.selected, run_starts, 0, run_starts.size());
    if (f.axis) {
      std::vector<Expr> at(p.begin(), p.end());
      at[d] = source;
      return x(at);
    }
    std::vector<Expr> at(shape.size());  // the flat position, unravelled row-major
    for (size_t k = shape.size(); k-- > 0;) {
      at[k] = k == 0 ? source : source % shape[k];
      source = source / shape[k];
    }
    return x(at);
  };
  return {te::compute(shape_exprs(f.out), body, "compress")};
}

}  // namespace

void register_compress_ops(OpRegistry& registry) {
  OpDef def = make_op(
      "Compress", 9, PatternKind::Injective, {{"axis", graph::AttrKind::Int, std::nullopt}},
      [](const OpContext& ctx) {
        if (std::optional<DataDependentStep> step = compress_step(ctx)) return largest_outputs(ctx, *step);
        return std::vector{graph::TensorType::of(ctx.input_type(0).dtype, compress_form(ctx).out)};
      },
      compress, {1});
  def.data_dependent = compress_step;
  registry.add(std::move(def));
}

}  // namespace tessel::ops::index
