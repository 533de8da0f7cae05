// The tuning records database on SQLite, and its JSON-lines export and import.
#include "autotune/records.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <istream>
#include <limits>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "support/error.h"
#include "support/json.h"

namespace tessel::autotune {

namespace {

// "TSLR" in ASCII: marks the file as tessel's so other tools (and we) can tell it apart.
constexpr int kApplicationId = 0x54534c52;
// Version 2 added tessel_verdicts; a version 1 file gets the table when opened.
constexpr const char* kSchemaVersion = "2";
constexpr const char* kSchemaVersionWithoutVerdicts = "1";
constexpr int kBusyTimeoutMs = 5000;

constexpr const char* kColumns =
    "id, task_key, target, task_name, template_name, point, trace, costs, error, features, "
    "timestamp, version";
constexpr int kColumnCount = 12;  // the columns of kColumns, which read_record reads

std::string prefix(const std::string& path) {
  return "records database '" + path + "': ";
}

// SQLite reports a non-database or a damaged file only when a statement reads it, so every
// failure goes through here to name those two cases plainly.
[[noreturn]] void fail_sqlite(sqlite3* db, const std::string& path, int rc, const char* doing) {
  const char* message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  switch (rc & 0xff) {
    case SQLITE_NOTADB:
      TESSEL_USER_ERROR(prefix(path), "not a SQLite database (", message, ")");
    case SQLITE_CORRUPT:
      TESSEL_USER_ERROR(prefix(path), "corrupt SQLite database (", message, ")");
    default:
      TESSEL_USER_ERROR(prefix(path), doing, " (", message, ")");
  }
}

void exec(sqlite3* db, const std::string& path, const char* sql, const char* doing) {
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) fail_sqlite(db, path, rc, doing);
}

// Switching the journal needs a moment alone with the file, and SQLite does not wait on
// the busy timeout for it: a process opening the file while another one does retries.
void switch_to_wal(sqlite3* db, const std::string& path) {
  for (int waited_ms = 0;; waited_ms += 10) {
    int rc = sqlite3_exec(db, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return;
    if ((rc & 0xff) != SQLITE_BUSY || waited_ms >= kBusyTimeoutMs)
      fail_sqlite(db, path, rc, "cannot switch to the WAL journal");
    sqlite3_sleep(10);
  }
}

// A prepared statement, finalized when it goes out of scope.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& path, const char* sql, const char* doing)
      : db_(db), path_(path), doing_(doing) {
    int rc = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
    if (rc != SQLITE_OK) fail_sqlite(db_, path_, rc, doing_);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int index, const std::string& text) {
    check(sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()),
                            SQLITE_TRANSIENT));
  }
  void bind(int index, double value) { check(sqlite3_bind_double(stmt_, index, value)); }
  void bind(int index, int64_t value) { check(sqlite3_bind_int64(stmt_, index, value)); }
  void bind_null(int index) { check(sqlite3_bind_null(stmt_, index)); }

  /// True when a row is ready; false when the statement is done.
  bool step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail_sqlite(db_, path_, rc, doing_);
  }
  /// Makes the statement ready to run again with new bindings.
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  std::string text(int column) const {
    const unsigned char* p = sqlite3_column_text(stmt_, column);
    return p ? std::string(reinterpret_cast<const char*>(p), sqlite3_column_bytes(stmt_, column))
             : std::string();
  }
  double real(int column) const { return sqlite3_column_double(stmt_, column); }
  int64_t integer(int column) const { return sqlite3_column_int64(stmt_, column); }

 private:
  void check(int rc) {
    if (rc != SQLITE_OK) fail_sqlite(db_, path_, rc, doing_);
  }

  sqlite3* db_;
  const std::string& path_;
  const char* doing_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE takes the write lock up front, so a second writer waits on the busy timeout
// instead of failing with SQLITE_BUSY at its first write. Rolls back unless committed.
class Transaction {
 public:
  Transaction(sqlite3* db, const std::string& path) : db_(db), path_(path) {
    exec(db_, path_, "BEGIN IMMEDIATE", "cannot begin a transaction");
  }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  void commit() {
    exec(db_, path_, "COMMIT", "cannot commit records");
    done_ = true;
  }

