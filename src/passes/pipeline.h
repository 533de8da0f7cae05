// The graph optimisation pipeline: a plain list of named passes and a small driver that
// can verify the graph after each pass, print it, time each pass and stop after a named one.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "target/target.h"

namespace tessel::passes {

/// One graph pass.
struct Pass {
  std::string name;
  std::function<graph::Graph(const graph::Graph&)> run;
};

struct PipelineOptions {
  /// When set, the graph is printed here after each pass (only after the passes named
  /// `print_after` when that is set); a pass that changed nothing prints one line.
  std::ostream* print_after_each = nullptr;
  std::string print_after;
  /// When set, the pipeline stops after the first pass of this name (CompileError when no
  /// pass has it).
  std::string stop_after;
  /// graph::verify after each pass.
  bool verify = true;
  /// When set, one line per pass with its time in milliseconds.
  std::ostream* timing = nullptr;
};

/// `graph` through `passes` in order.
graph::Graph run_pipeline(const graph::Graph& graph, const std::vector<Pass>& passes,
                          const PipelineOptions& options = {});

/// Which optional passes default_pipeline includes.
struct PassSelection {
  /// convert_conv_layout: convolutions in the blocked layout NCHW[x]c.
  bool blocked_layout = true;
  /// With it, Winograd convolutions where convert_conv_layout chooses them.
  bool winograd = true;
};

/// tessel's graph optimisations: fold_constants (types and constants), CSE, DCE,
/// rewrite(default_rules()), then fold_constants, CSE, DCE again for what the rules
/// produced, convert_conv_layout (when selected), mask_run_time_padding and infer_types.
/// Assumes static input shapes (specialize_inputs); guarantees complete static types on
/// every value.
std::vector<Pass> default_pipeline(const target::Target& target,
                                   const PassSelection& selection = {});

}  // namespace tessel::passes
