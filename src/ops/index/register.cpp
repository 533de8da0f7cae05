// Registers the index operators: gathers, scatters, Pad, DepthToSpace / SpaceToDepth,
// ReverseSequence, Compress, Resize / Upsample, GridSample, NonZero, Unique and
// NonMaxSuppression (run by the runtime), and tessel.RunTimeExtent / tessel.MaskPadding.
#include "ops/index/index_common.h"

namespace tessel::ops {

void register_index_ops(OpRegistry& registry) {
  index::register_gather_ops(registry);
  index::register_scatter_ops(registry);
  index::register_pad_ops(registry);
  index::register_depth_space_ops(registry);
  index::register_reverse_sequence_ops(registry);
  index::register_compress_ops(registry);
  index::register_resize_ops(registry);
  index::register_grid_sample_ops(registry);
  index::register_data_dependent_ops(registry);
  index::register_padding_mask_ops(registry);
}

}  // namespace tessel::ops
