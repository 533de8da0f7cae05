// Gather, GatherElements and GatherND: outputs that read data at positions given by an index
// tensor (int32 or int64; negative indices count from the end of their axis).
#include "ops/index/index_common.h"
#include "ops/op_util.h"

namespace tessel::ops::index {
namespace {

using ir::Expr;
using te::Var;

graph::TensorType same_dtype(const OpContext& ctx, const std::vector<int64_t>& shape) {
  return graph::TensorType::of(ctx.input_type(0).dtype, shape);
}

// ---- Gather: out[a, i.., b] = data[a, indices[i..], b] along `axis` -------------------

struct GatherForm {
  std::vector<int64_t> data, indices, out;
  int64_t axis = 0;
};

GatherForm gather_form(const OpContext& ctx) {
  check_index_input(ctx, 1, "indices");
  GatherForm f{ctx.input_shape(0), ctx.input_shape(1), {}, 0};
  int64_t rank = static_cast<int64_t>(f.data.size());
  f.axis = normalize_axis(ctx, ctx.attr_int("axis"), rank);
  f.out.assign(f.data.begin(), f.data.begin() + f.axis);
  f.out.insert(f.out.end(), f.indices.begin(), f.indices.end());
  f.out.insert(f.out.end(), f.data.begin() + f.axis + 1, f.data.end());
  return f;
}

std::vector<te::Tensor> gather_compute(const OpContext& ctx, const std::vector<te::Tensor>& in) {
  GatherForm f = gather_form(ctx);
  size_t axis = static_cast<size_t>(f.axis), q = f.indices.size();
  te::Tensor data = in[0], indices = in[1];
  auto body = [&](const std::vector<Var>& i) {
    std::vector<Expr> at(i.begin(), i.begin() + axis);
    at.push_back(wrap_index(indices(std::vector<Expr>(i.begin() + axis, i.begin() + axis + q)),
                            f.data[axis]));
    at.insert(at.end(), i.begin() + axis + q, i.end());
    return data(at);
  };
  return {te::compute(shape_exprs(f.out), body, "gather")};
}

// ---- GatherElements: out[p] = data[p with p[axis] = indices[p]] ------------------------

int64_t gather_elements_axis(const OpContext& ctx) {
  check_index_input(ctx, 1, "indices");
  std::vector<int64_t> data = ctx.input_shape(0), indices = ctx.input_shape(1);
  return elements_axis(ctx, data, indices);
}

std::vector<te::Tensor> gather_elements_compute(const OpContext& ctx,
                                                const std::vector<te::Tensor>& in) {
  size_t axis = static_cast<size_t>(gather_elements_axis(ctx));
  int64_t extent = ctx.input_shape(0)[axis];
  te::Tensor data = in[0], indices = in[1];
  auto body = [&](const std::vector<Var>& i) {
    std::vector<Expr> at(i.begin(), i.end());
    at[axis] = wrap_index(indices(as_exprs(i)), extent);
    return data(at);
  };
  return {te::compute(shape_exprs(ctx.input_shape(1)), body, "gather_elements")};
}

// ---- GatherND: out[b.., i.., r..] = data[b.., indices[b.., i.., :], r..] ----------------

struct GatherNdForm {
  std::vector<int64_t> data, indices, out;
  size_t batch = 0;  // batch_dims
  size_t depth = 0;  // indices' last extent: how many data dimensions one index tuple names
};

GatherNdForm gather_nd_form(const OpContext& ctx) {
  check_index_input(ctx, 1, "indices");
  GatherNdForm f{ctx.input_shape(0), ctx.input_shape(1), {}, 0, 0};
  size_t r = f.data.size(), q = f.indices.size();
  int64_t batch = ctx.attr_int("batch_dims");
  if (r < 1 || q < 1) ctx.fail("data and indices must have rank >= 1");
  if (batch < 0 || batch >= static_cast<int64_t>(std::min(r, q)))
    ctx.fail("attribute 'batch_dims' is " + std::to_string(batch) + ", expected a value in [0, " +
             std::to_string(std::min(r, q)) + ")");
  f.batch = static_cast<size_t>(batch);
  int64_t depth = f.indices.back();
  if (depth < 1 || depth > static_cast<int64_t>(r - f.batch))
    ctx.fail("the last dimension of indices " + shape_text(f.indices) + " is " +
             std::to_string(depth) + ", expected a value in [1, " + std::to_string(r - f.batch) +
             "] for data " + shape_text(f.data) + " and batch_dims " + std::to_string(batch));
  f.depth = static_cast<size_t>(depth);
  for (size_t d = 0; d < f.batch; ++d)
    if (f.data[d] != f.indices[d])
      ctx.fail("batch dimension " + std::to_string(d) + " differs: data " + shape_text(f.data) +
               ", indices " + shape_text(f.indices));
  f.out.assign(f.indices.begin(), f.indices.end() - 1);
  f.out.insert(f.out.end(), f.data.begin() + f.batch + f.depth, f.data.end());
  return f;
}

std::vector<te::Tensor> gather_nd_compute(const OpContext& ctx, const std::vector<te::Tensor>& in) {
  GatherNdForm f = gather_nd_form(ctx);
  size_t q = f.indices.size();
  te::Tensor data = in[0], indices = in[1];
  auto body = [&](const std::vector<Var>& i) {
    std::vector<Expr> at(i.begin(), i.begin() + f.batch);
    std::vector<Expr> tuple(i.begin(), i.begin() + (q - 1));
    tuple.push_back(Expr());
    for (size_t t = 0; t < f.depth; ++t) {
      tuple.back() = Expr(static_cast<int64_t>(t));
      at.push_back(wrap_index(indices(tuple), f.data[f.batch + t]));
    }
    at.insert(at.end(), i.begin() + (q - 1), i.end());
    return data(at);
  };
  return {te::compute(shape_exprs(f.out), body, "gather_nd")};
}

}  // namespace

void register_gather_ops(OpRegistry& registry) {
  AttrSpec axis{"axis", graph::AttrKind::Int, graph::Attribute::of_int(0)};
  registry.add(make_op(
      "Gather", 1, PatternKind::Injective, {axis},
      [](const OpContext& ctx) { return std::vector{same_dtype(ctx, gather_form(ctx).out)}; },
      gather_compute));
  registry.add(make_op(
      "GatherElements", 11, PatternKind::Injective, {axis},
      [](const OpContext& ctx) {
        gather_elements_axis(ctx);
        return std::vector{same_dtype(ctx, ctx.input_shape(1))};
      },
      gather_elements_compute));
  registry.add(make_op(
      "GatherND", 11, PatternKind::Injective,
      {{"batch_dims", graph::AttrKind::Int, graph::Attribute::of_int(0)}},
      [](const OpContext& ctx) { return std::vector{same_dtype(ctx, gather_nd_form(ctx).out)}; },
      gather_nd_compute));
}

}  // namespace tessel::ops::index
