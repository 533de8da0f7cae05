// Softmax over the last axis of a 2-d tensor: its tensor expression (its CPU schedule:
// schedules/cpu/softmax.h).
#pragma once

#include <string>

#include "te/compute.h"

namespace tessel::ops {

/// y[n, d] = exp(x[n, d] - max_k x[n, k]) / sum_k exp(x[n, k] - max_k x[n, k]), built from
/// four stages: "<name>.max", "<name>.exp", "<name>.sum" and the output "<name>".
te::Tensor softmax(const te::Tensor& x, const std::string& name = "softmax");

}  // namespace tessel::ops
