// The runtime's thread pool: a fixed set of workers that run parallel loops.
//
// A launch splits [0, extent) into contiguous chunks, one per thread; the calling thread
// runs the first chunk itself, worker i the i-th. A chunk whose worker has not started it
// yet (asleep, or descheduled when there are more threads than free cores) is taken over
// by a thread that is done with its own, so a launch never waits for a thread to wake up.
// Idle workers spin for a short while (so back-to-back launches cost a few microseconds)
// and then sleep on a futex. Parallel loops started from inside a parallel body run
// serially on the calling thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/tessel_runtime.h"

namespace tessel::runtime {

/// Sets the number of threads (the caller included) used by parallel loops;
/// 0 means the default, std::thread::hardware_concurrency(). Safe to call from several
/// threads at once and during other threads' launches (it waits for the launch in
/// progress; a changed count replaces the pool). Throws Error when negative or when called
/// from inside a parallel body.
void set_num_threads(int num_threads);

/// The number of threads (the caller included) used by parallel loops.
int num_threads();

/// Whether the calling thread is running a parallel body (nested launches run serially).
bool in_parallel_region();

/// Runs body over [0, extent) on the process-wide pool (created on first use) and returns
/// the first non-zero status. Launches from several threads at once take the pool in turn,
/// each whole; with one thread (or one iteration) the caller runs the body itself, so
/// single-threaded launches from several threads run at the same time. Never throws: failures are
/// statuses, and when `error` is given it receives a message for them.
int32_t parallel_for(int64_t extent, tessel_parallel_body body, void* env,
                     std::string* error = nullptr);

/// A pool of `num_threads - 1` workers plus the launching thread.
class ThreadPool {
 public:
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  /// Runs body over [0, extent) in contiguous chunks; returns the first non-zero status.
  /// One launch at a time: the caller serialises launches (see parallel_for in c_api.cpp).
  /// Never throws: an exception escaping the body becomes TESSEL_ERR_EXCEPTION and its
  /// message is kept in `error_message()`.
  int32_t run(int64_t extent, tessel_parallel_body body, void* env);

  /// The message of the exception that failed the last launch, if any.
  const std::string& error_message() const { return error_message_; }

 private:
  /// What a launch asks of the workers; written before `ticket_` is published and not
  /// changed until every participating worker has finished.
  struct Job {
    tessel_parallel_body body = nullptr;
    void* env = nullptr;
    int64_t extent = 0;
    int num_chunks = 0;
  };

  void stop_workers();
  void worker_loop(int index, uint64_t seen);
  uint64_t wait_for_ticket(uint64_t seen);
  /// Claims chunk `index` for launch `generation`; false when someone else has.
  bool claim(int index, uint32_t generation);
  /// Runs every chunk it can claim, starting at `first` and wrapping around.
  void help(int first, int chunks, uint32_t generation);
  void run_chunk(int index);
  void record_status(int32_t status, const char* message);
  void wait_for_workers();

  Job job_;
  /// (generation << 32) | number of chunks; a new value starts a launch.
  std::atomic<uint64_t> ticket_{0};
  /// Per chunk, the last generation that claimed it (compared modulo 2^32).
  std::unique_ptr<std::atomic<uint32_t>[]> claims_;
  /// Futex word the sleeping workers wait on, and their number.
  std::atomic<uint32_t> wake_{0};
  std::atomic<int32_t> sleepers_{0};
  /// Chunks other than the first not finished yet (a futex word for the launcher).
  std::atomic<uint32_t> pending_{0};
  std::atomic<int32_t> caller_sleeping_{0};
  std::atomic<int32_t> status_{0};
  std::atomic<bool> stop_{false};
  std::mutex error_mutex_;
  std::string error_message_;
  std::vector<std::thread> workers_;
};

}  // namespace tessel::runtime
