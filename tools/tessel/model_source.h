// What the compile, inspect and bench commands share: the flags every command that compiles
// accepts, read into an api::CompileRequest, and the library API's compile and load with
// the command line's printing (progress, --print-after, the records applied).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api/compile.h"
#include "compiler/compile_model.h"
#include "graph/graph.h"
#include "runtime/model.h"

namespace tessel::cli {

/// Options of the commands that compile: --input-shape NAME=1x3x224x224 (repeatable; a
/// leading dimension given as a name, NAME=Nx3x224x224, stays symbolic: the model then runs
/// any batch size; a sequence input takes its elements' shapes, NAME=[2x3,5]),
/// --no-fusion, --no-blocked-layout, --target T, --threads N, --print-after PASS|all,
/// --records FILE (tuning records whose best schedules the kernels take).
struct CompileFlags {
  api::CompileRequest request;
  std::string print_after;

  /// Consumes args[i] (and its value) when it is one of these flags; returns whether it did.
  /// Throws CompileError for a malformed value.
  bool parse(const std::vector<std::string>& args, size_t& i);
};

/// The value following flag args[i] (consumed); CompileError when there is none.
const std::string& value_of(const std::vector<std::string>& args, size_t& i);
/// A non-negative integer flag value; CompileError naming the flag otherwise.
int parse_count(const std::string& flag, const std::string& text);

/// The ONNX file compiled with these flags (progress to stderr when `verbose`); with
/// --records, the kernels take their best records' schedules and stderr says which did.
compiler::CompiledModel compile_onnx(const std::string& path, const CompileFlags& flags,
                                     bool verbose);

/// A runnable model (api::load_model): `path` ending in .so is loaded with the runtime;
/// anything else is read as ONNX, compiled and JIT-compiled.
runtime::Model load_model(const std::string& path, const CompileFlags& flags, bool verbose);

}  // namespace tessel::cli