 private:
  sqlite3* db_;
  const std::string& path_;
  bool done_ = false;
};

// ---- schema ---------------------------------------------------------------------------

std::vector<std::string> table_names(sqlite3* db, const std::string& path) {
  Statement s(db, path,
              "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
              "ORDER BY name",
              "cannot read the schema");
  std::vector<std::string> names;
  while (s.step()) names.push_back(s.text(0));
  return names;
}

bool contains(const std::vector<std::string>& names, const char* name) {
  for (const auto& n : names)
    if (n == name) return true;
  return false;
}

void check_schema(sqlite3* db, const std::string& path, const std::vector<std::string>& tables) {
  if (!contains(tables, "tessel_records") || !contains(tables, "tessel_meta")) {
    std::string list;
    for (const auto& t : tables) list += (list.empty() ? "" : ", ") + t;
    TESSEL_USER_ERROR(prefix(path), "a SQLite database without tessel's tables (it has: ", list,
                      ")");
  }
  Statement app(db, path, "PRAGMA application_id", "cannot read the application id");
  if (app.step() && app.integer(0) != 0 && app.integer(0) != kApplicationId)
    TESSEL_USER_ERROR(prefix(path), "a SQLite database of another application (application_id ",
                      app.integer(0), ", tessel's is ", kApplicationId, ")");
  Statement meta(db, path, "SELECT value FROM tessel_meta WHERE key = 'schema'",
                 "cannot read the schema version");
  if (!meta.step()) TESSEL_USER_ERROR(prefix(path), "tessel_meta has no 'schema' version");
  std::string version = meta.text(0);
  if (version != kSchemaVersion && version != kSchemaVersionWithoutVerdicts)
    TESSEL_USER_ERROR(prefix(path), "unknown tessel records schema version '", version,
                      "' (this tessel reads version '", kSchemaVersion, "')");
}

void create_schema(sqlite3* db, const std::string& path) {
  // IF NOT EXISTS / OR IGNORE: another process may have created the tables while this one
  // waited for the write lock.
  Transaction tx(db, path);
  exec(db, path,
       "CREATE TABLE IF NOT EXISTS tessel_records ("
       "id INTEGER PRIMARY KEY, task_key TEXT NOT NULL, target TEXT NOT NULL, "
       "task_name TEXT NOT NULL, template_name TEXT NOT NULL, point TEXT NOT NULL, "
       "trace TEXT NOT NULL, costs TEXT NOT NULL, mean_cost REAL, error TEXT NOT NULL, "
       "features TEXT NOT NULL, timestamp REAL NOT NULL, version TEXT NOT NULL);"
       "CREATE INDEX IF NOT EXISTS tessel_records_task ON tessel_records (task_key, target);"
       "CREATE TABLE IF NOT EXISTS tessel_meta (key TEXT PRIMARY KEY, value TEXT);"
       "PRAGMA application_id = 1414745170;",
       "cannot create the tessel tables");
  static_assert(kApplicationId == 1414745170, "keep the PRAGMA above in step");
  Statement meta(db, path, "INSERT OR IGNORE INTO tessel_meta (key, value) VALUES ('schema', ?1)",
                 "cannot write the schema version");
  meta.bind(1, std::string(kSchemaVersion));
  meta.step();
  tx.commit();
}

// The verdicts table (schema version 2), added to a version 1 file.
void add_verdicts_table(sqlite3* db, const std::string& path) {
  Transaction tx(db, path);
  exec(db, path,
       "CREATE TABLE IF NOT EXISTS tessel_verdicts ("
       "id INTEGER PRIMARY KEY, task_key TEXT NOT NULL, target TEXT NOT NULL, "
       "point TEXT NOT NULL, ratio REAL NOT NULL, timestamp REAL NOT NULL);",
       "cannot create the verdicts table");
  Statement meta(db, path, "UPDATE tessel_meta SET value = ?1 WHERE key = 'schema'",
                 "cannot write the schema version");
  meta.bind(1, std::string(kSchemaVersion));
  meta.step();
  tx.commit();
}

