// Tests of the tuning records database: storing and reading records, best and transfer
// queries, JSON-lines export and import, rejecting files that are not tessel's, durability
// across a killed process, and two connections on one file.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "autotune/records.h"
#include "support/error.h"

namespace tessel::autotune {
namespace {

namespace fs = std::filesystem;

const char* const kTarget = "llvm -mcpu=znver4 -lanes=16";

Record make_record(const std::string& task_key, const std::string& template_name,
                   std::vector<double> costs, const std::string& error = "") {
  Record r;
  r.task_key = task_key;
  r.target = kTarget;
  r.task_name = "task " + task_key;
  r.template_name = template_name;
  r.point_json = R"({"tile_x":8,"tile_y":4})";
  r.trace_json = R"({"steps":[{"kind":"split","factors":[8,4]}]})";
  r.costs = std::move(costs);
  r.error = error;
  r.features = {0.5f, 1.25f};
  r.timestamp = 1700000000.25;
  return r;
}

void expect_same(const Record& actual, const Record& expected) {
  EXPECT_EQ(actual.task_key, expected.task_key);
  EXPECT_EQ(actual.target, expected.target);
  EXPECT_EQ(actual.task_name, expected.task_name);
  EXPECT_EQ(actual.template_name, expected.template_name);
  EXPECT_EQ(actual.point_json, expected.point_json);
  EXPECT_EQ(actual.trace_json, expected.trace_json);
  EXPECT_EQ(actual.costs, expected.costs);
  EXPECT_EQ(actual.error, expected.error);
  EXPECT_EQ(actual.features, expected.features);
  EXPECT_EQ(actual.timestamp, expected.timestamp);
  EXPECT_EQ(actual.version, expected.version);
}

void expect_same(const std::vector<Record>& actual, const std::vector<Record>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    SCOPED_TRACE("record " + std::to_string(i));
    expect_same(actual[i], expected[i]);
  }
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  ASSERT_TRUE(out.good()) << path;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs SQL on a file through SQLite directly, bypassing RecordDatabase.
void raw_sql(const fs::path& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &error);
  std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << message;
}

// The message of the CompileError from opening `path` and reading every record, or "" when
// none is raised. Damage inside data pages shows only when they are read.
std::string open_error(const fs::path& path) {
  try {
    RecordDatabase db(path.string());
    db.all();
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

class RecordsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string name = std::string("tessel-records-") +
                       ::testing::UnitTest::GetInstance()->current_test_info()->name() + "-" +
                       std::to_string(getpid()) + "-" + std::to_string(std::random_device{}());
    dir_ = fs::temp_directory_path() / name;
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path file(const std::string& name) const { return dir_ / name; }

  fs::path dir_;
};

TEST_F(RecordsTest, AddAndReadBackEveryField) {
  Record ok = make_record("a1b2", "matmul", {1.5e-4, 1.25e-4, 2e-4});
  ok.task_name = "Conv+Add+Relu 1x64x56x56 \"quoted\"\tand tabbed";
  ok.features = {0.1f, -3.75f, 1e-20f, 123456.789f};
  ok.timestamp = 1712345678.123456;
  ok.version = "0.2.9";
  Record failed = make_record("a1b2", "matmul", {}, "compile error: tile 7 does not divide 64");
  {
    RecordDatabase db(file("r.db").string());
    EXPECT_EQ(db.path(), file("r.db").string());
    EXPECT_EQ(db.count("a1b2", kTarget), 0u);
    db.add(ok);
    db.add(failed);
    EXPECT_EQ(db.count("a1b2", kTarget), 2u);
    EXPECT_EQ(db.count("a1b2", "cuda"), 0u);
    EXPECT_EQ(db.count("other", kTarget), 0u);
    expect_same(db.records("a1b2", kTarget), {ok, failed});
    EXPECT_TRUE(db.records("a1b2", "cuda").empty());
  }
  RecordDatabase reopened(file("r.db").string());
  expect_same(reopened.all(), {ok, failed});
}

TEST_F(RecordsTest, StoresPointAndTraceCompact) {
  Record r = make_record("k", "matmul", {1.0});
  r.point_json = R"( { "tile" : 8 , "unroll" : true } )";
  r.trace_json = "";
  RecordDatabase db(file("r.db").string());
  db.add(r);
  std::vector<Record> back = db.records("k", kTarget);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].point_json, R"({"tile":8,"unroll":true})");
  EXPECT_EQ(back[0].trace_json, "");
}

