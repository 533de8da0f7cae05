// The library API of the compiler: compile a model file, write it as a library, load a
// library or compile a model to run in this process. The command line and the Python
// package call these; neither holds compile logic of its own.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "api/input_shapes.h"
#include "autotune/apply_records.h"
#include "compiler/compile_model.h"
#include "runtime/model.h"

namespace tessel::api {

struct CompileRequest {
  InputShapes inputs;
  /// Target, threads, passes, fusion; options.build.target is the machine compiled for.
  compiler::CompileOptions options;
  /// A tuning records database (tessel tune): each kernel takes its best record's schedule
  /// for the target and thread count. Empty: the default schedules.
  std::string records;
};

struct CompiledFile {
  compiler::CompiledModel model;
  /// One entry per distinct kernel when the request named records: tuned or not, and why.
  std::vector<autotune::AppliedRecord> applied;
};

/// The ONNX model at `path` imported, specialised to the request's input shapes and
/// compiled. CompileError for a bad model, bad shapes, or records that do not exist.
CompiledFile compile_file(const std::string& path, const CompileRequest& request);

/// `model` written as one shared library (kernels, weights, plan, target) at `path`.
void export_library(const compiler::CompiledModel& model, const std::string& path,
                    const CompileRequest& request);

/// A short name for reports: the directory of a "model.onnx", else the file's stem.
std::string model_name(const std::string& path);

/// A model ready to run: a library (path ending in .so) loaded with the runtime, or an ONNX
/// file compiled by the request and generated in this process. A library is code: load
/// only libraries you trust.
runtime::Model load_model(const std::string& path, const CompileRequest& request = {});

}  // namespace tessel::api
