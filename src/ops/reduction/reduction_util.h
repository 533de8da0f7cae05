// Shared machinery of the reduction family: axis lists, reduced shapes, reductions of a
// tensor over a set of its axes, and loads of keep-dims statistics at full-rank positions.
//
// Statistics (a row's max, a channel's mean) are kept in "keep-dims" form: the input's rank
// with extent 1 on every reduced axis, so that a later stage reads them at any input
// position through `load_reduced`.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ops/op_context.h"
#include "te/compute.h"

namespace tessel::ops::reduction {

/// A function of a full-rank position (one index expression per input dimension).
using IndexFn = std::function<ir::Expr(const std::vector<ir::Expr>& index)>;

/// `axes` (negative allowed) mapped to [0, rank), sorted; fails on an axis out of range or
/// repeated, naming `what`.
std::vector<int64_t> normalize_axes(const OpContext& ctx, const std::vector<int64_t>& axes,
                                    int64_t rank, const std::string& what = "axes");

/// The axes [first, rank).
std::vector<int64_t> trailing_axes(int64_t first, int64_t rank);

/// `shape` with the `axes` (sorted) set to 1 when `keepdims`, removed otherwise.
std::vector<int64_t> reduced_shape(const std::vector<int64_t>& shape,
                                   const std::vector<int64_t>& axes, bool keepdims);

/// Product of the extents of `shape` on `axes`.
int64_t reduced_count(const std::vector<int64_t>& shape, const std::vector<int64_t>& axes);

/// The tensor of shape reduced_shape(in_shape, axes, keepdims) whose element is the `op`
/// reduction of source(p) over the positions p of an `in_shape` tensor that agree with it
/// on the axes not reduced (and where `condition(p)` holds, when given). `axes` must not be
/// empty.
te::Tensor reduce_over(const std::vector<int64_t>& in_shape, const std::vector<int64_t>& axes,
                       bool keepdims, ir::ReduceOp op, const IndexFn& source,
                       const std::string& name, const IndexFn& condition = nullptr);

/// The compute over `shape` whose element at position p is body(p).
te::Tensor map_over(const std::vector<int64_t>& shape, const IndexFn& body,
                    const std::string& name);

/// A load of the keep-dims statistic `stat` at the full-rank position `index` (index 0 on
/// the reduced `axes`).
ir::Expr load_reduced(const te::Tensor& stat, const std::vector<ir::Expr>& index,
                      const std::vector<int64_t>& axes);

/// The full-rank position of an element of a reduced tensor: `index` (of rank
/// reduced_shape(..., keepdims)) with 0 inserted on `axes` when keepdims was false.
std::vector<ir::Expr> expand_index(const std::vector<ir::Expr>& index,
                                   const std::vector<int64_t>& axes, bool keepdims);

/// A load of `tensor` at the position `index` of a tensor it broadcasts to (numpy rules,
/// aligned on the right: dimensions of extent 1 read index 0).
ir::Expr broadcast_at(const te::Tensor& tensor, const std::vector<ir::Expr>& index);

/// The type arithmetic of a normalisation or a float-valued reduction runs in: float32 for
/// 16-bit floats, float64 for integers, the type itself for float32 / float64.
ir::DataType float_compute_type(ir::DataType dtype);

/// Fails unless input `i` is a float tensor (float16, bfloat16, float32, float64).
void check_float_input(const OpContext& ctx, size_t i, const std::string& what);

/// Text of a shape, e.g. "[2, 3]".
std::string shape_text(const std::vector<int64_t>& shape);

}  // namespace tessel::ops::reduction
