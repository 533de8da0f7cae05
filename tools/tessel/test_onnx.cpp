// `tessel test-onnx`: runs ONNX backend test cases, each in its own child process (a crash
// or a hang fails that case only), several at a time with --jobs.
//
//   tessel test-onnx <dir>... [--jobs N] [--timeout S] [--expected FILE] [--report FILE]
//                    [--rtol X] [--atol X] [--compiled] [--no-fusion] [--no-blocked-layout]
//                    [--no-winograd] [--symbolic-batch] [--target T]
//
// --compiled runs each case through a compiled model library (.so) loaded by the runtime,
// the way an application runs a model compiled with `tessel compile`. --symbolic-batch
// compiles each model once with its symbolic leading dimensions kept, for every data set.
// --target compiles for another target this machine runs (e.g. x86-64-avx2).
// Prints one line per case in case order (pass / FAIL with the worst mismatch / skip with
// the reason) and ends with "N passed, N failed, N skipped". With --expected, the exit code
// is non-zero when a listed case does not pass; cases that pass but are not listed are
// reported so that the list can grow. Without it, any case that does not pass (a failure,
// or a model that does not compile) gives a non-zero exit.
// --report writes one tab-separated line per case: name, status, operators, message.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "commands.h"
#include "onnx_case.h"
#include "support/error.h"
#include "target/parse_target.h"

namespace tessel::cli {

namespace {

struct Options {
  std::vector<std::string> roots;
  int jobs = 1;
  double timeout_s = 120;
  std::string expected_file;
  std::string report_file;
  CaseOptions case_options;
};

Options parse_options(const std::vector<std::string>& args) {
  Options options;
  for (size_t k = 0; k < args.size(); ++k) {
    auto value = [&]() -> const std::string& {
      if (k + 1 >= args.size()) TESSEL_USER_ERROR("option ", args[k], " needs a value");
      return args[++k];
    };
    if (args[k] == "--jobs" || args[k] == "-j") options.jobs = std::max(1, std::stoi(value()));
    else if (args[k] == "--timeout") options.timeout_s = std::stod(value());
    else if (args[k] == "--expected") options.expected_file = value();
    else if (args[k] == "--report") options.report_file = value();
    else if (args[k] == "--rtol") options.case_options.rtol = std::stod(value());
    else if (args[k] == "--atol") options.case_options.atol = std::stod(value());
    else if (args[k] == "--compiled") options.case_options.through_library = true;
    else if (args[k] == "--no-fusion") options.case_options.fusion = false;
    else if (args[k] == "--no-blocked-layout") options.case_options.blocked_layout = false;
    else if (args[k] == "--no-winograd") options.case_options.winograd = false;
    else if (args[k] == "--symbolic-batch") options.case_options.symbolic_batch = true;
    else if (args[k] == "--target") options.case_options.target = target::parse_target(value());
    else if (args[k].rfind("--", 0) == 0) TESSEL_USER_ERROR("unknown option ", args[k]);
    else options.roots.push_back(args[k]);
  }
  if (options.roots.empty()) TESSEL_USER_ERROR("test-onnx: give at least one folder of cases");
  return options;
}

// The child's result travels as "<status>\t<ops comma-separated>\t<message>".
std::string encode(const CaseResult& r) {
  std::string ops;
  for (const auto& op : r.ops) ops += (ops.empty() ? "" : ",") + op;
  std::string message = r.message.substr(0, 4000);
  for (char& c : message)
    if (c == '\n' || c == '\t') c = ' ';
  return std::to_string(static_cast<int>(r.status)) + "\t" + ops + "\t" + message;
}

CaseResult decode(const std::string& text) {
  CaseResult r;
  size_t a = text.find('\t'), b = a == std::string::npos ? a : text.find('\t', a + 1);
  if (b == std::string::npos) {
    r.message = "the case process sent no result";
    return r;
  }
  r.status = static_cast<CaseStatus>(std::stoi(text.substr(0, a)));
  std::stringstream ops(text.substr(a + 1, b - a - 1));
  for (std::string op; std::getline(ops, op, ',');) r.ops.push_back(op);
  r.message = text.substr(b + 1);
  return r;
}

struct Running {
  size_t index;
  int fd;
  std::string output;
  std::chrono::steady_clock::time_point start;
  bool killed = false;
};

pid_t spawn(const std::string& dir, const CaseOptions& case_options, int& read_fd) {
  int fds[2];
  if (pipe(fds) != 0) TESSEL_USER_ERROR("test-onnx: pipe() failed");
  std::cout.flush();
  pid_t pid = fork();
  if (pid < 0) TESSEL_USER_ERROR("test-onnx: fork() failed");
  if (pid == 0) {
    close(fds[0]);
    std::string text = encode(run_onnx_case(dir, case_options));
    size_t written = 0;
    while (written < text.size()) {
      ssize_t n = write(fds[1], text.data() + written, text.size() - written);
      if (n <= 0) break;
      written += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  read_fd = fds[0];
  return pid;
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) return "the case crashed with signal " + std::to_string(WTERMSIG(status));
  return "the case process exited with status " + std::to_string(WEXITSTATUS(status));
}

/// Runs every case with at most `jobs` processes; calls `done(index, result)` in case order.
template <class Done>
void run_all(const std::vector<std::string>& cases, const Options& options, Done done) {
  std::map<pid_t, Running> running;
  std::vector<std::optional<CaseResult>> results(cases.size());
  size_t next = 0, next_report = 0;
  while (next_report < cases.size()) {
    while (running.size() < static_cast<size_t>(options.jobs) && next < cases.size()) {
      int fd = -1;
      pid_t pid = spawn(cases[next], options.case_options, fd);
      running[pid] = Running{next++, fd, {}, std::chrono::steady_clock::now()};
    }
    std::vector<pollfd> fds;
    std::vector<pid_t> pids;
    for (auto& [pid, r] : running) {
      fds.push_back({r.fd, POLLIN, 0});
      pids.push_back(pid);
    }
    if (!fds.empty()) poll(fds.data(), fds.size(), 100);
    for (size_t k = 0; k < fds.size(); ++k) {
      Running& r = running[pids[k]];
      if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buffer[4096];
        ssize_t n = read(r.fd, buffer, sizeof buffer);
        if (n > 0) {
          r.output.append(buffer, static_cast<size_t>(n));
          continue;
        }
        close(r.fd);
        int status = 0;
        waitpid(pids[k], &status, 0);
        CaseResult result = decode(r.output);
        if (r.killed) {
          result = CaseResult{};
          result.message = "timed out after " + std::to_string(options.timeout_s) + " s";
        } else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
          result.status = CaseStatus::Fail;
          result.message = describe_exit(status);
        }
        results[r.index] = std::move(result);
        running.erase(pids[k]);
        continue;
      }
      double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - r.start).count();
      if (!r.killed && seconds > options.timeout_s) {
        kill(pids[k], SIGKILL);
        r.killed = true;
      }
    }
    while (next_report < cases.size() && results[next_report]) {
      done(next_report, *results[next_report]);
      ++next_report;
    }
  }
}