// ---- records <-> rows -----------------------------------------------------------------

template <class T>
std::string numbers_json(const std::vector<T>& values) {
  json::Array array;
  array.reserve(values.size());
  for (T v : values) array.emplace_back(static_cast<double>(v));
  return json::write(array);
}

// Non-finite numbers have no JSON form, and SQLite stores a NaN mean as NULL (a failed
// record), so they are refused before they reach the file.
template <class T>
void check_finite(const std::vector<T>& values, const char* field, const Record& record,
                  const std::string& path) {
  for (size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      TESSEL_USER_ERROR(prefix(path), "record of task '", record.task_key, "': ", field, "[", i,
                        "] is ", values[i], ", not a finite number");
}

// Point and trace are stored compact (json::write) so that export and import give back the
// same text. Empty text stays empty.
std::string compact_object(const std::string& text, const char* field, const Record& record,
                           const std::string& path) {
  if (text.empty()) return text;
  json::Value value;
  try {
    value = json::parse(text);
  } catch (const CompileError& e) {
    TESSEL_USER_ERROR(prefix(path), "record of task '", record.task_key, "': ", field, ": ",
                      e.what());
  }
  if (!value.is_object())
    TESSEL_USER_ERROR(prefix(path), "record of task '", record.task_key, "': ", field,
                      " is a JSON ", value.kind_name(), ", not an object");
  return json::write(value);
}

void insert(Statement& s, const Record& r, const std::string& path) {
  check_finite(r.costs, "costs", r, path);
  check_finite(r.features, "features", r, path);
  s.reset();
  s.bind(1, r.task_key);
  s.bind(2, r.target);
  s.bind(3, r.task_name);
  s.bind(4, r.template_name);
  s.bind(5, compact_object(r.point_json, "point_json", r, path));
  s.bind(6, compact_object(r.trace_json, "trace_json", r, path));
  s.bind(7, numbers_json(r.costs));
  if (r.ok())
    s.bind(8, r.mean_cost());
  else
    s.bind_null(8);
  s.bind(9, r.error);
  s.bind(10, numbers_json(r.features));
  s.bind(11, r.timestamp);
  s.bind(12, r.version);
  s.step();
}

constexpr const char* kInsertSql =
    "INSERT INTO tessel_records (task_key, target, task_name, template_name, point, trace, "
    "costs, mean_cost, error, features, timestamp, version) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";

template <class T>
std::vector<T> parse_numbers(const std::string& text, const std::string& path, int64_t id,
                             const char* column) {
  std::vector<T> out;
  try {
    json::Value value = json::parse(text);
    if (value.is_array()) {
      for (const auto& v : value.as_array()) {
        if (!v.is_int() && !v.is_double()) break;
        out.push_back(static_cast<T>(v.as_double()));
      }
      if (out.size() == value.as_array().size()) return out;
    }
  } catch (const CompileError&) {
  }
  TESSEL_USER_ERROR(prefix(path), "record ", id, " has ", column,
                    " that are not a JSON array of numbers: ", text);
}

// Reads a row selected with kColumns.
Record read_record(const Statement& s, const std::string& path) {
  Record r;
  int64_t id = s.integer(0);
  r.task_key = s.text(1);
  r.target = s.text(2);
  r.task_name = s.text(3);
  r.template_name = s.text(4);
  r.point_json = s.text(5);
  r.trace_json = s.text(6);
  r.costs = parse_numbers<double>(s.text(7), path, id, "costs");
  r.error = s.text(8);
  r.features = parse_numbers<float>(s.text(9), path, id, "features");
  r.timestamp = s.real(10);
  r.version = s.text(11);
  return r;
}

std::vector<Record> read_all(Statement& s, const std::string& path) {
  std::vector<Record> out;
  while (s.step()) out.push_back(read_record(s, path));
  return out;
}

// ---- JSON lines -----------------------------------------------------------------------

json::Value object_or_null(const std::string& text) {
  return text.empty() ? json::Value() : json::parse(text);
}

json::Value to_json(const Record& r) {
  json::Array costs(r.costs.begin(), r.costs.end());
  json::Array features;
  for (float f : r.features) features.emplace_back(static_cast<double>(f));
  return json::Object{{"task_key", r.task_key},
                      {"target", r.target},
                      {"task_name", r.task_name},
                      {"template", r.template_name},
                      {"point", object_or_null(r.point_json)},
                      {"trace", object_or_null(r.trace_json)},
                      {"costs", std::move(costs)},
                      {"error", r.error},
                      {"features", std::move(features)},
                      {"timestamp", r.timestamp},
                      {"version", r.version}};
}

// Reads one line's object; `where` is "<source>:<line>".
class LineReader {
 public:
  LineReader(const json::Value& object, const std::string& where)
      : object_(object), where_(where) {}

  const json::Value& member(const char* key, bool (json::Value::*is_kind)() const,
                            const char* kind) const {
    const json::Value* v = object_.find(key);
    if (!v) TESSEL_USER_ERROR(where_, ": missing key '", key, "'");
    if (!((*v).*is_kind)())
      TESSEL_USER_ERROR(where_, ": key '", key, "' is ", v->kind_name(), ", expected ", kind);
    return *v;
  }
  std::string string(const char* key) const {
    return member(key, &json::Value::is_string, "a string").as_string();
  }
  double number(const char* key) const {
    const json::Value* v = object_.find(key);
    if (v && v->is_int()) return v->as_double();
    double d = member(key, &json::Value::is_double, "a number").as_double();
    if (!std::isfinite(d)) TESSEL_USER_ERROR(where_, ": key '", key, "' is not finite");
    return d;
  }
  // An object as compact text; null stands for empty text.
  std::string object_text(const char* key) const {
    const json::Value* v = object_.find(key);
    if (v && v->is_null()) return "";
    return json::write(member(key, &json::Value::is_object, "an object or null"));
  }
  template <class T>
  std::vector<T> numbers(const char* key) const {
    const json::Array& array = member(key, &json::Value::is_array, "an array").as_array();
    std::vector<T> out;
    for (size_t i = 0; i < array.size(); ++i) {
      const json::Value& v = array[i];
      if (!v.is_int() && !v.is_double())
        TESSEL_USER_ERROR(where_, ": ", key, "[", i, "] is ", v.kind_name(), ", expected a number");
      out.push_back(static_cast<T>(v.as_double()));
      if (!std::isfinite(out.back()))
        TESSEL_USER_ERROR(where_, ": ", key, "[", i, "] is not a finite number");
    }
    return out;
  }

 private:
  const json::Value& object_;
  const std::string& where_;
};

Record parse_line(const std::string& line, const std::string& where) {
  json::Value value;
  try {
    value = json::parse(line);
  } catch (const CompileError& e) {
    TESSEL_USER_ERROR(where, ": ", e.what());
  }
  if (!value.is_object())
    TESSEL_USER_ERROR(where, ": a line is a JSON ", value.kind_name(), ", expected an object");
  LineReader in(value, where);
  Record r;
  r.task_key = in.string("task_key");
  r.target = in.string("target");
  r.task_name = in.string("task_name");
  r.template_name = in.string("template");
  r.point_json = in.object_text("point");
  r.trace_json = in.object_text("trace");
  r.costs = in.numbers<double>("costs");
  r.error = in.string("error");
  r.features = in.numbers<float>("features");
  r.timestamp = in.number("timestamp");
  r.version = in.string("version");
  return r;
}

bool is_blank(const std::string& line) {
  return line.find_first_not_of(" \t\r\n") == std::string::npos;
}

}  // namespace