TEST(Record, MeanCost) {
  EXPECT_DOUBLE_EQ(make_record("k", "t", {1.0, 2.0, 6.0}).mean_cost(), 3.0);
  EXPECT_EQ(make_record("k", "t", {}).mean_cost(), INFINITY);
  EXPECT_EQ(make_record("k", "t", {1.0}, "timeout").mean_cost(), INFINITY);
  EXPECT_FALSE(make_record("k", "t", {1.0}, "timeout").ok());
  EXPECT_TRUE(make_record("k", "t", {1.0}).ok());
}

/// A record of point {"tile": tile} of task "k".
Record record_of_point(int tile, std::vector<double> costs, const std::string& error = "") {
  Record r = make_record("k", "matmul", std::move(costs), error);
  r.point_json = "{\"tile\":" + std::to_string(tile) + "}";
  return r;
}

TEST_F(RecordsTest, BestIgnoresFailedRecordsAndPicksTheLowestMean) {
  RecordDatabase db(file("r.db").string());
  EXPECT_FALSE(db.best("k", kTarget).has_value());
  db.add(record_of_point(1, {}, "crashed"));
  EXPECT_FALSE(db.best("k", kTarget).has_value());
  db.add(record_of_point(2, {3.0, 3.0}));
  db.add(record_of_point(3, {0.5}, "wrong result"));  // cheap but failed
  db.add(record_of_point(4, {1.0, 3.0}));             // mean 2: the best
  db.add(record_of_point(5, {2.5}));
  db.add(make_record("other", "matmul", {0.1}));
  Record elsewhere = record_of_point(6, {0.2});
  elsewhere.target = "cuda";
  db.add(elsewhere);
  std::optional<Record> best = db.best("k", kTarget);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->costs, (std::vector<double>{1.0, 3.0}));
  EXPECT_EQ(best->target, kTarget);
  EXPECT_EQ(db.best("k", "cuda")->costs, (std::vector<double>{0.2}));
  EXPECT_EQ(db.count("k", kTarget), 5u);
  // Six records of kTarget (one of another task), one of "cuda".
  EXPECT_EQ(db.targets(), (std::vector<std::pair<std::string, size_t>>{{kTarget, 6}, {"cuda", 1}}));
}

TEST_F(RecordsTest, APointMeasuredAgainRanksByTheMeanOfItsMeasurements) {
  RecordDatabase db(file("r.db").string());
  db.add(record_of_point(1, {1.0}));
  db.add(record_of_point(2, {0.8}));  // lucky once...
  db.add(record_of_point(3, {1.2}));
  db.add(record_of_point(2, {1.4}));            // ...and measured again: 1.1 on average
  db.add(record_of_point(2, {}, "timed out"));  // failures do not count
  std::vector<RecordDatabase::RankedPoint> ranked = db.best_points("k", kTarget, 5);
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(ranked[0].latest.point_json, R"({"tile":1})");
  EXPECT_DOUBLE_EQ(ranked[0].average_cost, 1.0);
  EXPECT_EQ(ranked[0].measurements, 1);
  EXPECT_EQ(ranked[1].latest.point_json, R"({"tile":2})");
  EXPECT_DOUBLE_EQ(ranked[1].average_cost, 1.1);
  EXPECT_EQ(ranked[1].measurements, 2);
  EXPECT_EQ(ranked[1].latest.costs, (std::vector<double>{1.4}));  // its latest success
  EXPECT_EQ(ranked[2].latest.point_json, R"({"tile":3})");
  EXPECT_EQ(db.best_points("k", kTarget, 2).size(), 2u);
  EXPECT_EQ(db.best("k", kTarget)->point_json, R"({"tile":1})");
}

TEST_F(RecordsTest, TheLatestVerdictChoosesTheBest) {
  RecordDatabase db(file("r.db").string());
  Record default_schedule = make_record("k", "matmul", {2.0});
  default_schedule.point_json = "";
  db.add(default_schedule);
  db.add(record_of_point(1, {1.0}));  // lowest on average
  db.add(record_of_point(2, {1.5}));
  EXPECT_FALSE(db.verdict("k", kTarget).has_value());
  EXPECT_EQ(db.best("k", kTarget)->point_json, R"({"tile":1})");
  // Timed against the default run by run, point 1 was not faster: the default stands.
  db.settle({"k", kTarget, "", 1.01, 1700000001});
  EXPECT_EQ(db.best("k", kTarget)->point_json, "");
  EXPECT_EQ(db.best("k", kTarget)->costs, (std::vector<double>{2.0}));
  std::optional<RecordDatabase::Verdict> verdict = db.verdict("k", kTarget);
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->point_json, "");
  EXPECT_DOUBLE_EQ(verdict->ratio, 1.01);
  EXPECT_DOUBLE_EQ(verdict->timestamp, 1700000001);
  // A later run settles on point 2: the latest verdict stands, for its task and target only.
  db.settle({"k", kTarget, R"({"tile": 2})", 0.9, 1700000002});
  EXPECT_EQ(db.best("k", kTarget)->point_json, R"({"tile":2})");
  EXPECT_FALSE(db.verdict("k", "cuda").has_value());
  EXPECT_FALSE(db.verdict("other", kTarget).has_value());
  // A verdict naming a point without a successful record falls back to the lowest average.
  db.settle({"k", kTarget, R"({"tile":9})", 0.5, 1700000003});
  EXPECT_EQ(db.best("k", kTarget)->point_json, R"({"tile":1})");
  EXPECT_THROW(db.settle({"k", kTarget, "", std::nan(""), 0}), CompileError);
}

