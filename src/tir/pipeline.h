// The low-level pass pipeline: the loop IR passes, in order, with a small driver that can
// print the IR after chosen passes, time and verify each pass, and stop after one.
//
// The pipeline is a plain array of {name, function} (see pipeline.cpp):
//   storage_flatten, simplify, loop_partition, simplify, vectorize, unroll, expand_math,
//   simplify.
// A name that appears twice (simplify) is printed after each of its runs; stop_after stops
// after its first run.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "ir/stmt.h"

namespace tessel::tir {

/// How run_passes reports on and limits the pipeline.
struct PassOptions {
  /// Print the IR after these passes when they changed it ("// after <pass>" then the IR);
  /// "all" names every pass.
  std::vector<std::string> print_after;
  /// Stop after the first run of this pass (empty: run the whole pipeline).
  std::string stop_after;
  /// Verify the input and the IR after every pass (verify_func); a failure names the pass.
  bool verify = false;
  /// Report each pass's wall time ("// time <pass>: <ms> ms").
  bool time_passes = false;
  /// Where printing and timings go; std::cerr when null.
  std::ostream* log = nullptr;
};

/// Runs the pipeline on `f`. CompileError when print_after or stop_after names an unknown
/// pass (the message lists the valid names).
ir::PrimFunc run_passes(ir::PrimFunc f, const PassOptions& opts = {});

/// The passes in pipeline order (a pass that runs twice appears twice).
std::vector<std::string> pass_names();

}  // namespace tessel::tir