// ---- Record ---------------------------------------------------------------------------

double Record::mean_cost() const {
  if (!ok()) return std::numeric_limits<double>::infinity();
  double sum = 0;
  for (double c : costs) sum += c;
  return sum / static_cast<double>(costs.size());
}

// ---- RecordDatabase -------------------------------------------------------------------

RecordDatabase::RecordDatabase(const std::string& path) : path_(path) {
  int rc =
      sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  try {
    if (rc != SQLITE_OK) fail_sqlite(db_, path_, rc, "cannot open");
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    // Check before changing anything: a foreign file must be left as it was.
    std::vector<std::string> tables = table_names(db_, path_);
    if (!tables.empty()) check_schema(db_, path_, tables);
    // WAL with synchronous=NORMAL: a commit is in the OS once add() returns, so killing the
    // process loses nothing; only a power loss may drop the last commits.
    switch_to_wal(db_, path_);
    exec(db_, path_, "PRAGMA synchronous = NORMAL", "cannot set synchronous mode");
    if (tables.empty()) create_schema(db_, path_);
    if (!contains(tables, "tessel_verdicts")) add_verdicts_table(db_, path_);
    if (tables.empty()) check_schema(db_, path_, table_names(db_, path_));
  } catch (...) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw;
  }
}

RecordDatabase::~RecordDatabase() {
  sqlite3_close_v2(db_);
}

