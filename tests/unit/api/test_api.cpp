// The library API: an ONNX file compiled into a library, loaded and run; compiled for
// another target and run in process; bad input shapes and missing records refused; a model
// tuned into records that its compilation then applies. The expected outputs are the ONNX
// test data's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include "api/compile.h"
#include "api/tune.h"
#include "frontend/onnx_importer.h"
#include "support/error.h"
#include "target/parse_target.h"
#include "unit/target_test_util.h"

namespace tessel::api {
namespace {

namespace fs = std::filesystem;

const fs::path kCase = "/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding";

runtime::NDArray data_set_file(const std::string& name) {
  return frontend::load_tensor_file((kCase / "test_data_set_0" / name).string());
}

/// Runs `model` on the case's inputs and compares with its expected output.
void expect_case_output(runtime::Model& model) {
  runtime::NDArray x = data_set_file("input_0.pb"), w = data_set_file("input_1.pb");
  std::vector<runtime::NDArray> out = model.run({&x, &w});
  runtime::NDArray expected = data_set_file("output_0.pb");
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].shape(), expected.shape());
  for (int64_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(out[0].data_as<float>()[i], expected.data_as<float>()[i],
                1e-4 + 1e-4 * std::abs(expected.data_as<float>()[i]));
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

TEST(Api, CompilesAFileIntoALibraryThatLoadsAndRuns) {
  if (!fs::exists(kCase)) GTEST_SKIP() << "no ONNX test data at " << kCase;
  CompileRequest request;
  CompiledFile compiled = compile_file((kCase / "model.onnx").string(), request);
  EXPECT_TRUE(compiled.applied.empty());  // no records asked for
  EXPECT_GE(compiled.model.kernels.size(), 1u);
  std::string path =
      (fs::path(::testing::TempDir()) / ("tessel_api_" + std::to_string(getpid()) + ".so"))
          .string();
  export_library(compiled.model, path, request);
  runtime::Model model = load_model(path);
  expect_case_output(model);
  fs::remove(path);
}

TEST(Api, CompilesForEachVectorWidthAndRunsInProcess) {
  if (!fs::exists(kCase)) GTEST_SKIP() << "no ONNX test data at " << kCase;
  for (const char* description : tessel::testing::kVectorTargets) {
    CompileRequest request;
    request.options.build.target = target::parse_target(description);
    if (!target::runs_on_host(request.options.build.target))
      continue;  // skipped: tested where it runs
    runtime::Model model = load_model((kCase / "model.onnx").string(), request);
    expect_case_output(model);
  }
}

TEST(Api, RefusesUnknownInputsAndMissingRecords) {
  if (!fs::exists(kCase)) GTEST_SKIP() << "no ONNX test data at " << kCase;
  const std::string model = (kCase / "model.onnx").string();
  CompileRequest unknown;
  unknown.inputs.tensors.push_back({"nope", {graph::Dim::of(1)}});
  EXPECT_NE(error_of([&] { compile_file(model, unknown); }).find("no input named 'nope'"),
            std::string::npos);
  CompileRequest rank;
  rank.inputs.tensors.push_back({"x", {graph::Dim::of(1), graph::Dim::of(1)}});
  EXPECT_NE(error_of([&] { compile_file(model, rank); }).find("input 'x' has rank 4"),
            std::string::npos);
  CompileRequest records;
  records.records = (fs::path(::testing::TempDir()) / "no-such-records.sqlite").string();
  EXPECT_NE(error_of([&] { compile_file(model, records); }).find("no records database"),
            std::string::npos);
}

TEST(Api, TunesAModelIntoRecordsThatItsCompilationApplies) {
  if (!fs::exists(kCase)) GTEST_SKIP() << "no ONNX test data at " << kCase;
  const std::string model = (kCase / "model.onnx").string();
  const std::string records =
      (fs::path(::testing::TempDir()) / ("api-tune-" + std::to_string(::getpid()) + ".sqlite"))
          .string();
  fs::remove(records);
  // The case's weights are an input, so its kernels are tuned in generated spaces.
  TuneRequest request;
  request.searches = {autotune::SearchKind::Auto};
  request.options.tuner = "random";
  request.options.trials = 4;
  request.options.batch = 4;
  request.options.measure.repeats = 1;
  request.options.measure.min_repeat_seconds = 0.001;
  request.options.settle_repeats = 3;
  std::vector<SearchResult> searches;
  {
    autotune::RecordDatabase db(records);
    std::ostringstream log;
    size_t done = 0;
    searches = tune_model(model, request, db, &log, [&](const SearchResult& search, size_t index) {
      EXPECT_EQ(index, done++);
      EXPECT_EQ(search.search, autotune::SearchKind::Auto);
    });
    EXPECT_EQ(done, 1u);
    EXPECT_EQ(log.str().rfind("test_conv_with_strides_padding: ", 0), 0u) << log.str();
  }
  ASSERT_EQ(searches.size(), 1u);
  EXPECT_EQ(searches[0].search, autotune::SearchKind::Auto);
  ASSERT_FALSE(searches[0].tasks.empty());
  std::set<std::string> tuned_keys;
  for (const autotune::TaskResult& r : searches[0].tasks) {
    EXPECT_GT(r.trials, 0) << r.name;
    EXPECT_LE(r.trials, 4) << r.name;
    tuned_keys.insert(r.key);
  }
  // The tasks the API lists for the search are the ones it tuned.
  std::set<std::string> listed_keys;
  for (const autotune::Task& t : model_tasks(model, request, autotune::SearchKind::Auto).tasks)
    if (t.tunable()) listed_keys.insert(t.key);
  EXPECT_EQ(listed_keys, tuned_keys);
  CompileRequest compile;
  compile.records = records;
  CompiledFile compiled = compile_file(model, compile);
  size_t applied = 0;
  for (const autotune::AppliedRecord& a : compiled.applied) applied += a.tuned;
  EXPECT_EQ(applied, tuned_keys.size());
  runtime::Model tuned = load_model(model, compile);
  expect_case_output(tuned);
  fs::remove(records);
}

}  // namespace
}  // namespace tessel::api
