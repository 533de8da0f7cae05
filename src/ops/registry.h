// OpRegistry: the table of supported graph operators (ONNX domain), built once.
//
// Each family of operators registers itself from its own file through one function
// declared here; the registry calls them in a fixed order (no static initialisers, so the
// table is deterministic and survives static linking).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ops/op_def.h"

namespace tessel::ops {

class OpRegistry {
 public:
  /// The registry with every operator tessel supports.
  static const OpRegistry& global();

  /// Adds `def` (InternalError when the name is taken or the record is incomplete).
  void add(OpDef def);
  /// The operator `name` of the ONNX domain, or nullptr.
  const OpDef* find(const std::string& name) const;
  /// All operators, sorted by name.
  std::vector<const OpDef*> all() const;

 private:
  std::map<std::string, OpDef> defs_;
};

// One registration function per family of operators (each in its own file).
void register_elementwise_ops(OpRegistry& registry);
void register_reduction_ops(OpRegistry& registry);
void register_nn_ops(OpRegistry& registry);
void register_shape_ops(OpRegistry& registry);
void register_index_ops(OpRegistry& registry);
void register_control_flow_ops(OpRegistry& registry);
void register_sequence_ops(OpRegistry& registry);
void register_signal_ops(OpRegistry& registry);
void register_text_ops(OpRegistry& registry);
/// Optimizer steps of domain ai.onnx.preview.training.
void register_training_ops(OpRegistry& registry);

}  // namespace tessel::ops
