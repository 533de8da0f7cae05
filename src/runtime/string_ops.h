// The string operators, run by the runtime as host steps like the data-dependent ones
// (runtime/data_dependent.h dispatches to them):
//  - StringNormalizer (params: case action 0 none / 1 lower / 2 upper, case-sensitive;
//    strings: the stop words): drops the elements of a [C] or [1, C] string tensor that
//    equal a stop word (ignoring case unless case-sensitive), then changes the case of the
//    rest; when every element is dropped the output is one empty string ([1] or [1, 1]).
//    Case follows Unicode's default mapping (each code point to one; UTF-8 in and out).
//  - CastString (params: the target dtype's code and bits): numbers to text or text to
//    numbers (a second input, CastLike's 'like', is not read). Text is the shortest plain decimal
//    that reads back as the same value ("0.5", "100", "0.039187793"), "NaN", "INF" or "-INF"; bool
//    is "1" or "0". Reading accepts plain and scientific forms ("1e-5", "1E8"), an optional sign,
//    and INF / +INF / -INF / NaN in any case; integers take a decimal's integral part ("100.5" ->
//    100). Text that is no number, or a number outside the integer type's range, is an error naming
//    the element.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/data_dependent.h"
#include "runtime/string_store.h"

namespace tessel::runtime {

/// Whether `kind` is StringNormalizer or CastString.
bool is_string_step(StepKind kind);

/// The element type and largest shape of the output of string step `kind`, and its dynamic
/// dimension (-1: none). Throws Error when the input or parameters do not fit.
DataDependentOutputs string_step_outputs(StepKind kind, const std::vector<int64_t>& params,
                                         const std::vector<DType>& input_types,
                                         const std::vector<std::vector<int64_t>>& input_shapes);

/// Runs string step `kind`, writing its output into the memory `allocate` gives it (text
/// into `store`); returns its shape.
std::vector<int64_t> run_string_step(StepKind kind, const std::vector<int64_t>& params,
                                     const std::vector<std::string>& strings,
                                     const ConstView& input, const OutputAllocator& allocate,
                                     StringStore& store);

}  // namespace tessel::runtime
