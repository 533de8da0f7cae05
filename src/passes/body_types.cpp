// typed_body and the passes' BodyTyper.
#include "passes/body_types.h"

#include "passes/fold_constants.h"
#include "passes/specialize_inputs.h"

namespace tessel::passes {

graph::Graph typed_body(const graph::Graph& body, const std::vector<graph::TensorType>& input_types,
                        const std::vector<const runtime::NDArray*>& input_values) {
  return fold_constants(specialize_inputs(body, input_types, input_values, false));
}

const ops::BodyTyper& body_typer() {
  static const ops::BodyTyper typer = [](const graph::Graph& body,
                                         const std::vector<graph::TensorType>& input_types,
                                         const std::vector<const runtime::NDArray*>& input_values) {
    graph::Graph typed = typed_body(body, input_types, input_values);
    std::vector<graph::TensorType> types;
    for (const graph::Value* out : typed.outputs()) types.push_back(out->type);
    return types;
  };
  return typer;
}

}  // namespace tessel::passes
