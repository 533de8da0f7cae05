// Registers the nn operators: contractions, determinants, convolutions, poolings, region
// pooling, recurrent cells and quantisation.
#include "ops/nn/nn_ops.h"

namespace tessel::ops {

void register_nn_ops(OpRegistry& registry) {
  nn::register_matmul_ops(registry);
  nn::register_einsum_op(registry);
  nn::register_conv_ops(registry);
  nn::register_layout_ops(registry);
  nn::register_pool_ops(registry);
  nn::register_max_unpool_op(registry);
  nn::register_roi_align_op(registry);
  nn::register_det_op(registry);
  nn::register_recurrent_ops(registry);
  nn::register_quantize_ops(registry);
  nn::register_quantized_compute_ops(registry);
}

}  // namespace tessel::ops
