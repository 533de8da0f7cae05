// Registration functions of the reduction operator groups, called by register_reduction_ops.
#pragma once

#include "ops/registry.h"

namespace tessel::ops::reduction {

/// ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
/// ReduceLogSum, ReduceLogSumExp, ReduceSumSquare.
void register_reduce_ops(OpRegistry& registry);
/// ArgMax, ArgMin.
void register_arg_reduce_ops(OpRegistry& registry);
/// Softmax, LogSoftmax, Hardmax.
void register_softmax_ops(OpRegistry& registry);
/// CumSum.
void register_cumsum_op(OpRegistry& registry);
/// TopK.
void register_topk_op(OpRegistry& registry);
/// BatchNormalization, InstanceNormalization, LayerNormalization, MeanVarianceNormalization.
void register_moment_norm_ops(OpRegistry& registry);
/// LRN, LpNormalization.
void register_local_norm_ops(OpRegistry& registry);
/// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss.
void register_loss_ops(OpRegistry& registry);
/// TfIdfVectorizer (integer tokens).
void register_tfidf_op(OpRegistry& registry);

}  // namespace tessel::ops::reduction
