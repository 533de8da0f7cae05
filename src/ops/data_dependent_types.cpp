// largest_outputs: runtime::data_dependent_outputs in graph types.
#include "ops/data_dependent_types.h"

#include "runtime/data_dependent.h"
#include "runtime/error.h"

namespace tessel::ops {

std::vector<graph::TensorType> largest_outputs(const OpContext& ctx,
                                               const DataDependentStep& step) {
  std::vector<runtime::DType> dtypes;
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    dtypes.push_back(graph::to_runtime_dtype(ctx.input_type(i).dtype));
    shapes.push_back(ctx.input_shape(i));
  }
  runtime::DataDependentOutputs out;
  try {
    out = runtime::data_dependent_outputs(step.kind, step.params, dtypes, shapes);
  } catch (const runtime::Error& e) {
    ctx.fail(e.what());
  }
  std::vector<graph::TensorType> types;
  for (size_t k = 0; k < out.dtypes.size(); ++k)
    types.push_back(graph::TensorType::of(graph::to_data_type(out.dtypes[k]), out.capacities[k]));
  return types;
}

}  // namespace tessel::ops
