// Helpers shared by the nn operator family (see nn_util.h).
#include "ops/nn/nn_util.h"

#include <sstream>

#include "ops/cpu_features.h"
#include "support/error.h"

namespace tessel::ops::nn {
namespace {

/// Contractions doing at least this many multiply-adds get a parallel outer loop.
constexpr int64_t kParallelMinWork = int64_t{1} << 16;

int64_t const_extent(const ir::Expr& extent) {
  const int64_t* value = ir::as_const_int(extent);
  TESSEL_ICHECK(value != nullptr, "a contraction loop has a non-constant extent");
  return *value;
}

}  // namespace

Operand Operand::of(const te::Tensor& tensor, std::optional<ir::DataType> dtype) {
  std::vector<int64_t> shape;
  for (const ir::Expr& extent : tensor.shape()) shape.push_back(const_extent(extent));
  bool convert = dtype && *dtype != tensor.dtype();
  return Operand{shape, dtype.value_or(tensor.dtype()),
                 [tensor, convert, dtype](const std::vector<ir::Expr>& index) {
                   ir::Expr value = tensor(index);
                   return convert ? ir::cast(*dtype, value) : value;
                 }};
}

std::vector<ir::DataType> float_types() {
  return {ir::DataType::Float(16), ir::DataType::Float(32), ir::DataType::Float(64),
          ir::DataType::BFloat(16)};
}

void check_dtype(const OpContext& ctx, size_t i, const std::vector<ir::DataType>& allowed) {
  ir::DataType dtype = ctx.input_type(i).dtype;
  for (const ir::DataType& t : allowed)
    if (t == dtype) return;
  std::string names;
  for (const ir::DataType& t : allowed) names += (names.empty() ? "" : ", ") + t.to_string();
  ctx.fail("input " + std::to_string(i) + " has element type " + dtype.to_string() +
           "; expected one of " + names);
}

ir::DataType accumulation_type(ir::DataType dtype) {
  return dtype.is_float() && dtype.bits < 32 ? ir::DataType::Float(32) : dtype;
}

te::Tensor cast_to(const te::Tensor& tensor, ir::DataType dtype, const std::string& name) {
  if (tensor.dtype() == dtype) return tensor;
  return te::compute(
      tensor.shape(),
      [&](const std::vector<te::Var>& index) {
        return ir::cast(dtype, tensor(std::vector<ir::Expr>(index.begin(), index.end())));
      },
      name);
}

std::string indexed_name(const char* prefix, size_t index) {
  std::string name = prefix;
  name += std::to_string(index);
  return name;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::ostringstream text;
  text << "[";
  for (size_t d = 0; d < shape.size(); ++d) text << (d ? ", " : "") << shape[d];
  text << "]";
  return text.str();
}

bool has_stage(const schedule::Schedule& s, const std::string& name) {
  for (const schedule::Stage& stage : s.stages())
    if (stage.name == name) return true;
  return false;
}

void schedule_contraction(schedule::Schedule& s, const te::Tensor& tensor) {
  const schedule::Stage& stage = s.stage(tensor);
  if (stage.is_transformed() || stage.is_placeholder()) return;
  const te::OperationNode& op = *stage.op;
  size_t spatial = op.axis.size();
  if (spatial == 0) return;
  int64_t work = 1, innermost = const_extent(op.axis.back().extent);
  for (const ir::IterVar& iv : op.axis) work *= const_extent(iv.extent);
  for (const ir::IterVar& iv : op.reduce_axis) work *= const_extent(iv.extent);
  std::vector<std::string> roots = stage.roots;
  const auto* reduce = op.bodies[0].as<ir::ReduceNode>();
  int lanes = host_float_lanes();
  bool unconditional = reduce && (!reduce->condition.defined() || ir::is_one(reduce->condition));
  bool vectorize = unconditional && tensor.dtype() == ir::DataType::Float(32) && innermost >= lanes;
  std::string outer = roots[0];
  if (vectorize) {
    // A vector of outputs accumulates in registers over the whole reduction.
    te::Tensor acc = s.cache_write(tensor, "local");
    auto [vector_outer, vector_inner] = s.split(tensor, roots[spatial - 1], lanes);
    for (size_t d = 1; d + 1 < spatial; ++d) outer = s.fuse(tensor, outer, roots[d]);
    if (spatial > 1)
      outer = s.fuse(tensor, outer, vector_outer);
    else
      outer = vector_outer;
    s.vectorize(tensor, vector_inner);
    s.compute_at(acc, tensor, outer);
    std::vector<std::string> order(roots.begin() + static_cast<int64_t>(spatial), roots.end());
    order.push_back(roots[spatial - 1]);
    s.reorder(acc, order);
    s.vectorize(acc, roots[spatial - 1]);
  } else {
    for (size_t d = 1; d < spatial; ++d) outer = s.fuse(tensor, outer, roots[d]);
  }
  if (work >= kParallelMinWork) s.parallel(tensor, outer);
}

}  // namespace tessel::ops::nn