TEST_F(RecordsTest, AVersionOneDatabaseGetsTheVerdictsTable) {
  fs::path path = file("v1.db");
  {
    RecordDatabase db(path.string());
    db.add(record_of_point(1, {1.0}));
  }
  raw_sql(path,
          "DROP TABLE tessel_verdicts; UPDATE tessel_meta SET value = '1' WHERE key = 'schema'");
  RecordDatabase db(path.string());
  EXPECT_EQ(db.count("k", kTarget), 1u);
  db.settle({"k", kTarget, "", 1.2, 1700000001});
  EXPECT_EQ(db.best("k", kTarget)->point_json, R"({"tile":1})");  // no default record
  EXPECT_EQ(db.verdict("k", kTarget)->ratio, 1.2);
}

TEST_F(RecordsTest, RecordsOfTemplateFiltersAndOrders) {
  RecordDatabase db(file("r.db").string());
  db.add(make_record("c", "matmul", {4.0}));
  db.add(make_record("b", "matmul", {}, "failed"));
  db.add(make_record("b", "matmul", {3.0}));
  db.add(make_record("a", "matmul", {0.1}));  // the excluded task
  db.add(make_record("b", "matmul", {1.0}));
  db.add(make_record("c", "matmul", {2.0}));
  db.add(make_record("b", "conv2d_nchwc", {0.5}));  // another template
  Record other_target = make_record("b", "matmul", {0.5});
  other_target.target = "cuda";
  db.add(other_target);

  std::vector<Record> got = db.records_of_template("matmul", kTarget, "a", 100);
  std::vector<std::pair<std::string, double>> order;
  for (const Record& r : got) order.emplace_back(r.task_key, r.mean_cost());
  std::vector<std::pair<std::string, double>> expected = {
      {"b", 1.0}, {"b", 3.0}, {"b", INFINITY}, {"c", 2.0}, {"c", 4.0}};
  EXPECT_EQ(order, expected);
  EXPECT_EQ(got[2].error, "failed");

  std::vector<Record> limited = db.records_of_template("matmul", kTarget, "a", 2);
  ASSERT_EQ(limited.size(), 2u);
  EXPECT_EQ(limited[1].mean_cost(), 3.0);
  EXPECT_TRUE(db.records_of_template("matmul", kTarget, "a", 0).empty());
  EXPECT_EQ(db.records_of_template("matmul", kTarget, "b", 100).size(), 3u);
  EXPECT_TRUE(db.records_of_template("softmax", kTarget, "a", 100).empty());
}

TEST_F(RecordsTest, ExportThenImportGivesEqualRecords) {
  std::vector<Record> records = {make_record("k1", "matmul", {1e-5, 2.5e-5}),
                                 make_record("k1", "matmul", {}, "timeout after 10 s"),
                                 make_record("k2", "conv2d_nchwc", {0.001})};
  records[0].features = {0.1f, 0.2f, 1.0f / 3.0f};
  records[2].features.clear();
  records[2].trace_json = "";
  records[2].timestamp = 1.0 / 3.0;
  RecordDatabase source(file("a.db").string());
  source.add_all(records);
  std::stringstream text;
  source.export_jsonl(text);
  std::string exported = text.str();
  EXPECT_EQ(std::count(exported.begin(), exported.end(), '\n'), 3);
  EXPECT_NE(exported.find(R"("template":"conv2d_nchwc")"), std::string::npos) << exported;
  EXPECT_NE(exported.find(R"("point":{"tile_x":8,"tile_y":4})"), std::string::npos) << exported;

  RecordDatabase target(file("b.db").string());
  std::stringstream with_blank_lines("\n" + exported.substr(0, exported.find('\n') + 1) + "   \n" +
                                     exported.substr(exported.find('\n') + 1));
  EXPECT_EQ(target.import_jsonl(with_blank_lines, "dump.jsonl"), 3u);
  expect_same(target.all(), records);
  std::stringstream again;
  target.export_jsonl(again);
  EXPECT_EQ(again.str(), exported);
}

