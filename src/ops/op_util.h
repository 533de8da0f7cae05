// Helpers shared by the operator library: axis normalisation, numpy broadcasting and shape
// conversions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/op_context.h"
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

/// Shapes as expressions (te::static_shape is the way back).
std::vector<ir::Expr> shape_exprs(const std::vector<int64_t>& shape);
/// Dimension `d` of `tensor`; a user error naming `op` when it is not a constant.
int64_t constant_dim(const te::Tensor& tensor, int d, const std::string& op);

}  // namespace tessel::ops
