// The pooling mechanism shared by MaxPool, AveragePool, LpPool and their global forms: one
// reduction over the window taps that lie inside the input.
#pragma once

#include <string>

#include "ops/nn/window.h"
#include "te/compute.h"

namespace tessel::ops::nn {

enum class PoolKind : uint8_t { Max, Average, Lp };

struct PoolSpec {
  PoolKind kind = PoolKind::Max;
  /// Average: divide by the taps inside the padded input, not only inside the input.
  bool count_include_pad = false;
  /// Lp: the norm's exponent.
  double p = 2;
};

/// The pooling of x [N, C, spatial...] over the windows of `w`: the max, the average or the
/// Lp norm of the taps inside the input (padding is never read). Average and Lp reduce in
/// a stage "<name>.sum" and finish in "<name>"; Max is the one stage "<name>".
te::Tensor pool_nd(const te::Tensor& x, const Window& w, const PoolSpec& spec,
                   const std::string& name);

/// The window of a global pooling over spatial extents `input`: one window covering them.
Window global_window(const std::vector<int64_t>& input);

/// For max pooling `y` = pool_nd(x, w, Max): the index of the first tap of each window that
/// holds the maximum, in x flattened row-major over [N, C] and row- or column-major over the
/// spatial dimensions (int64).
te::Tensor max_pool_indices(const te::Tensor& x, const te::Tensor& y, const Window& w,
                            bool column_major, const std::string& name);

}  // namespace tessel::ops::nn