TEST_F(RecordsTest, ImportOfAMalformedLineNamesItAndStoresNothing) {
  RecordDatabase source(file("a.db").string());
  source.add(make_record("k", "matmul", {1.0}));
  std::stringstream text;
  source.export_jsonl(text);
  std::string good = text.str();  // ends in '\n'
  std::string missing = good;
  missing.replace(missing.find(R"("costs":)"), 8, R"("costz":)");
  std::string wrong_kind = good;
  const std::string costs = R"("costs":[1.0])";
  ASSERT_NE(wrong_kind.find(costs), std::string::npos) << good;
  wrong_kind.replace(wrong_kind.find(costs), costs.size(), R"("costs":"1")");
  struct Case {
    std::string text;
    std::string expected;
  };
  std::vector<Case> cases = {
      {good + "\n" + "{\"task_key\": \n", "batch.jsonl:3: malformed JSON"},
      {good + missing, "batch.jsonl:2: missing key 'costs'"},
      {good + good + wrong_kind, "batch.jsonl:3: key 'costs' is string, expected an array"},
      {"[1,2]\n", "batch.jsonl:1: a line is a JSON array"},
  };
  RecordDatabase target(file("b.db").string());
  for (const Case& c : cases) {
    std::stringstream in(c.text);
    try {
      target.import_jsonl(in, "batch.jsonl");
      ADD_FAILURE() << "no error for: " << c.text;
    } catch (const CompileError& e) {
      EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos)
          << e.what() << "\nexpected: " << c.expected;
    }
    EXPECT_EQ(target.count("k", kTarget), 0u);
    EXPECT_TRUE(target.all().empty());
  }
}

