// ScatterElements, Scatter (its deprecated alias) and ScatterND: a copy of data in which the
// elements named by an index tensor receive updates, either replaced (reduction 'none') or
// combined with add / mul (opset 16) or max / min (opset 18).
//
// Every output element p scans the update positions j that may write it: with 'none' the
// last position (in index order, which is the order ONNX applies updates in) wins, found by
// a max-reduction over j filtered by "j writes p"; with a reduction, data[p] is combined with
// the filtered reduction of the updates. That costs O(|data| * scanned positions), which
// keeps the compute free of write conflicts.
#include <functional>

#include "ops/index/index_common.h"
#include "ops/op_util.h"

namespace tessel::ops::index {
namespace {

using ir::Expr;
using te::Var;

/// How the update positions of one scatter map to output elements.
struct ScatterForm {
  /// Extents of the update positions scanned for every output element.
  std::vector<int64_t> scan;
  /// Whether update position j writes output element p.
  std::function<Expr(const std::vector<Var>& p, const std::vector<Expr>& j)> writes;
  /// The update at position j for output element p; must read in bounds for every p and j.
  std::function<Expr(const std::vector<Var>& p, const std::vector<Expr>& j)> update;
};

/// The 'reduction' attribute: nullopt for 'none'.
std::optional<ir::ReduceOp> scatter_reduction(const OpContext& ctx) {
  std::vector<std::string> choices{"none"};
  if (ctx.opset() >= 16) choices.insert(choices.end(), {"add", "mul"});
  if (ctx.opset() >= 18) choices.insert(choices.end(), {"max", "min"});
  std::string reduction = attr_choice(ctx, "reduction", choices);
  if (reduction == "add") return ir::ReduceOp::Sum;
  if (reduction == "mul") return ir::ReduceOp::Prod;
  if (reduction == "max") return ir::ReduceOp::Max;
  if (reduction == "min") return ir::ReduceOp::Min;
  return std::nullopt;
}

te::Tensor scatter(const OpContext& ctx, const te::Tensor& data, const ScatterForm& form) {
  std::optional<ir::ReduceOp> reduction = scatter_reduction(ctx);
  std::vector<Expr> shape = data.shape();
  std::vector<ir::IterVar> axes;
  std::vector<Expr> j;
  for (size_t k = 0; k < form.scan.size(); ++k) {
    axes.push_back(te::reduce_axis(form.scan[k], std::string("j").append(std::to_string(k))));
    j.push_back(axes.back().var);
  }
  if (reduction) {
    te::Tensor combined = te::compute(
        shape,
        [&](const std::vector<Var>& p) {
          return ir::make_Reduce(*reduction, form.update(p, j), axes, form.writes(p, j));
        },
        "scatter_updates");
    return te::compute(
        shape,
        [&](const std::vector<Var>& p) {
          return ir::reduce_combine(*reduction, data(as_exprs(p)), combined(as_exprs(p)));
        },
        "scatter");
  }
  // The row-major number of the last update position writing p (negative when none does).
  std::vector<int64_t> strides(form.scan.size(), 1);
  for (size_t k = form.scan.size(); k-- > 1;) strides[k - 1] = strides[k] * form.scan[k];
  Expr number = Expr(int64_t{0});
  for (size_t k = 0; k < j.size(); ++k) number = number + j[k] * strides[k];
  te::Tensor last = te::compute(
      shape,
      [&](const std::vector<Var>& p) { return te::max_reduce(number, axes, form.writes(p, j)); },
      "scatter_last");
  return te::compute(
      shape,
      [&](const std::vector<Var>& p) {
        Expr found = last(as_exprs(p));
        Expr at = ir::max(found, Expr(int64_t{0}));
        std::vector<Expr> position;
        for (size_t k = 0; k < strides.size(); ++k)
          position.push_back(at / strides[k] % form.scan[k]);
        return ir::select(found >= Expr(int64_t{0}), form.update(p, position), data(as_exprs(p)));
      },
      "scatter");
}

void check_updates_dtype(const OpContext& ctx) {
  if (ctx.input_type(2).dtype != ctx.input_type(0).dtype)
    ctx.fail("updates are " + ctx.input_type(2).dtype.to_string() + ", expected the data type " +
             ctx.input_type(0).dtype.to_string());
}

// ---- ScatterElements / Scatter: out[p with p[axis] = indices[j]] <- updates[j] -----------

int64_t scatter_elements_axis(const OpContext& ctx) {
  if (ctx.node().op_type == "Scatter" && ctx.opset() >= 11)
    ctx.fail("Scatter is deprecated since opset 11: use ScatterElements");
  check_index_input(ctx, 1, "indices");
  check_updates_dtype(ctx);
  std::vector<int64_t> data = ctx.input_shape(0), indices = ctx.input_shape(1),
                       updates = ctx.input_shape(2);
  if (indices != updates)
    ctx.fail("indices shape " + shape_text(indices) + " differs from updates shape " +
             shape_text(updates));
  return elements_axis(ctx, data, indices);
}

std::vector<te::Tensor> scatter_elements_compute(const OpContext& ctx,
                                                 const std::vector<te::Tensor>& in) {
  size_t axis = static_cast<size_t>(scatter_elements_axis(ctx));
  std::vector<int64_t> data = ctx.input_shape(0), updates = ctx.input_shape(2);
  te::Tensor indices = in[1], values = in[2];
  // The update position for output p and scan index j: p with j on the axis, clamped to
  // the updates' extent elsewhere (`inside` tells whether p is within it).
  auto position = [&](const std::vector<Var>& p, const Expr& j) {
    std::vector<Expr> at(p.begin(), p.end());
    for (size_t d = 0; d < at.size(); ++d)
      at[d] = d == axis ? j : updates[d] < data[d] ? clamp_index(p[d], updates[d]) : at[d];
    return at;
  };
  auto inside = [&](const std::vector<Var>& p) {
    std::vector<Expr> terms;
    for (size_t d = 0; d < data.size(); ++d)
      if (d != axis && updates[d] < data[d]) terms.push_back(p[d] < updates[d]);
    return all_of(terms);
  };
  ScatterForm form{
      {updates[axis]},
      [&](const std::vector<Var>& p, const std::vector<Expr>& j) {
        return inside(p) && wrap_index(indices(position(p, j[0])), data[axis]) == p[axis];
      },
      [&](const std::vector<Var>& p, const std::vector<Expr>& j) {
        return values(position(p, j[0]));
      },
  };
  return {scatter(ctx, in[0], form)};
}

// ---- ScatterND: out[indices[j, :], r..] <- updates[j, r..] -------------------------------

void check_scatter_nd(const OpContext& ctx) {
  check_index_input(ctx, 1, "indices");
  check_updates_dtype(ctx);
  std::vector<int64_t> data = ctx.input_shape(0), indices = ctx.input_shape(1),
                       updates = ctx.input_shape(2);
  if (data.empty() || indices.empty()) ctx.fail("data and indices must have rank >= 1");
  int64_t depth = indices.back();
  if (depth < 1 || depth > static_cast<int64_t>(data.size()))
    ctx.fail("the last dimension of indices " + shape_text(indices) + " is " +
             std::to_string(depth) + ", expected a value in [1, " + std::to_string(data.size()) +
             "] for data " + shape_text(data));
  std::vector<int64_t> expected(indices.begin(), indices.end() - 1);
  expected.insert(expected.end(), data.begin() + depth, data.end());
  if (updates != expected)
    ctx.fail("updates have shape " + shape_text(updates) + ", expected " + shape_text(expected) +
             " for data " + shape_text(data) + " and indices " + shape_text(indices));
}

std::vector<te::Tensor> scatter_nd_compute(const OpContext& ctx,
                                           const std::vector<te::Tensor>& in) {
  check_scatter_nd(ctx);
  std::vector<int64_t> data = ctx.input_shape(0), shape = ctx.input_shape(1);
  size_t batch = shape.size() - 1, depth = static_cast<size_t>(shape.back());
  te::Tensor indices = in[1], values = in[2];
  std::vector<int64_t> scan(shape.begin(), shape.end() - 1);
  if (scan.empty()) scan.push_back(1);  // a single index tuple: one scanned position
  ScatterForm form{
      scan,
      [&](const std::vector<Var>& p, const std::vector<Expr>& j) {
        std::vector<Expr> tuple(j.begin(), j.begin() + batch);
        tuple.push_back(Expr());
        std::vector<Expr> terms;
        for (size_t t = 0; t < depth; ++t) {
          tuple.back() = Expr(static_cast<int64_t>(t));
          terms.push_back(wrap_index(indices(tuple), data[t]) == p[t]);
        }
        return all_of(terms);
      },
      [&](const std::vector<Var>& p, const std::vector<Expr>& j) {
        std::vector<Expr> at(j.begin(), j.begin() + batch);
        at.insert(at.end(), p.begin() + depth, p.end());
        return values(at);
      },
  };
  return {scatter(ctx, in[0], form)};
}

std::vector<AttrSpec> scatter_attributes(bool with_axis) {
  std::vector<AttrSpec> attributes{
      {"reduction", graph::AttrKind::String, graph::Attribute::of_string("none")}};
  if (with_axis) attributes.push_back({"axis", graph::AttrKind::Int, graph::Attribute::of_int(0)});
  return attributes;
}

graph::TensorType data_type(const OpContext& ctx) {
  return graph::TensorType::of(ctx.input_type(0).dtype, ctx.input_shape(0));
}

}  // namespace

void register_scatter_ops(OpRegistry& registry) {
  for (auto [name, since] : {std::pair{"ScatterElements", 11}, std::pair{"Scatter", 9}}) {
    registry.add(make_op(
        name, since, PatternKind::Opaque, scatter_attributes(true),
        [](const OpContext& ctx) {
          scatter_elements_axis(ctx);
          scatter_reduction(ctx);
          return std::vector{data_type(ctx)};
        },
        scatter_elements_compute));
  }
  registry.add(make_op(
      "ScatterND", 11, PatternKind::Opaque, scatter_attributes(false),
      [](const OpContext& ctx) {
        check_scatter_nd(ctx);
        scatter_reduction(ctx);
        return std::vector{data_type(ctx)};
      },
      scatter_nd_compute));
}

}  // namespace tessel::ops::index
