// What the compile, inspect and bench commands share: reading an ONNX model with the
// input shapes the user fixes, the compile options every command accepts, and a model
// ready to run from either an .onnx file (compiled here, JIT) or a compiled library (.so).
#pragma once

#include <memory>
#include <string>
#include <vector>

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
  std::vector<std::pair<std::string, std::vector<graph::Dim>>> input_shapes;
  /// --input-shape NAME=[2x3,5] for a sequence (its elements' shapes; [] when empty),
  /// NAME=none for an empty optional, NAME=[2x3] (a list, for an optional sequence) for an
  /// optional's value.
  struct Elements {
    bool present = true;
    std::vector<std::vector<graph::Dim>> shapes;
  };
  std::vector<std::pair<std::string, Elements>> element_shapes;
  compiler::CompileOptions options;
  std::string print_after;
  std::string records;

  /// Consumes args[i] (and its value) when it is one of these flags; returns whether it did.
  /// Throws CompileError for a malformed value.
  bool parse(const std::vector<std::string>& args, size_t& i);
};

/// The value following flag args[i] (consumed); CompileError when there is none.
const std::string& value_of(const std::vector<std::string>& args, size_t& i);
/// A non-negative integer flag value; CompileError naming the flag otherwise.
int parse_count(const std::string& flag, const std::string& text);

/// The types of the graph's inputs: the declared ones, with the shapes given by
/// --input-shape (their symbols kept) and every other symbolic dimension set to 1. CompileError naming the input
/// for an unknown name or a rank that differs from the declared one.
std::vector<graph::TensorType> input_types(const graph::Graph& graph, const CompileFlags& flags);

/// The ONNX file imported; its sequence and optional inputs given as their elements
/// (passes::flatten_structured_inputs), whose shapes --input-shape must give. CompileError
/// naming the input when they are not given or do not fit its kind.
graph::Graph import_model(const std::string& path, const CompileFlags& flags);

/// The ONNX file compiled with these flags (progress to stderr when `verbose`); with
/// --records, the kernels take their best records' schedules and stderr says which did.
compiler::CompiledModel compile_onnx(const std::string& path, const CompileFlags& flags,
                                     bool verbose);

/// A runnable model: `path` ending in .so is loaded with the runtime; anything else is read
/// as ONNX, compiled and JIT-compiled.
runtime::Model load_model(const std::string& path, const CompileFlags& flags, bool verbose);

/// A short name for reports: the directory of a "model.onnx", else the file's stem.
std::string model_name(const std::string& path);

}  // namespace tessel::cli
