// LocalRunner: one forked worker per candidate run, its report through a pipe.
#include "autotune/runner.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <functional>
#include <sstream>
#include <string>

#include "support/error.h"

namespace tessel::autotune {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Writes all of `text` to `fd` (the worker's report).
void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

/// Reads the worker's report until it closes the pipe or `deadline` passes; false on time-out.
bool read_report(int fd, Clock::time_point deadline, std::string& report) {
  char buffer[4096];
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    report.append(buffer, static_cast<size_t>(n));
  }
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status))
    return "crashed: signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "worker exited with status " + std::to_string(WEXITSTATUS(status)) + " and no report";
}

}  // namespace

MeasureResult LocalRunner::run(const driver::Kernel& candidate, const Workload& workload,
                               const MeasureOptions& options, size_t index) const {
  int fds[2];
  if (::pipe(fds) != 0) TESSEL_INTERNAL_ERROR("pipe failed: ", std::strerror(errno));
  pid_t pid = ::fork();
  if (pid < 0) TESSEL_INTERNAL_ERROR("fork failed: ", std::strerror(errno));
  if (pid == 0) {
    // The worker: the kernel, inputs and reference are this process's copies.
    ::close(fds[0]);
    std::string report;
    try {
      if (options.in_worker && index != kDefault) options.in_worker(index);
      std::vector<runtime::NDArray>& args = workload.args;
      std::vector<void*> pointers;
      for (runtime::NDArray& array : args) pointers.push_back(array.data());
      const compiler::GroupKernel& k = workload.kernel;
      // Outputs start as NaN so that elements the candidate never writes are caught.
      for (size_t a = k.num_inputs; a < args.size(); ++a)
        std::memset(args[a].data(), 0xff, static_cast<size_t>(args[a].nbytes()));
      auto run = [&] { candidate.run(pointers); };
      auto start = Clock::now();
      run();
      double first = seconds_since(start);
      for (size_t o = 0; o < workload.reference.size() && report.empty(); ++o)
        report = compare_outputs(args[k.num_inputs + o], workload.reference[o], options, o);
      std::function<void()> baseline;
      if (index != kDefault && options.relative_to_default)
        baseline = [&] { workload.baseline.run(pointers); };
      std::function<void()> evict_constants;
      if (options.cold_constants)
        evict_constants = [&] {
          for (size_t a = 0; a < k.num_inputs; ++a)
            if (k.arg_values[a]->constant)
              evict_from_caches(args[a].data(), static_cast<size_t>(args[a].nbytes()));
        };
      if (report.empty()) {
        std::ostringstream costs;
        costs.precision(9);
        costs << "ok";
        for (double c : time_repeats(run, first, baseline, workload.baseline_seconds, options,
                                     evict_constants))
          costs << " " << c;
        report = costs.str();
      }
    } catch (const std::exception& e) {
      report = std::string("run failed: ") + e.what();
    }
    write_all(fds[1], report);
    ::_exit(0);  // no destructors or atexit handlers of the parent's state
  }
  ::close(fds[1]);
  std::string report;
  bool finished =
      read_report(fds[0],
                  Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(options.timeout_seconds)),
                  report);
  ::close(fds[0]);
  if (!finished) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  MeasureResult result;
  if (!finished) {
    result.error = "timed out after " + std::to_string(options.timeout_seconds) + " s";
  } else if (report.rfind("ok", 0) == 0) {
    std::istringstream costs(report.substr(2));
    for (double c; costs >> c;) result.costs.push_back(c);
  } else {
    result.error = report.empty() ? describe_exit(status) : report;
  }
  return result;
}

}  // namespace tessel::autotune
