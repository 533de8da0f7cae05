// The default CPU schedule of contraction stages (products, convolutions and poolings
// without a schedule of their own): a register tile of outputs accumulated over the whole
// reduction, and its tuning template.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schedule/schedule.h"
#include "schedules/knobs.h"
#include "target/target.h"
#include "te/operation.h"

namespace tessel::schedules {

/// The knobs of schedule_contraction's register tile (0: the default size).
struct ContractionConfig {
  int64_t tile_rows = 0;     ///< rows of the next-to-last axis
  int64_t tile_vectors = 0;  ///< vectors of the innermost axis
};

/// The contraction template `template_name` ("pool", "batched_matmul", ...) for a float32
/// output of `output_shape`: knobs tile_rows and tile_vectors.
TuningSpace contraction_tuning_space(const std::string& template_name,
                                     const std::vector<int64_t>& output_shape,
                                     const target::Target& target);
/// The configuration with the knobs chosen in `knobs`.
ContractionConfig contraction_config(const KnobValues& knobs);

/// The default schedule of a stage that reduces (a matmul, a convolution, a pooling): its
/// spatial loops fused into one loop, run in parallel when the work (output elements times
/// reduction extent) is large; the reduction inside. A float32 reduction without condition
/// accumulates a register tile of outputs across the whole reduction: by default up to 4
/// rows of the next-to-last axis x 2 vectors of the innermost one (8 independent
/// accumulators).
void schedule_contraction(schedule::Schedule& s, const te::Tensor& tensor,
                          const target::Target& target, const ContractionConfig& config = {});

}  // namespace tessel::schedules
