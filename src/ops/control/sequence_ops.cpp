// The sequence and optional operators. They are resolved when a model is compiled
// (passes/sequences.h): a sequence whose structure is known at compile time becomes its
// elements, and each of these operators the tensors it selects. Their entries here give
// their signatures (attributes, and the positions that must be known at compile time, which
// makes a graph input that gives one part of the compilation's key); type inference
// reaching one means it could not be resolved.
#include "ops/registry.h"

namespace tessel::ops {

namespace {

using graph::Attribute;
using graph::AttrKind;

OpDef sequence_def(const std::string& name, int since, std::vector<AttrSpec> attributes,
                   std::vector<int> value_inputs = {}) {
  OpDef def;
  def.name = name;
  def.since_version = since;
  def.attributes = std::move(attributes);
  def.pattern = PatternKind::Opaque;
  def.value_inputs = std::move(value_inputs);
  def.infer = [](const OpContext& ctx) -> std::vector<graph::TensorType> {
    ctx.fail("sequences and optionals are resolved at compile time, and this one could not be: "
             "its inputs are not sequences or optionals whose structure the compiler knows");
  };
  return def;
}

}  // namespace

void register_sequence_ops(OpRegistry& registry) {
  registry.add(sequence_def("SequenceConstruct", 11, {}));
  registry.add(sequence_def("SequenceEmpty", 11, {{"dtype", AttrKind::Int, std::nullopt}}));
  registry.add(sequence_def("SequenceInsert", 11, {}, {2}));
  registry.add(sequence_def("SequenceErase", 11, {}, {1}));
  registry.add(sequence_def("SequenceAt", 11, {}, {1}));
  registry.add(sequence_def("SequenceLength", 11, {}));
  registry.add(sequence_def("ConcatFromSequence", 11,
                            {{"axis", AttrKind::Int, std::nullopt, true},
                             {"new_axis", AttrKind::Int, Attribute::of_int(0)}}));
  registry.add(sequence_def("SplitToSequence", 11,
                            {{"axis", AttrKind::Int, Attribute::of_int(0)},
                             {"keepdims", AttrKind::Int, Attribute::of_int(1)}},
                            {1}));
  registry.add(sequence_def("SequenceMap", 17, {{"body", AttrKind::Graph, std::nullopt, true}}));
  registry.add(sequence_def("Optional", 15, {}));  // its "type" is dropped on import
  registry.add(sequence_def("OptionalHasElement", 15, {}));
  registry.add(sequence_def("OptionalGetElement", 15, {}));
}

}  // namespace tessel::ops