TEST_F(RecordsTest, NonFiniteCostsAreRefusedAndAddAllStoresNothing) {
  RecordDatabase db(file("r.db").string());
  Record bad = make_record("k", "matmul", {1.0, NAN});
  try {
    db.add_all({make_record("k", "matmul", {1.0}), bad});
    ADD_FAILURE() << "a NaN cost was stored";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("costs[1]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(file("r.db").string()), std::string::npos) << e.what();
  }
  EXPECT_EQ(db.count("k", kTarget), 0u);
  Record bad_point = make_record("k", "matmul", {1.0});
  bad_point.point_json = "[8, 4]";
  EXPECT_THROW(db.add(bad_point), CompileError);
  EXPECT_EQ(db.count("k", kTarget), 0u);
}

TEST_F(RecordsTest, ATextFileIsRejected) {
  fs::path path = file("notes.db");
  std::string text = "task_key,target,cost\nabc,llvm,0.5\n";
  write_bytes(path, text);
  std::string error = open_error(path);
  EXPECT_NE(error.find("'" + path.string() + "'"), std::string::npos) << error;
  EXPECT_NE(error.find("not a SQLite database"), std::string::npos) << error;
  EXPECT_EQ(read_bytes(path), text);  // left as it was
}

TEST_F(RecordsTest, RandomBytesAreRejected) {
  fs::path path = file("random.db");
  std::mt19937 rng(1234);
  std::string bytes(8192, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
  write_bytes(path, bytes);
  std::string error = open_error(path);
  EXPECT_NE(error.find(path.string()), std::string::npos) << error;
  EXPECT_NE(error.find("not a SQLite database"), std::string::npos) << error;
}

// Writes a database of enough records to span many pages, closed (so the WAL is folded
// into the main file).
void write_database(const fs::path& path) {
  RecordDatabase db(path.string());
  std::vector<Record> records;
  for (int i = 0; i < 300; ++i) {
    Record r = make_record("task" + std::to_string(i % 7), "matmul", {1.0 + i});
    r.trace_json = R"({"steps":")" + std::string(400, 'a' + i % 26) + R"("})";
    records.push_back(r);
  }
  db.add_all(records);
}

TEST_F(RecordsTest, DamagedDataPagesAreReported) {
  fs::path path = file("damaged.db");
  write_database(path);
  ASSERT_FALSE(fs::exists(path.string() + "-wal"));
  std::string bytes = read_bytes(path);
  ASSERT_GT(bytes.size(), 16 * 4096u);
  std::fill(bytes.begin() + 4096, bytes.end() - 4096, '\xff');
  write_bytes(path, bytes);
  std::string error = open_error(path);
  EXPECT_NE(error.find(path.string()), std::string::npos) << error;
  EXPECT_NE(error.find("corrupt SQLite database"), std::string::npos) << error;
}

TEST_F(RecordsTest, DamagedHeadersAreReported) {
  fs::path truncated = file("truncated.db");
  write_database(truncated);
  write_bytes(truncated, read_bytes(truncated).substr(0, 50));
  std::string error = open_error(truncated);
  EXPECT_NE(error.find(truncated.string()), std::string::npos) << error;
  EXPECT_NE(error.find("corrupt SQLite database"), std::string::npos) << error;

  fs::path no_magic = file("no_magic.db");
  write_database(no_magic);
  std::string bytes = read_bytes(no_magic);
  std::fill(bytes.begin(), bytes.begin() + 16, '\0');
  write_bytes(no_magic, bytes);
  error = open_error(no_magic);
  EXPECT_NE(error.find(no_magic.string()), std::string::npos) << error;
  EXPECT_NE(error.find("not a SQLite database"), std::string::npos) << error;
}

TEST_F(RecordsTest, AForeignDatabaseIsRejectedAndLeftAsItWas) {
  fs::path path = file("foreign.db");
  raw_sql(path,
          "CREATE TABLE foo (x INTEGER); CREATE TABLE bar (y TEXT); "
          "INSERT INTO foo VALUES (42);");
  std::string before = read_bytes(path);
  std::string error = open_error(path);
  EXPECT_NE(error.find("'" + path.string() + "'"), std::string::npos) << error;
  EXPECT_NE(error.find("without tessel's tables (it has: bar, foo)"), std::string::npos) << error;
  EXPECT_EQ(read_bytes(path), before);
}

TEST_F(RecordsTest, AnUnknownSchemaVersionIsRejected) {
  fs::path path = file("future.db");
  { RecordDatabase db(path.string()); }
  raw_sql(path, "UPDATE tessel_meta SET value = '3' WHERE key = 'schema'");
  std::string error = open_error(path);
  EXPECT_NE(error.find(path.string()), std::string::npos) << error;
  EXPECT_NE(error.find("schema version '3'"), std::string::npos) << error;
}

TEST_F(RecordsTest, AnEmptyFileIsANewDatabase) {
  fs::path path = file("empty.db");
  write_bytes(path, "");
  RecordDatabase db(path.string());
  db.add(make_record("k", "matmul", {1.0}));
  EXPECT_EQ(db.count("k", kTarget), 1u);
}

TEST_F(RecordsTest, AnUnopenablePathIsReported) {
  std::string path = file("no/such/dir/r.db").string();
  try {
    RecordDatabase db(path);
    ADD_FAILURE() << "opened " << path;
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST_F(RecordsTest, RecordsSurviveAKilledProcess) {
  const std::string path = file("killed.db").string();
  constexpr int kRecords = 40;
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child never returns to the test: it dies before the database is closed.
    try {
      RecordDatabase db(path);
      for (int i = 0; i < kRecords; ++i) db.add(make_record("k", "matmul", {1.0 + i}));
      raise(SIGKILL);
    } catch (...) {
    }
    _exit(3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exit status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  // The records are still only in the WAL: nothing closed the database cleanly.
  EXPECT_TRUE(fs::exists(path + "-wal"));

  RecordDatabase db(path);
  std::vector<Record> records = db.records("k", kTarget);
  ASSERT_EQ(records.size(), static_cast<size_t>(kRecords));
  for (int i = 0; i < kRecords; ++i) EXPECT_EQ(records[i].costs, std::vector<double>{1.0 + i});
}

TEST_F(RecordsTest, TwoConnectionsSeeEachOthersCommits) {
  const std::string path = file("shared.db").string();
  RecordDatabase first(path);
  RecordDatabase second(path);
  first.add(record_of_point(1, {1.0}));
  EXPECT_EQ(second.count("k", kTarget), 1u);
  second.add_all({record_of_point(2, {0.5}), record_of_point(3, {2.0})});
  EXPECT_EQ(first.count("k", kTarget), 3u);
  ASSERT_TRUE(first.best("k", kTarget).has_value());
  EXPECT_EQ(first.best("k", kTarget)->costs, std::vector<double>{0.5});
  std::vector<Record> seen = first.records("k", kTarget);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].costs, std::vector<double>{1.0});
  EXPECT_EQ(seen[2].costs, std::vector<double>{2.0});
}

}  // namespace
}  // namespace tessel::autotune
