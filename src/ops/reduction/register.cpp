// Registers the reduction family: reductions, arg-reductions, softmax, scans, top-k,
// normalisations, losses and n-gram counts (one file per group).
#include "ops/reduction/reduction_ops.h"

namespace tessel::ops {

void register_reduction_ops(OpRegistry& registry) {
  reduction::register_reduce_ops(registry);
  reduction::register_arg_reduce_ops(registry);
  reduction::register_softmax_ops(registry);
  reduction::register_cumsum_op(registry);
  reduction::register_topk_op(registry);
  reduction::register_moment_norm_ops(registry);
  reduction::register_local_norm_ops(registry);
  reduction::register_loss_ops(registry);
  reduction::register_tfidf_op(registry);
}

}  // namespace tessel::ops