std::set<std::string> read_list(const std::string& path) {
  std::ifstream in(path);
  if (!in) TESSEL_USER_ERROR("cannot read the list of expected cases '", path, "'");
  std::set<std::string> names;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    names.insert(line);
  }
  return names;
}

}  // namespace

int run_test_onnx(const std::vector<std::string>& args) {
  Options options = parse_options(args);
  std::vector<std::string> cases;
  for (const std::string& root : options.roots)
    for (const std::string& c : find_onnx_cases(root)) cases.push_back(c);
  std::set<std::string> expected;
  if (!options.expected_file.empty()) expected = read_list(options.expected_file);
  std::ofstream report;
  if (!options.report_file.empty()) {
    report.open(options.report_file);
    if (!report) TESSEL_USER_ERROR("cannot write the report '", options.report_file, "'");
  }
  int passed = 0, failed = 0, skipped = 0;
  std::vector<std::string> regressions, newly_passing;
  run_all(cases, options, [&](size_t index, const CaseResult& r) {
    std::string name = std::filesystem::path(cases[index]).filename().string();
    const char* label = r.status == CaseStatus::Pass ? "pass" : r.status == CaseStatus::Fail ? "FAIL" : "skip";
    std::cout << label << "  " << name << (r.message.empty() ? "" : ": " + r.message) << "\n";
    std::cout.flush();
    if (r.status == CaseStatus::Pass) ++passed;
    else if (r.status == CaseStatus::Fail) ++failed;
    else ++skipped;
    bool listed = expected.count(name) > 0;
    if (listed && r.status != CaseStatus::Pass) regressions.push_back(name);
    if (!options.expected_file.empty() && !listed && r.status == CaseStatus::Pass)
      newly_passing.push_back(name);
    if (report.is_open()) {
      std::string ops;
      for (const auto& op : r.ops) ops += (ops.empty() ? "" : ",") + op;
      report << name << "\t" << label << "\t" << ops << "\t" << r.message << "\n";
    }
  });
  if (!newly_passing.empty()) {
    std::cout << "newly passing (not in " << options.expected_file << "):";
    for (const auto& n : newly_passing) std::cout << " " << n;
    std::cout << "\n";
  }
  if (!regressions.empty()) {
    std::cout << "expected to pass but did not:";
    for (const auto& n : regressions) std::cout << " " << n;
    std::cout << "\n";
  }
  std::cout << passed << " passed, " << failed << " failed, " << skipped << " skipped\n";
  if (!options.expected_file.empty()) return regressions.empty() ? 0 : 1;
  return failed == 0 && skipped == 0 ? 0 : 1;
}

}  // namespace tessel::cli
