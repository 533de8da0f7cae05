// Registration functions of the nn operator groups, called by register_nn_ops.
#pragma once

#include "ops/registry.h"

namespace tessel::ops::nn {

/// MatMul, Gemm.
void register_matmul_ops(OpRegistry& registry);
/// Einsum.
void register_einsum_op(OpRegistry& registry);
/// Conv, ConvTranspose.
void register_conv_ops(OpRegistry& registry);
/// tessel's blocked-layout operators: LayoutToNCHWc, LayoutFromNCHWc, Conv2dNCHWc.
void register_layout_ops(OpRegistry& registry);
/// MaxPool, AveragePool, LpPool and their global forms.
void register_pool_ops(OpRegistry& registry);
/// MaxUnpool.
void register_max_unpool_op(OpRegistry& registry);
/// RoiAlign.
void register_roi_align_op(OpRegistry& registry);
/// Det.
void register_det_op(OpRegistry& registry);
/// RNN, GRU, LSTM (type inference only: the graph rewrite unrolls them).
void register_recurrent_ops(OpRegistry& registry);
/// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear.
void register_quantize_ops(OpRegistry& registry);
/// MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv.
void register_quantized_compute_ops(OpRegistry& registry);

}  // namespace tessel::ops::nn
