// Helpers shared by the operator library: axis normalisation, numpy broadcasting, shape
// conversions, and the generic default CPU schedule.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/op_context.h"
#include "schedule/schedule.h"
#include "target/target.h"
#include "te/compute.h"

namespace tessel::ops {

/// `axis` in [-rank, rank) mapped to [0, rank); fails naming `what` otherwise.
int64_t normalize_axis(const OpContext& ctx, int64_t axis, int64_t rank,
                       const std::string& what = "axis");

/// The numpy broadcast of `shapes` (aligned on the right); fails naming the shapes when two
/// dimensions differ and neither is 1.
std::vector<int64_t> broadcast_shapes(const OpContext& ctx,
                                      const std::vector<std::vector<int64_t>>& shapes);

/// A load of `tensor` at the position of a broadcast output element `index` (the output
/// has rank >= the tensor's; dimensions of extent 1 read index 0).
ir::Expr broadcast_load(const te::Tensor& tensor, const std::vector<te::Var>& index);

/// Shapes as expressions, and back (fails on a non-constant extent).
std::vector<ir::Expr> shape_exprs(const std::vector<int64_t>& shape);
std::vector<int64_t> static_shape(const te::Tensor& tensor);
/// Dimension `d` of `tensor`; a user error naming `op` when it is not a constant.
int64_t constant_dim(const te::Tensor& tensor, int d, const std::string& op);

/// Product of a shape's extents.
int64_t shape_size(const std::vector<int64_t>& shape);

/// The default CPU schedule for stages without an operator-specific one: for every output
/// stage, the spatial loops but the innermost fused and run in parallel when the tensor is
/// large, the innermost split by the target's vector width and vectorized when it is float32 and
/// wide enough. Other stages stay at the root.
void schedule_generic(schedule::Schedule& schedule, const std::vector<te::Tensor>& outputs,
                      const target::Target& target);

/// Tensors with at least this many elements get parallel loops from schedule_generic.
inline constexpr int64_t kParallelMinElements = 1 << 15;

}  // namespace tessel::ops
