// Softmax, LogSoftmax and Hardmax over a set of axes (a reduction, then an element-wise
// normalisation). Shared with the softmax cross-entropy loss.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "te/compute.h"

namespace tessel::ops::reduction {

enum class SoftmaxKind { Softmax, LogSoftmax, Hardmax };

/// The `kind` normalisation of `x` (a float tensor) over `axes` (sorted, non-empty), each
/// group of elements that agree on the other axes normalised on its own; numerically stable
/// (the group's maximum is subtracted first). Float16 computes in float32. The output is
/// named `name`, its intermediate stages "<name>.max", "<name>.exp", "<name>.sum",
/// "<name>.first".
te::Tensor softmax_over(SoftmaxKind kind, const te::Tensor& x, const std::vector<int64_t>& axes,
                        const std::string& name);

}  // namespace tessel::ops::reduction
