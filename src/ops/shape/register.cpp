// Registers the shape / data-movement operators, group by group.
#include "ops/registry.h"
#include "ops/shape/shape_ops.h"

namespace tessel::ops {

void register_shape_ops(OpRegistry& registry) {
  shape::register_metadata_ops(registry);
  shape::register_generator_ops(registry);
  shape::register_diagonal_ops(registry);
  shape::register_reshape_ops(registry);
  shape::register_transpose_ops(registry);
  shape::register_concat_split_ops(registry);
  shape::register_slice_ops(registry);
  shape::register_broadcast_ops(registry);
}

}  // namespace tessel::ops
