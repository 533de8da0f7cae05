// The shape / data-movement operator family: one registration function per group of
// operators (each in its own file), and the helpers the groups share.
//
// Every data-movement compute is a single te::compute whose body loads the input at an
// index computed from the output index (pattern kind Injective); output shapes are computed
// on the host from the input shapes, attributes and value inputs.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ops/op_def.h"
#include "ops/registry.h"

namespace tessel::ops::shape {

/// Constant, Shape, Size (folded on the host).
void register_metadata_ops(OpRegistry& registry);
/// The dimensions [start, end) of its input that a Shape node returns (start / end from
/// opset 15, negative values counting from the back, both clamped to [0, rank]).
std::pair<int64_t, int64_t> shape_range(const OpContext& ctx);
/// ConstantOfShape, Range, OneHot.
void register_generator_ops(OpRegistry& registry);
/// EyeLike, Trilu.
void register_diagonal_ops(OpRegistry& registry);
/// Reshape, Flatten, Squeeze, Unsqueeze.
void register_reshape_ops(OpRegistry& registry);
/// Transpose.
void register_transpose_ops(OpRegistry& registry);
/// Concat, Split.
void register_concat_split_ops(OpRegistry& registry);
/// Slice.
void register_slice_ops(OpRegistry& registry);
/// Expand, Tile.
void register_broadcast_ops(OpRegistry& registry);

/// Maps an output index to the input index to load.
using IndexMap = std::function<std::vector<ir::Expr>(const std::vector<te::Var>&)>;

/// The compute of shape `out_shape` whose element at index v is `input(index_map(v))`.
te::Tensor gather_input(const te::Tensor& input, const std::vector<int64_t>& out_shape,
                        const IndexMap& index_map, const std::string& name);

/// An integer list given by attribute `attr` before opset `input_since` and by input
/// `input` (a value input) from then on; nullopt when the node gives neither.
std::optional<std::vector<int64_t>> ints_from_attr_or_input(const OpContext& ctx,
                                                            const std::string& attr, size_t input,
                                                            int input_since);

/// `axes` normalised into [0, rank); fails naming `what` on an axis out of range or a
/// repeated axis.
std::vector<int64_t> normalize_axes(const OpContext& ctx, const std::vector<int64_t>& axes,
                                    int64_t rank, const std::string& what);

/// Fails naming `what` when an extent of `shape` is negative or the element count exceeds
/// graph::kMaxTensorElements.
void check_shape(const OpContext& ctx, const std::vector<int64_t>& shape, const std::string& what);

/// The element offset in a row-major tensor of shape `in` of the window that starts at
/// `starts` and takes `shape` elements per axis with `steps`, when that window is one
/// contiguous run of its elements (every axis before the first cut one has extent 1 in the
/// window, every axis after it is whole and runs forward); nothing otherwise.
std::optional<int64_t> contiguous_window(const std::vector<int64_t>& in,
                                         const std::vector<int64_t>& starts,
                                         const std::vector<int64_t>& steps,
                                         const std::vector<int64_t>& shape);

/// The output type of an operator whose single output has input 0's element type.
std::vector<graph::TensorType> like_input(const OpContext& ctx, const std::vector<int64_t>& shape);

/// An immediate holding element `k` of `array`, of the array's element type; fails for
/// element types without immediates (float16, bfloat16).
ir::Expr element_expr(const OpContext& ctx, const runtime::NDArray& array, int64_t k);

/// "[2, 3, 4]".
std::string shape_text(const std::vector<int64_t>& shape);

}  // namespace tessel::ops::shape