void RecordDatabase::add(const Record& record) {
  Statement s(db_, path_, kInsertSql, "cannot store a record");
  insert(s, record, path_);
}

void RecordDatabase::add_all(const std::vector<Record>& records) {
  Transaction tx(db_, path_);
  Statement s(db_, path_, kInsertSql, "cannot store records");
  for (const Record& r : records) insert(s, r, path_);
  tx.commit();
}

std::vector<Record> RecordDatabase::records(const std::string& task_key,
                                            const std::string& target) const {
  Statement s(db_, path_,
              (std::string("SELECT ") + kColumns +
               " FROM tessel_records WHERE task_key = ?1 AND target = ?2 ORDER BY id")
                  .c_str(),
              "cannot read records");
  s.bind(1, task_key);
  s.bind(2, target);
  return read_all(s, path_);
}

void RecordDatabase::settle(const Verdict& verdict) {
  if (!std::isfinite(verdict.ratio))
    TESSEL_USER_ERROR(prefix(path_), "verdict of task '", verdict.task_key, "': ratio is ",
                      verdict.ratio, ", not a finite number");
  Statement s(db_, path_,
              "INSERT INTO tessel_verdicts (task_key, target, point, ratio, timestamp) "
              "VALUES (?1, ?2, ?3, ?4, ?5)",
              "cannot store a verdict");
  s.bind(1, verdict.task_key);
  s.bind(2, verdict.target);
  Record named;
  named.task_key = verdict.task_key;
  s.bind(3, compact_object(verdict.point_json, "point_json", named, path_));
  s.bind(4, verdict.ratio);
  s.bind(5, verdict.timestamp);
  s.step();
}

std::optional<RecordDatabase::Verdict> RecordDatabase::verdict(const std::string& task_key,
                                                               const std::string& target) const {
  Statement s(db_, path_,
              "SELECT point, ratio, timestamp FROM tessel_verdicts WHERE task_key = ?1 AND "
              "target = ?2 ORDER BY id DESC LIMIT 1",
              "cannot read the verdicts");
  s.bind(1, task_key);
  s.bind(2, target);
  if (!s.step()) return std::nullopt;
  return Verdict{task_key, target, s.text(0), s.real(1), s.real(2)};
}

std::optional<Record> RecordDatabase::best(const std::string& task_key,
                                           const std::string& target) const {
  if (std::optional<Verdict> settled = verdict(task_key, target)) {
    Statement s(db_, path_,
                (std::string("SELECT ") + kColumns +
                 " FROM tessel_records WHERE task_key = ?1 AND target = ?2 AND point = ?3 AND "
                 "mean_cost IS NOT NULL ORDER BY id DESC LIMIT 1")
                    .c_str(),
                "cannot read the settled record");
    s.bind(1, task_key);
    s.bind(2, target);
    s.bind(3, settled->point_json);
    if (s.step()) return read_record(s, path_);
  }
  std::vector<RankedPoint> points = best_points(task_key, target, 1);
  if (points.empty()) return std::nullopt;
  return points.front().latest;
}

