// Schedule: how a tensor-expression DAG is computed, built by primitives that are each
// validated and recorded in a replayable Trace.
//
// A Schedule holds one Stage per operation reachable from its output tensors (producers
// first). Stages are referred to by Tensor or by name; loops by name (see stage.h).
// Every primitive checks its arguments and raises ScheduleError naming the stage and the
// loop before changing anything, so a failed primitive leaves the schedule as it was.
// Trace arguments of each primitive (JSON keys, in order):
//   split          stage, loop, factor            split_nparts  stage, loop, nparts
//   tile           stage, x, y, x_factor, y_factor
//   fuse           stage, outer, inner            reorder       stage, loops
//   parallel / vectorize / unroll                 stage, loop
//   prefetch       stage, loop, tensor
//   compute_at     stage, target, loop            compute_inline / compute_root  stage
//   cache_read     tensor, scope, readers[, layout]
//   cache_write    tensor, scope[, layout]        rfactor       tensor, loop, factor_axis
// A layout is {"splits": [[dim, factor], ...], "order": [...]}.
#pragma once

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "schedule/layout.h"
#include "schedule/stage.h"
#include "schedule/trace.h"
#include "te/operation.h"

namespace tessel::schedule {

/// Names a stage: by one of its tensors, or by name.
class StageRef {
 public:
  StageRef(const te::Tensor& tensor) : tensor_(tensor) {}
  StageRef(std::string name) : name_(std::move(name)) {}
  StageRef(const char* name) : name_(name) {}

 private:
  friend class Schedule;
  te::Tensor tensor_;
  std::string name_;
};

/// The four loops made by tile, outermost first in the new order.
struct TileLoops {
  std::string x_outer, y_outer, x_inner, y_inner;
};

/// Loop names are taken by value: callers may pass names held by the schedule itself
/// (e.g. `s.stage(x).leaves[0]`), which the primitive changes.
class Schedule {
 public:
  /// One stage per operation reachable from `outputs`, each computed at the root.
  explicit Schedule(std::vector<te::Tensor> outputs);

  const std::vector<te::Tensor>& outputs() const { return outputs_; }
  /// Every stage, producers before consumers.
  const std::vector<Stage>& stages() const { return stages_; }
  /// The stage named or computing the tensor; ScheduleError when there is none.
  const Stage& stage(const StageRef& ref) const;
  /// The stage computing `op` (any version of its operation), or nullptr.
  const Stage* stage_of(const te::OperationNode* op) const;
  /// The tensor named `name` (an output of some stage); ScheduleError when there is none.
  te::Tensor tensor(const std::string& name) const;
  /// Every primitive applied so far.
  const Trace& trace() const { return trace_; }

  // ---- loop transformations ----
  /// Splits leaf `loop` by `factor` (the inner extent); returns {outer, inner}.
  std::pair<std::string, std::string> split(const StageRef& stage, std::string loop,
                                            int64_t factor);
  /// Splits leaf `loop` into `nparts` outer iterations; returns {outer, inner}.
  std::pair<std::string, std::string> split_nparts(const StageRef& stage, std::string loop,
                                                   int64_t nparts);
  /// Splits x and y and puts the four loops x.outer, y.outer, x.inner, y.inner, in this
  /// order, in the places the splits left.
  TileLoops tile(const StageRef& stage, std::string x, std::string y, int64_t x_factor,
                 int64_t y_factor);
  /// Fuses adjacent leaves (outer immediately before inner); returns the fused loop.
  std::string fuse(const StageRef& stage, std::string outer, std::string inner);
  /// Puts the named leaves in the given order, in the positions they occupy.
  void reorder(const StageRef& stage, std::vector<std::string> loops);

