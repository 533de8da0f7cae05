// `tessel tune` and `tessel compile --records` on an ONNX backend case: tasks listed, trials
// recorded, the tuned library computes the case's expected output, records exported and
// imported, a template search followed by a generated one, and a database that is not
// tessel's refused with a clear message.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "frontend/onnx_importer.h"
#include "unit/cli/cli_test_util.h"

namespace tessel::cli_test {
namespace {

namespace fs = std::filesystem;

const fs::path kCase = "/usr/share/libonnx-testdata/data/node/test_matmul_2d";

class CliTune : public CaseTest {
 protected:
  CliTune() : CaseTest(kCase, "tessel_cli_tune_") {}
  CliResult tune(const std::string& db, const std::string& extra = "") {
    return run_cli("tune " + model() + " --records " + db +
                   " --trials 4 --batch 2 --tuner random " + extra);
  }
  /// `compile --records db` into <name>.so says its kernel is tuned, and the library run on
  /// the case's inputs gives the case's expected output.
  void expect_tuned_library_computes_the_case(const std::string& db, const std::string& name) {
    CliResult r = run_cli("compile " + model() + " -o " + path(name + ".so") + " --records " + db);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("1 of 1 kernels tuned"), std::string::npos) << r.output;
    r = run_cli("run " + path(name + ".so") + " --input a=" + data("input_0.pb") +
                " --input b=" + data("input_1.pb") + " --output-dir " + path(name + "-out"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    NpyFloats c = read_npy_floats(path(name + "-out/c.npy"));
    runtime::NDArray expected = frontend::load_tensor_file(data("output_0.pb"));
    ASSERT_EQ(static_cast<int64_t>(c.data.size()), expected.size()) << c.header;
    for (int64_t i = 0; i < expected.size(); ++i)
      EXPECT_NEAR(c.data[i], expected.data_as<float>()[i], 1e-5 + 1e-5 * std::abs(c.data[i]));
  }
};

TEST_F(CliTune, ListsTheTasksWithTheirTemplates) {
  CliResult r = run_cli("tune " + model() + " --list-tasks");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("matmul"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("MatMul 3x3"), std::string::npos) << r.output;
}

TEST_F(CliTune, TunedLibraryComputesTheExpectedOutput) {
  CliResult r = tune(path("records.db"), "--curves " + path("curves"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("4 trials, 0 failed"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::is_empty(path("curves"))) << r.output;
  // Listing again shows the records.
  r = run_cli("tune " + model() + " --list-tasks --records " + path("records.db"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("records"), std::string::npos) << r.output;
  // ...and which targets the database holds records of, with their counts.
  size_t by_target = r.output.find("by target");
  ASSERT_NE(by_target, std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" -lanes=", by_target), std::string::npos) << r.output;

  expect_tuned_library_computes_the_case(path("records.db"), "model");
}

TEST_F(CliTune, RerunResumesAndRecordsTravelAsJsonLines) {
  ASSERT_EQ(tune(path("a.db")).exit_code, 0);
  CliResult r = run_cli("tune " + model() + " --records " + path("a.db") +
                        " --trials 6 --batch 2 --tuner random");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("6 trials"), std::string::npos) << r.output;
  r = run_cli("tune --records " + path("a.db") + " --export " + path("a.jsonl"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream exported(path("a.jsonl"));
  size_t lines = 0;
  for (std::string line; std::getline(exported, line);) ++lines;
  // Six trials, two measurements of the default schedule (one per run) and the leaders
  // measured again at the end of each run.
  EXPECT_GE(lines, 8u + 2u);
  r = run_cli("tune --records " + path("b.db") + " --import " + path("a.jsonl"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("imported " + std::to_string(lines) + " records"), std::string::npos)
      << r.output;
}

TEST_F(CliTune, ExportWithAModelHoldsTheRunsRecords) {
  CliResult r = run_cli("tune " + model() + " --records " + path("c.db") +
                        " --trials 4 --batch 2 --tuner random --export " + path("c.jsonl"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream exported(path("c.jsonl"));
  size_t lines = 0;
  for (std::string line; std::getline(exported, line);) ++lines;
  // The database was new: the file holds this run's trials and its default's measurement.
  EXPECT_GE(lines, 4u + 1u);
}

TEST_F(CliTune, AForeignOrCorruptDatabaseIsRefused) {
  std::ofstream(path("notes.db")) << "these are not tuning records\n";
  CliResult r = tune(path("notes.db"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("records database '" + path("notes.db") + "'"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("not a SQLite database"), std::string::npos) << r.output;

  r = run_cli("compile " + model() + " -o " + path("m.so") + " --records " + path("notes.db"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("not a SQLite database"), std::string::npos) << r.output;
  r = run_cli("compile " + model() + " -o " + path("m.so") + " --records " + path("missing.db"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("no records database at"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(path("missing.db")));
}

TEST_F(CliTune, BadOptionsAreNamed) {
  CliResult r = run_cli("tune " + model() + " --records " + path("x.db") + " --tuner magic");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("unknown tuner 'magic'"), std::string::npos) << r.output;
  r = run_cli("tune " + model() + " --records " + path("x.db") + " --time-budget soon");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--time-budget: 'soon'"), std::string::npos) << r.output;
  r = run_cli("tune " + model() + " --records " + path("x.db") + " --search everywhere");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--search: 'everywhere' is not 'template' or 'auto'"), std::string::npos)
      << r.output;
  r = run_cli("tune " + model() + " --records " + path("x.db") + " --weights lukewarm");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--weights: 'lukewarm' is not 'cold' or 'warm'"), std::string::npos)
      << r.output;
}

TEST_F(CliTune, CostModelsTrainFromRecordsAndStartTheTuner) {
  CliResult r = run_cli("tune " + model() + " --records " + path("corpus.db") +
                        " --trials 12 --batch 6 --tuner random");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_cli("tune --records " + path("corpus.db") + " --train-cost-model " + path("cm.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("trained " + path("cm.json") + " on " + path("corpus.db") + ": 1 tasks"),
            std::string::npos)
      << r.output;
  for (const std::string& model_spec : {path("cm.json"), std::string("shipped")}) {
    r = run_cli("tune --records " + path("corpus.db") + " --evaluate-cost-model " + model_spec);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("first choice"), std::string::npos) << r.output;
  }
  // The xgb tuner starts from the trained model, from the shipped one, or from nothing.
  for (const std::string& model_spec :
       {path("cm.json"), std::string("shipped"), std::string("none")}) {
    r = run_cli("tune " + model() + " --records " + path("warm.db") +
                " --trials 4 --batch 2 --tuner xgb --cost-model " + model_spec);
    ASSERT_EQ(r.exit_code, 0) << model_spec << ": " << r.output;
  }
  expect_tuned_library_computes_the_case(path("warm.db"), "warm");

  r = run_cli("tune " + model() + " --records " + path("x.db") + " --cost-model " +
              path("missing.json"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--cost-model: cannot read '" + path("missing.json") + "'"),
            std::string::npos)
      << r.output;
  std::ofstream(path("notes.json")) << "{\"not\": \"a model\"}";
  r = run_cli("tune " + model() + " --records " + path("x.db") + " --cost-model " +
              path("notes.json"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("cost model '" + path("notes.json") + "'"), std::string::npos)
      << r.output;
  r = run_cli("tune --records " + path("x.db") + " --train-cost-model " + path("none.json"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("no task with 8 measured candidates"), std::string::npos) << r.output;
}

TEST_F(CliTune, GeneratedSpacesTuneAndTheLibraryComputesTheExpectedOutput) {
  CliResult r = run_cli("tune " + model() + " --list-tasks --search auto");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("auto.tiled_reduction"), std::string::npos) << r.output;
  r = tune(path("auto.db"), "--search auto --weights cold");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("with a generated space"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("weights evicted before each run"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("4 trials, 0 failed"), std::string::npos) << r.output;
  expect_tuned_library_computes_the_case(path("auto.db"), "auto");
}

TEST_F(CliTune, TemplateThenGeneratedSpaceEachGetTheirTrials) {
  CliResult r = tune(path("both.db"), "--search template,auto --curves " + path("both-curves"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The template's trials do not count against the generated space's: each search
  // measures its 4 points, and the second summary ranks the task by the best of both.
  size_t template_header = r.output.find("with a template");
  size_t auto_header = r.output.find("with a generated space");
  ASSERT_NE(template_header, std::string::npos) << r.output;
  ASSERT_NE(auto_header, std::string::npos) << r.output;
  EXPECT_LT(template_header, auto_header) << r.output;
  size_t first = r.output.find("4 trials, 0 failed");
  ASSERT_NE(first, std::string::npos) << r.output;
  EXPECT_NE(r.output.find("4 trials, 0 failed", first + 1), std::string::npos) << r.output;
  EXPECT_EQ(std::distance(fs::directory_iterator(path("both-curves")), fs::directory_iterator{}),
            2);
  expect_tuned_library_computes_the_case(path("both.db"), "both");
  // The other order names the second search's curves after it.
  r = tune(path("reversed.db"), "--search auto,template --curves " + path("reversed-curves"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_LT(r.output.find("with a generated space"), r.output.find("with a template")) << r.output;
  EXPECT_NE(r.output.find("reversed-curves/<task key>-template.svg"), std::string::npos)
      << r.output;

  r = run_cli("tune " + model() + " --records " + path("x.db") + " --search auto,auto");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--search: 'auto' is named twice in 'auto,auto'"), std::string::npos)
      << r.output;
  r = run_cli("tune " + model() + " --records " + path("x.db") + " --search template,fast");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--search: 'fast' is not 'template' or 'auto'"), std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace tessel::cli_test
