// The tuning records database: one row per measured schedule, on SQLite.
//
// A record is one measurement of one candidate of one task: the task's key and target,
// the template and point that made the schedule, the schedule as a Trace in JSON, the
// measured costs (seconds per repeat) or the error that failed it, the cost-model features
// of the candidate, when it was measured and by which tessel version. Each add() commits
// before it returns (WAL journal), so a killed tuner loses no record it reported.
// A tuning run ends each task with a verdict (the point it settled on after timing its best
// against the default run by run), which is what best() hands the compiler. Records can be
// exported to and imported from JSON lines (verdicts stay in the database: an imported
// set is settled by its lowest average cost).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct sqlite3;

namespace tessel::autotune {

/// The tessel version written into records.
inline constexpr const char* kTesselVersion = "0.3.0";

struct Record {
  std::string task_key;       ///< the task's structural key (hex)
  std::string target;         ///< e.g. "llvm -mcpu=znver4 -lanes=16"
  std::string task_name;      ///< a readable label, e.g. "Conv+Add+Relu 1x64x56x56"
  std::string template_name;  ///< "matmul", "conv2d_nchwc", ...
  /// The template's knob values, JSON object text (or empty). The database stores it
  /// compact (json::write), so records read back have that form.
  std::string point_json;
  std::string trace_json;       ///< schedule::Trace::to_json(), or empty; stored compact too
  std::vector<double> costs;    ///< seconds per timed repeat; empty when failed
  std::string error;            ///< why the candidate failed; empty on success
  std::vector<float> features;  ///< finite, like costs (JSON has no NaN or infinity)
  double timestamp = 0;         ///< seconds since the Unix epoch
  std::string version = kTesselVersion;

  bool ok() const { return error.empty() && !costs.empty(); }
  /// Mean of costs; +infinity when the record failed.
  double mean_cost() const;
};

class RecordDatabase {
 public:
  /// Opens (creating when missing) the database at `path`. CompileError naming the file
  /// when it is not a SQLite database, is corrupt, or has tables that are not tessel's.
  /// Damage inside data pages shows at the first query that reads them (a CompileError too).
  explicit RecordDatabase(const std::string& path);
  ~RecordDatabase();
  RecordDatabase(const RecordDatabase&) = delete;
  RecordDatabase& operator=(const RecordDatabase&) = delete;

  const std::string& path() const { return path_; }

  /// Stores one record, committed when this returns. CompileError for a non-finite cost or
  /// feature, or a point/trace that is neither empty nor a JSON object.
  void add(const Record& record);
  /// Stores records in one transaction.
  void add_all(const std::vector<Record>& records);

  /// The records of one task on one target, oldest first.
  std::vector<Record> records(const std::string& task_key, const std::string& target) const;
  /// The end of a tuning run for one task: the point it settled on (its best, or the
  /// default schedule, the empty point, when the best did not run faster than the default
  /// timed run by run against it) and that paired ratio, best over default.
  struct Verdict {
    std::string task_key, target;
    std::string point_json;
    double ratio = 1;      ///< 1 where the default led; 0 where the point failed to run
    double timestamp = 0;  ///< seconds since the Unix epoch
  };
  /// Stores a verdict; the latest one of a task stands.
  void settle(const Verdict& verdict);
  /// The latest verdict of a task on a target, if any.
  std::optional<Verdict> verdict(const std::string& task_key, const std::string& target) const;

  /// The schedule to compile with, if any: the latest successful record of the point the
  /// task's latest verdict settled on; without one (or when that point has no successful
  /// record), the latest record of the point (knob values; the default schedule is the empty
  /// point) whose measurements average the lowest cost.
  std::optional<Record> best(const std::string& task_key, const std::string& target) const;
  /// A point of a task's template and its successful measurements.
  struct RankedPoint {
    Record latest;        ///< its latest successful record
    double average_cost;  ///< the mean of its records' mean costs
    int measurements;     ///< its successful records
  };
  /// The `limit` points of a task with the lowest average cost, best first. A point measured
  /// again ranks by all its measurements: the best of many noisy single measurements is a
  /// lucky one, and measuring the leaders again brings them back to their true rank.
  std::vector<RankedPoint> best_points(const std::string& task_key, const std::string& target,
                                       size_t limit) const;
  /// The number of records (failed ones included) of a task on a target.
  size_t count(const std::string& task_key, const std::string& target) const;
  /// Records of other tasks made by template `template_name` on `target` (for transfer
  /// learning), at most `limit`, best first within each task.
  std::vector<Record> records_of_template(const std::string& template_name,
                                          const std::string& target,
                                          const std::string& exclude_task_key, size_t limit) const;
  /// Every record, oldest first.
  std::vector<Record> all() const;
  /// The target keys the records were made for, each with its number of records, the most
  /// records first: a database may hold records of several targets and thread counts, and
  /// each is applied only to its own.
  std::vector<std::pair<std::string, size_t>> targets() const;

  /// Writes every record as one JSON object per line (an empty point or trace as null).
  void export_jsonl(std::ostream& out) const;
  /// Reads JSON lines written by export_jsonl and stores them in one transaction; returns
  /// the number stored. CompileError naming the line and field of a malformed line (nothing
  /// is stored then).
  size_t import_jsonl(std::istream& in, const std::string& source_name = "<input>");

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace tessel::autotune
