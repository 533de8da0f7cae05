// GraphExecutor: input checks, the value-dependent inputs, and the cache of compiled models.
#include "compiler/graph_executor.h"

#include <set>
#include <sstream>

#include "executor/graph_inputs.h"
#include "support/error.h"
#include "support/temp_file.h"

namespace tessel::compiler {
namespace {

/// `model` written as a compiled model library and loaded back.
runtime::Model through_library(const CompiledModel& model, const driver::BuildOptions& options) {
  TemporaryFile library(".so");
  export_model(model, library.path(), options);
  return runtime::Model::load(library.path());  // the loader keeps its mapping
}

}  // namespace

GraphExecutor::GraphExecutor(const graph::Graph& graph, CompileOptions options, Backend backend,
                             bool symbolic_batch)
    : graph_(graph), options_(std::move(options)), backend_(backend),
      symbolic_batch_(symbolic_batch) {
  graph::verify(graph_);
  value_dependent_ = executor::value_dependent_inputs(graph_);
}

GraphExecutor::~GraphExecutor() = default;

GraphExecutor::Compiled& GraphExecutor::compiled_for(
    const std::vector<const runtime::NDArray*>& inputs) {
  const auto& graph_inputs = graph_.inputs();
  std::string key = executor::compilation_key(graph_, value_dependent_, inputs);
  std::vector<graph::TensorType> types;
  std::vector<const runtime::NDArray*> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    types.push_back(
        graph::TensorType::of(graph::to_data_type(inputs[i]->dtype()), inputs[i]->shape()));
    values.push_back(value_dependent_[i] ? inputs[i] : nullptr);
    const graph::TensorType& declared = graph_inputs[i]->type;
    if (symbolic_batch_ && !value_dependent_[i] && declared.rank() > 0 &&
        !declared.dims[0].symbol.empty())
      types.back().dims[0] = declared.dims[0];
  }
  // With a symbolic batch, the key is the types with their symbols (and the values the
  // compilation takes): one model serves every batch size.
  if (symbolic_batch_) {
    key.clear();
    for (size_t i = 0; i < types.size(); ++i) {
      key += types[i].to_string() + "|";
      if (values[i])
        key.append(static_cast<const char*>(values[i]->data()),
                   static_cast<size_t>(values[i]->nbytes()));
    }
  }
  auto& compiled = compiled_[key];
  if (!compiled) {
    CompiledModel model = compile_model(graph_, types, values, options_);
    auto result = std::make_unique<Compiled>();
    result->stats = model.stats;
    // The model's inputs are the graph inputs that were not specialised into constants.
    for (int32_t id : model.plan.inputs) {
      const std::string& name = model.plan.tensors[id].name;
      size_t index = 0;
      while (index < graph_inputs.size() && graph_inputs[index]->name != name) ++index;
      TESSEL_ICHECK(index < graph_inputs.size(), "compiled input '", name,
                    "' is no input of graph '", graph_.name, "'");
      result->graph_input.push_back(index);
    }
    result->model = std::make_unique<runtime::Model>(
        backend_ == Backend::Jit ? jit_model(std::move(model), options_.build)
                                 : through_library(model, options_.build));
    compiled = std::move(result);
  }
  last_ = compiled.get();
  return *compiled;
}

void GraphExecutor::prepare(const std::vector<const runtime::NDArray*>& inputs) {
  compiled_for(inputs);
}

std::vector<runtime::NDArray> GraphExecutor::run(const std::vector<const runtime::NDArray*>& inputs) {
  Compiled& compiled = compiled_for(inputs);
  std::vector<const runtime::NDArray*> model_inputs;
  for (size_t index : compiled.graph_input) model_inputs.push_back(inputs[index]);
  return compiled.model->run(model_inputs);
}

}  // namespace tessel::compiler
