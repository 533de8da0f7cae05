// Helpers shared by the index operators (gathers, scatters, pads, block rearrangements,
// resampling): index dtype checks, index loads with ONNX's negative wrap-around, clamping,
// choice attributes, and one registration function per group of operators.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/op_context.h"
#include "ops/op_def.h"
#include "ops/registry.h"
#include "te/compute.h"

namespace tessel::ops::index {

/// Fails unless input `i` is given and holds int32 or int64 values; `what` names it.
void check_index_input(const OpContext& ctx, size_t i, const std::string& what);

/// An index read from an index tensor, as an Index in [0, extent): negative values count
/// from the end (ONNX). Values outside [-extent, extent) are undefined in ONNX; they wrap
/// around too, so that a bad index never reads outside a buffer.
ir::Expr wrap_index(const ir::Expr& index, int64_t extent);

/// `index` (an integer expression) converted to Index and clamped to [0, extent - 1].
ir::Expr clamp_index(const ir::Expr& index, int64_t extent);

/// The string attribute `name`, which must be one of `choices`; fails listing them.
std::string attr_choice(const OpContext& ctx, const std::string& name,
                        const std::vector<std::string>& choices);

/// The conjunction of `terms`; true when there are none.
ir::Expr all_of(const std::vector<ir::Expr>& terms);

/// Index variables as expressions (for tensor loads).
std::vector<ir::Expr> as_exprs(const std::vector<te::Var>& vars);

/// An operator record with the fields index operators set.
OpDef make_op(std::string name, int since_version, PatternKind pattern,
              std::vector<AttrSpec> attributes, InferFn infer, ComputeFn compute,
              std::vector<int> value_inputs = {});

/// "[2, 3, 4]".
std::string shape_text(const std::vector<int64_t>& shape);

/// The normalised 'axis' attribute of an element-wise indexing op (GatherElements,
/// ScatterElements): fails unless `indices` has the rank of `data` and fits inside it on
/// every other axis.
int64_t elements_axis(const OpContext& ctx, const std::vector<int64_t>& data,
                      const std::vector<int64_t>& indices);

// Registration of each group of index operators (one file each).
void register_gather_ops(OpRegistry& registry);
void register_data_dependent_ops(OpRegistry& registry);
void register_padding_mask_ops(OpRegistry& registry);
void register_scatter_ops(OpRegistry& registry);
void register_pad_ops(OpRegistry& registry);
void register_depth_space_ops(OpRegistry& registry);
void register_reverse_sequence_ops(OpRegistry& registry);
void register_compress_ops(OpRegistry& registry);
void register_resize_ops(OpRegistry& registry);
void register_grid_sample_ops(OpRegistry& registry);

}  // namespace tessel::ops::index
