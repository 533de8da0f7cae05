// OpRegistry: the table of operators, filled by each family's registration function.
#include "ops/registry.h"

#include "support/error.h"

namespace tessel::ops {

const char* pattern_name(PatternKind kind) {
  switch (kind) {
    case PatternKind::Elementwise:
      return "elementwise";
    case PatternKind::Broadcast:
      return "broadcast";
    case PatternKind::Injective:
      return "injective";
    case PatternKind::Reduction:
      return "reduction";
    case PatternKind::OutFusable:
      return "out-fusable";
    case PatternKind::Opaque:
      return "opaque";
  }
  return "?";
}

const OpRegistry& OpRegistry::global() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    register_elementwise_ops(r);
    register_reduction_ops(r);
    register_nn_ops(r);
    register_shape_ops(r);
    register_index_ops(r);
    register_control_flow_ops(r);
    register_sequence_ops(r);
    register_signal_ops(r);
    register_text_ops(r);
    register_training_ops(r);
    return r;
  }();
  return registry;
}

void OpRegistry::add(OpDef def) {
  TESSEL_ICHECK(!def.name.empty(), "an operator without a name");
  TESSEL_ICHECK(def.infer != nullptr, "operator ", def.name, " has no type inference");
  TESSEL_ICHECK(def.fold == nullptr || (def.compute == nullptr && def.data_dependent == nullptr),
                "operator ", def.name, " has a fold and a compute or data-dependent step");
  TESSEL_ICHECK(!defs_.count(def.name), "operator ", def.name, " is registered twice");
  std::string name = def.name;
  defs_.emplace(std::move(name), std::move(def));
}

const OpDef* OpRegistry::find(const std::string& name) const {
  auto it = defs_.find(name);
  return it == defs_.end() ? nullptr : &it->second;
}

std::vector<const OpDef*> OpRegistry::all() const {
  std::vector<const OpDef*> result;
  for (const auto& [name, def] : defs_) result.push_back(&def);
  return result;
}

}  // namespace tessel::ops
