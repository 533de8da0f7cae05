// Schedules generated from the compute alone: rules over the stages of any tensor-expression
// DAG, with knobs, so that every fused group can be tuned, not only those whose anchor
// operator declares a template (ops/knobs.h).
//
// The rules, applied to a DAG whose chain intermediates are already inlined:
//  - an element-wise intermediate is inlined into its readers, or kept (knob `<stage>.inline`);
//  - the output gets a multi-level tiling of its axes: the outer loops (rows and column
//    tiles) fused into one parallel loop or the rows alone (`parallel_tiles`), a register
//    tile inside of `tile_j` columns in vectors of the target's width, `tile_i` rows and,
//    around a vectorized reduction, `tile_a<d>` along each outer axis d, all unrolled;
//  - the reduction that feeds the tile -- the output's own (written through a local
//    accumulator, `cache_write`) or a producer of the output's shape (a fused epilogue,
//    `fuse_reduction`) -- is computed inside each tile, its reduction loops outside the
//    register tile, the innermost unrolled by `unroll_k`;
//  - a reduction whose result is narrower than a vector but whose innermost reduction is
//    long (row statistics: softmax's max and sum, LayerNorm's moments) is factored over
//    vector lanes (`rfactor`): partial results in a vector, combined at the end;
//  - every other stage is computed per row tile of the output or at the root (`<stage>.at`),
//    its innermost loop vectorized.
// Each knob lists its candidate values with the rule's default first, so the default point is
// the rules' own choice. A point of the space is a schedule, recorded as a Trace like any other.
#pragma once

#include <string>

#include "ops/knobs.h"
#include "schedule/schedule.h"
#include "target/target.h"

namespace tessel::ops {

/// Hands the rules their knob values: in declaring mode every knob takes its default and is
/// added to space(); with chosen values, the chosen one (the default when unset).
class GeneratedKnobs {
 public:
  GeneratedKnobs() = default;
  explicit GeneratedKnobs(const KnobValues& chosen) : chosen_(&chosen) {}

  /// The value of knob `name` among `values` (first: the default). A knob with one
  /// candidate is not a choice and is not declared.
  int64_t choose(const std::string& name, const std::vector<int64_t>& values);
  /// Knobs declared so far; template_name is set by schedule_generated.
  TuningSpace& space() { return space_; }

 private:
  const KnobValues* chosen_ = nullptr;
  TuningSpace space_;
};

/// Schedules every stage of `s` by the rules above at the values `knobs` hands out, and sets
/// knobs.space().template_name to "auto.<rule>" (the rule that shaped the output:
/// injective, tiled_reduction, row_reduction or multi_output). Schedule errors propagate.
void schedule_generated(schedule::Schedule& s, GeneratedKnobs& knobs, const target::Target& target);

/// Whether a reduction's innermost reduction loop is worth factoring over vector lanes: its
/// float32 result is narrower than a vector and the loop holds two vectors or more.
bool factorable_over_lanes(const te::OperationNode& op, int64_t lanes);
/// Splits the innermost reduction loop of `stage` by the vector width and factors the inner
/// part out: the new stage's partial results, one per lane, are computed in vectors with the
/// other reduction loops outside. Returns the new stage's name.
std::string factor_over_lanes(schedule::Schedule& s, const std::string& stage, int64_t lanes);

}  // namespace tessel::ops
