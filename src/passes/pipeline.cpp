// run_pipeline and default_pipeline.
#include "passes/pipeline.h"

#include <chrono>

#include "passes/convert_conv_layout.h"
#include "passes/eliminate_common_subexpressions.h"
#include "passes/eliminate_dead_code.h"
#include "passes/fold_constants.h"
#include "passes/graph_builder.h"
#include "passes/infer_types.h"
#include "passes/mask_run_time_padding.h"
#include "passes/rewrite.h"
#include "passes/rules/rules.h"
#include "support/error.h"

namespace tessel::passes {

namespace {

void print(const PipelineOptions& options, const Pass& pass, const std::string& before,
           const std::string& after) {
  if (!options.print_after_each) return;
  if (!options.print_after.empty() && options.print_after != pass.name) return;
  std::ostream& os = *options.print_after_each;
  if (before == after)
    os << "// after " << pass.name << ": unchanged\n";
  else
    os << "// after " << pass.name << "\n" << after;
}

}  // namespace

graph::Graph run_pipeline(const graph::Graph& graph, const std::vector<Pass>& passes,
                          const PipelineOptions& options) {
  if (!options.stop_after.empty()) {
    bool known = false;
    for (const Pass& pass : passes) known |= pass.name == options.stop_after;
    if (!known) TESSEL_USER_ERROR("stop_after: no pass is named '", options.stop_after, "'");
  }
  bool printing = options.print_after_each != nullptr;
  std::string text = printing ? graph::to_string(graph) : "";
  graph::Graph current;
  const graph::Graph* input = &graph;
  for (const Pass& pass : passes) {
    auto start = std::chrono::steady_clock::now();
    current = pass.run(*input);
    input = &current;
    if (options.timing) {
      std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
      *options.timing << pass.name << ": " << ms.count() << " ms\n";
    }
    if (options.verify) graph::verify(current);
    if (printing) {
      std::string after = graph::to_string(current);
      print(options, pass, text, after);
      text = std::move(after);
    }
    if (pass.name == options.stop_after) break;
  }
  if (input == &graph) return copy_graph(graph);
  return current;
}

std::vector<Pass> default_pipeline(const target::Target& target, const PassSelection& selection) {
  std::vector<Pass> passes = {
      {"fold_constants", fold_constants},
      {"eliminate_common_subexpressions", eliminate_common_subexpressions},
      {"eliminate_dead_code", eliminate_dead_code},
      {"rewrite", [](const graph::Graph& g) { return rewrite(g, default_rules()); }},
      {"fold_constants", fold_constants},
      {"eliminate_common_subexpressions", eliminate_common_subexpressions},
      {"eliminate_dead_code", eliminate_dead_code},
  };
  if (selection.blocked_layout) {
    ConvLayoutOptions layout;
    layout.winograd = selection.winograd;
    passes.push_back({"convert_conv_layout", [layout, target](const graph::Graph& g) {
                        return convert_conv_layout(g, target, layout);
                      }});
    // The blocked forms of constant operands (a per-channel scale) are constants too; a
    // channel gather another one reads through goes when nothing else reads it.
    passes.push_back({"fold_constants", fold_constants});
    passes.push_back({"eliminate_dead_code", eliminate_dead_code});
  }
  passes.push_back({"mask_run_time_padding", mask_run_time_padding});
  passes.push_back({"infer_types", infer_types});
  return passes;
}

}  // namespace tessel::passes