std::vector<RecordDatabase::RankedPoint> RecordDatabase::best_points(const std::string& task_key,
                                                                     const std::string& target,
                                                                     size_t limit) const {
  Statement s(db_, path_,
              (std::string("WITH points AS (SELECT AVG(mean_cost) AS average_cost, COUNT(*) AS "
                           "measurements, MAX(id) AS latest_id FROM tessel_records WHERE "
                           "task_key = ?1 AND target = ?2 AND mean_cost IS NOT NULL GROUP BY "
                           "point) SELECT ") +
               kColumns +
               ", average_cost, measurements FROM points JOIN tessel_records ON id = latest_id "
               "ORDER BY average_cost, latest_id LIMIT ?3")
                  .c_str(),
              "cannot read the best records");
  s.bind(1, task_key);
  s.bind(2, target);
  constexpr size_t kMax = static_cast<size_t>(std::numeric_limits<int64_t>::max());
  s.bind(3, static_cast<int64_t>(std::min(limit, kMax)));
  std::vector<RankedPoint> out;
  while (s.step()) {
    Record latest = read_record(s, path_);
    out.push_back(
        {std::move(latest), s.real(kColumnCount), static_cast<int>(s.integer(kColumnCount + 1))});
  }
  return out;
}

size_t RecordDatabase::count(const std::string& task_key, const std::string& target) const {
  Statement s(db_, path_, "SELECT COUNT(*) FROM tessel_records WHERE task_key = ?1 AND target = ?2",
              "cannot count records");
  s.bind(1, task_key);
  s.bind(2, target);
  s.step();
  return static_cast<size_t>(s.integer(0));
}

std::vector<std::pair<std::string, size_t>> RecordDatabase::targets() const {
  Statement s(db_, path_,
              "SELECT target, COUNT(*) FROM tessel_records GROUP BY target "
              "ORDER BY COUNT(*) DESC, target",
              "cannot list the records' targets");
  std::vector<std::pair<std::string, size_t>> out;
  while (s.step()) out.emplace_back(s.text(0), static_cast<size_t>(s.integer(1)));
  return out;
}

std::vector<Record> RecordDatabase::records_of_template(const std::string& template_name,
                                                        const std::string& target,
                                                        const std::string& exclude_task_key,
                                                        size_t limit) const {
  Statement s(db_, path_,
              (std::string("SELECT ") + kColumns +
               " FROM tessel_records WHERE template_name = ?1 AND target = ?2 AND task_key != ?3 "
               "ORDER BY task_key, mean_cost IS NULL, mean_cost, id LIMIT ?4")
                  .c_str(),
              "cannot read records of a template");
  s.bind(1, template_name);
  s.bind(2, target);
  s.bind(3, exclude_task_key);
  constexpr size_t kMax = static_cast<size_t>(std::numeric_limits<int64_t>::max());
  s.bind(4, static_cast<int64_t>(std::min(limit, kMax)));
  return read_all(s, path_);
}

std::vector<Record> RecordDatabase::all() const {
  Statement s(db_, path_,
              (std::string("SELECT ") + kColumns + " FROM tessel_records ORDER BY id").c_str(),
              "cannot read records");
  return read_all(s, path_);
}

void RecordDatabase::export_jsonl(std::ostream& out) const {
  Statement s(db_, path_,
              (std::string("SELECT ") + kColumns + " FROM tessel_records ORDER BY id").c_str(),
              "cannot read records");
  while (s.step()) out << json::write(to_json(read_record(s, path_))) << '\n';
  if (!out) TESSEL_USER_ERROR(prefix(path_), "cannot write the exported records");
}

size_t RecordDatabase::import_jsonl(std::istream& in, const std::string& source_name) {
  std::vector<Record> records;
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    if (is_blank(line)) continue;
    records.push_back(parse_line(line, source_name + ":" + std::to_string(number)));
  }
  if (in.bad()) TESSEL_USER_ERROR(source_name, ": cannot read the records to import");
  add_all(records);
  return records.size();
}

}  // namespace tessel::autotune
