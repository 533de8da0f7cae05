// Operators whose output extents depend on input values: NonZero, Unique and
// NonMaxSuppression always, Compress and TopK when their condition or k is known only at run
// time; run by the runtime as plan steps of their own (and by the compiler, to fold them when
// their inputs are constants). The string operators (runtime/string_ops.h) run as such
// steps too.
//
// Their work is a sequential scan, a sort or a greedy selection, which the gather form of
// tensor expressions (each output element a function of its index) does not describe; they
// are written here once, in C++. Each finds its outputs' extents first, then asks its
// caller for each output's memory at that actual shape (OutputAllocator) and writes it
// compactly, row-major; so an output takes memory for what the run found, not for the
// largest output its input shapes allow (data_dependent_outputs: the types the compiler
// gives them).
//
// Semantics (ONNX, as ONNX Runtime computes them):
//  - NonZero: the indices of the nonzero elements, [rank, count], in row-major order (NaN
//    counts as nonzero; a scalar is read as one element of rank 1).
//  - Unique (params: axis or -1 for the flattened input, sorted): the distinct elements (or
//    slices along the axis), ascending when sorted (slices compared element by element) or
//    in the order they first appear; the index of each one's first occurrence; for each
//    input element (slice) the position of its value among the distinct ones; the counts.
//  - NonMaxSuppression (params: center_point_box, then whether max_output_boxes_per_class,
//    iou_threshold and score_threshold are given): per batch and class, the boxes scoring
//    above score_threshold, best first (ties by the lower index), each kept unless its IoU
//    with a kept box exceeds iou_threshold, at most max_output_boxes_per_class of them
//    (absent: 0); rows [batch, class, box].
//  - Compress (params: axis or -1 for the flattened input): the slices (elements) whose
//    condition entry is nonzero, in order; a condition shorter than the extent selects
//    nothing beyond it, one selecting a position beyond the extent is an error.
//  - TopK (params: axis, largest): the k best elements of each line along the axis, best
//    first (larger, or smaller, values; NaN above every number; ties by the lower position),
//    and their positions; k (input 1) must lie in [0, extent].
//  - ExtentOf (params: a dimension): the extent of that dimension of its input in this run,
//    an int64 scalar (its input is read at the run's shape; its data is not read).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/model_plan.h"
#include "runtime/string_store.h"

namespace tessel::runtime {

/// An input of a data-dependent step as it runs.
struct ConstView {
  const void* data = nullptr;
  DType dtype;
  std::vector<int64_t> shape;
};

/// The product of a shape's extents (1 for a scalar).
int64_t shape_product(const std::vector<int64_t>& shape);

/// Whether `kind` is NonZero, Unique, NonMaxSuppression, Compress, TopK, ExtentOf or a
/// string step.
bool is_data_dependent(StepKind kind);

/// The number of outputs a data-dependent step writes: its last arguments.
size_t data_dependent_output_count(StepKind kind);

/// The element types and the largest shapes of the outputs of step `kind` with `params` on
/// inputs of `input_types` / `input_shapes`, and per output the dimension whose extent the
/// run sets (-1: none). Throws Error naming the problem when the inputs or parameters do
/// not fit the step.
struct DataDependentOutputs {
  std::vector<DType> dtypes;
  std::vector<std::vector<int64_t>> capacities;
  std::vector<int32_t> dynamic_dims;
};
DataDependentOutputs data_dependent_outputs(StepKind kind, const std::vector<int64_t>& params,
                                            const std::vector<DType>& input_types,
                                            const std::vector<std::vector<int64_t>>& input_shapes);

/// The memory output `k` of a step is written to, for its actual `shape` (the product of
/// its extents times the element size, at least): called once per output, in order, after
/// the step has found the extents and before it writes that output.
using OutputAllocator = std::function<void*(size_t k, const std::vector<int64_t>& shape)>;

/// Runs step `kind` with `params` and text parameters `strings` on `inputs`, writing output
/// k compactly into the memory `allocate` gives it (the text of string outputs into
/// `store`); returns the outputs' actual shapes. Throws Error for a bad input value (a
/// negative box count, text that is no number).
std::vector<std::vector<int64_t>> run_data_dependent(
    StepKind kind, const std::vector<int64_t>& params, const std::vector<std::string>& strings,
    const std::vector<ConstView>& inputs, const OutputAllocator& allocate, StringStore& store);

}  // namespace tessel::runtime