  // ---- annotations ----
  void parallel(const StageRef& stage, std::string loop);
  void vectorize(const StageRef& stage, std::string loop);
  void unroll(const StageRef& stage, std::string loop);
  /// In each iteration of leaf `loop` of `stage`, prefetches into the L2 cache what the next
  /// iteration will read of `tensor` (a function argument or a stage computed at the root,
  /// read inside the loop by the stage or by stages computed at its inner loops), one cache
  /// line at a time spread evenly over the iterations of the serial loops inside: a kernel
  /// that sweeps a panel of weights many times then finds the next panel cached where it
  /// would otherwise wait for memory on its first sweep. The span between the first and
  /// the last element read is fetched. Results do not change. Not on a vectorized loop;
  /// the loop can no longer be split or fused. That something inside reads `tensor` is
  /// checked by lower() (ScheduleError otherwise).
  void prefetch(const StageRef& stage, std::string loop, const te::Tensor& tensor);

  // ---- where stages are computed ----
  /// Computes `stage`, over the region its consumers need, inside leaf `loop` of `target`,
  /// which must consume it, directly or through other stages (softmax attaches its max at
  /// the row loop of the output stage, which reads it through exp). That every consumer of
  /// `stage` then runs inside that loop is checked by lower() (ScheduleError otherwise).
  void compute_at(const StageRef& stage, const StageRef& target, std::string loop);
  /// Substitutes `stage` (no reduction, not an output) into its consumers.
  void compute_inline(const StageRef& stage);
  /// Computes `stage` at the root of the function over its whole shape.
  void compute_root(const StageRef& stage);

  // ---- new stages ----
  /// A stage "<tensor>.<scope>" copying `tensor` (stored in `layout`), read instead of it
  /// by `readers`. scope: "global", "local" or "shared".
  te::Tensor cache_read(const te::Tensor& tensor, const std::string& scope,
                        const std::vector<StageRef>& readers, const Layout& layout = {});
  /// A stage "<tensor>.<scope>" computing what the stage of `tensor` computed (stored in
  /// `layout`, whose splits must divide); that stage then copies from it. The stage must
  /// not have been transformed yet.
  te::Tensor cache_write(const te::Tensor& tensor, const std::string& scope,
                         const Layout& layout = {});
  /// Factors reduction leaf `loop` of the stage of `tensor` out into a new stage
  /// "<tensor>.rf", whose data-parallel axis at position `factor_axis` is that loop; the
  /// original stage then reduces over it (a new reduction loop of the same name). Resets
  /// the loops of the original stage, whose data-parallel loops must be untransformed.
  te::Tensor rfactor(const te::Tensor& tensor, std::string loop, int factor_axis = 0);

 private:
  Stage& mutable_stage(const StageRef& ref);
  /// The stage for a primitive that needs a compute (not a placeholder).
  Stage& compute_stage(const StageRef& ref, const char* primitive);
  void check_leaf(const Stage& stage, const std::string& loop) const;
  /// Checks that leaf `loop` can be split or fused: not annotated, holding no stage.
  void check_transformable(const Stage& stage, const std::string& loop,
                           const char* primitive) const;
  void check_new_loop(const Stage& stage, const std::string& loop) const;
  std::pair<std::string, std::string> do_split(Stage& stage, const std::string& loop,
                                               int64_t factor, bool by_nparts);
  void annotate(const StageRef& stage, const std::string& loop, ir::ForKind kind,
                const char* primitive);
  /// Whether `consumer` reads `producer`, directly or through other stages.
  bool depends_on(const Stage& consumer, const Stage& producer) const;
  /// Registers a stage (inserted at `position`) or a new version of a stage's operation.
  void insert_stage(size_t position, Stage stage);
  void register_op(const te::Operation& op, const std::string& stage);
  size_t position_of(const std::string& stage) const;
  std::string unique_stage_name(const std::string& base) const;
  void record(const char* primitive, json::Object args);

  std::vector<te::Tensor> outputs_;
  std::vector<Stage> stages_;
  std::unordered_map<const te::OperationNode*, std::string> op_stage_;
  /// Every operation version ever registered, kept alive so that op_stage_ keys stay valid.
  std::vector<te::Operation> ops_;
  Trace trace_;
};

/// The JSON form of a layout used in traces.
json::Value layout_to_json(const Layout& layout);

}  // namespace tessel::schedule
