// The thread pool behind tessel_parallel_for: spinning workers woken through a futex.
//
// Protocol (one launch at a time, serialised by g_launch_mutex; launches that need one
// thread only run on their caller and never take the mutex):
//  launcher: writes job_, sets pending_ to chunks - 1, publishes a new ticket_
//            (generation, chunks), wakes sleepers, runs chunk 0, then claims and runs
//            every chunk no worker has claimed yet, and waits for pending_ to reach 0.
//  worker i: waits for a ticket different from the last one seen; when i < chunks,
//            claims chunk i (then any other unclaimed one), runs it and decrements
//            pending_.
// A chunk is claimed by a compare-and-swap of its generation tag, and job_ is read only
// after a successful claim: a claim for generation g succeeds only while launch g is
// unfinished (its chunk is pending), so job_ still holds launch g, and a worker that
// wakes up late cannot run a stale chunk nor read a later launch's job.
// Sleeping uses the Dekker pattern (announce, then re-check) with seq_cst operations on
// both sides, so a wake-up is never lost.
#include "runtime/thread_pool.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <exception>
#include <memory>

#include "runtime/error.h"

namespace tessel::runtime {
namespace {

/// How long an idle thread waits actively before it sleeps, and how much of that it
/// busy-waits before it starts yielding.
constexpr std::chrono::microseconds kSpinTime{100};
constexpr std::chrono::microseconds kBusyTime{5};

thread_local bool t_in_parallel = false;

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

void futex_wait(std::atomic<uint32_t>* word, uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr,
          nullptr, 0);
}

void futex_wake(std::atomic<uint32_t>* word, int count) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, count, nullptr, nullptr,
          0);
}

/// Waits actively until `done()` or until kSpinTime has passed; returns whether `done()`
/// held. Busy-waits first, then yields between checks, so that a thread sharing this core
/// (more threads than free cores) can run and finish its chunk.
template <class Done>
bool spin_until(Done done) {
  auto start = std::chrono::steady_clock::now();
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
      cpu_relax();
    }
    auto waited = std::chrono::steady_clock::now() - start;
    if (waited > kSpinTime) return false;
    if (waited > kBusyTime) std::this_thread::yield();
  }
}

/// Marks the calling thread as inside a parallel body for its lifetime.
class ParallelRegion {
 public:
  ParallelRegion() : saved_(t_in_parallel) { t_in_parallel = true; }
  ~ParallelRegion() { t_in_parallel = saved_; }

 private:
  bool saved_;
};

/// The hardware's thread count, asked once: hardware_concurrency() reads sysfs, which
/// costs microseconds, and callers ask between kernel launches.
int default_num_threads() {
  static const int count = [] {
    unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : static_cast<int>(n);
  }();
  return count;
}

// The process-wide pool; g_launch_mutex guards it and serialises launches.
std::mutex g_launch_mutex;
std::unique_ptr<ThreadPool> g_pool;
// The chosen thread count, 0 for the default; read without the lock, so that a parallel
// body may ask for it.
std::atomic<int> g_num_threads{0};

/// A child made by fork() has none of the parent's workers: it drops (leaks) the copied
/// pool and starts one of its own on its first launch. fork() must not race a launch.
void forget_pool_in_child() {
  (void)g_pool.release();
}

/// Creates the pool; the caller holds g_launch_mutex.
void start_pool() {
  static std::once_flag at_fork;
  std::call_once(at_fork, [] { pthread_atfork(nullptr, nullptr, forget_pool_in_child); });
  g_pool = std::make_unique<ThreadPool>(num_threads());
}

/// Runs body on [begin, end) and turns an escaping exception into a status.
int32_t call_body(tessel_parallel_body body, int64_t begin, int64_t end, void* env,
                  std::string* error) {
  try {
    return body(begin, end, env);
  } catch (const std::exception& e) {
    if (error) *error = std::string("exception in parallel body: ") + e.what();
  } catch (...) {
    if (error) *error = "unknown exception in parallel body";
  }
  return TESSEL_ERR_EXCEPTION;
}

}  // namespace

ThreadPool::ThreadPool(int num_threads) {
  if (num_threads < 1)
    throw Error("thread pool needs at least 1 thread, got " + std::to_string(num_threads));
  claims_ = std::make_unique<std::atomic<uint32_t>[]>(num_threads);
  for (int i = 0; i < num_threads; ++i) claims_[i].store(0, std::memory_order_relaxed);
  workers_.reserve(num_threads - 1);
  try {
    for (int i = 1; i < num_threads; ++i) workers_.emplace_back([this, i] { worker_loop(i, 0); });
  } catch (...) {  // a thread could not be started: stop the ones that were
    stop_workers();
    throw;
  }
}

ThreadPool::~ThreadPool() {
  stop_workers();
}

void ThreadPool::stop_workers() {
  stop_.store(true, std::memory_order_seq_cst);
  ticket_.fetch_add(uint64_t{1} << 32, std::memory_order_seq_cst);
  wake_.fetch_add(1, std::memory_order_seq_cst);
  futex_wake(&wake_, INT_MAX);
  for (std::thread& t : workers_) t.join();
}

uint64_t ThreadPool::wait_for_ticket(uint64_t seen) {
  uint64_t ticket = seen;
  if (spin_until([&] { return (ticket = ticket_.load(std::memory_order_acquire)) != seen; }))
    return ticket;
  for (;;) {
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    uint32_t wake = wake_.load(std::memory_order_seq_cst);
    ticket = ticket_.load(std::memory_order_seq_cst);
    if (ticket == seen) futex_wait(&wake_, wake);
    sleepers_.fetch_sub(1, std::memory_order_seq_cst);
    ticket = ticket_.load(std::memory_order_acquire);
    if (ticket != seen) return ticket;
  }
}

void ThreadPool::worker_loop(int index, uint64_t seen) {
  t_in_parallel = true;  // a worker's own launches run serially
  for (;;) {
    seen = wait_for_ticket(seen);
    if (stop_.load(std::memory_order_acquire)) return;
    int chunks = static_cast<int>(seen & 0xffffffffu);
    if (index < chunks) help(index, chunks, static_cast<uint32_t>(seen >> 32));
  }
}

bool ThreadPool::claim(int index, uint32_t generation) {
  uint32_t tag = claims_[index].load(std::memory_order_acquire);
  while (static_cast<int32_t>(tag - generation) < 0)  // claimed only by earlier launches
    if (claims_[index].compare_exchange_weak(tag, generation, std::memory_order_acq_rel))
      return true;
  return false;
}

void ThreadPool::help(int first, int chunks, uint32_t generation) {
  for (int k = 0; k < chunks; ++k) {
    int index = (first + k) % chunks;
    if (index == 0 || !claim(index, generation)) continue;  // chunk 0 is the launcher's
    run_chunk(index);
    if (pending_.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
        caller_sleeping_.load(std::memory_order_seq_cst))
      futex_wake(&pending_, 1);
  }
}

void ThreadPool::run_chunk(int index) {
  const Job& job = job_;
  int64_t base = job.extent / job.num_chunks;
  int64_t extra = job.extent % job.num_chunks;
  int64_t begin = index * base + std::min<int64_t>(index, extra);
  int64_t end = begin + base + (index < extra ? 1 : 0);
  std::string message;
  int32_t status = call_body(job.body, begin, end, job.env, &message);
  if (status != TESSEL_OK) record_status(status, message.empty() ? nullptr : message.c_str());
}

void ThreadPool::record_status(int32_t status, const char* message) {
  int32_t ok = TESSEL_OK;
  if (!status_.compare_exchange_strong(ok, status, std::memory_order_acq_rel)) return;
  if (!message) return;
  std::lock_guard<std::mutex> lock(error_mutex_);
  error_message_ = message;
}

void ThreadPool::wait_for_workers() {
  if (spin_until([&] { return pending_.load(std::memory_order_acquire) == 0; })) return;
  for (;;) {
    caller_sleeping_.store(1, std::memory_order_seq_cst);
    uint32_t pending = pending_.load(std::memory_order_seq_cst);
    if (pending == 0) break;
    futex_wait(&pending_, pending);
  }
  caller_sleeping_.store(0, std::memory_order_seq_cst);
}

int32_t ThreadPool::run(int64_t extent, tessel_parallel_body body, void* env) {
  if (extent <= 0) return TESSEL_OK;
  int chunks = static_cast<int>(std::min<int64_t>(extent, num_threads()));
  ParallelRegion region;
  error_message_.clear();
  if (chunks == 1) {
    int32_t status = call_body(body, 0, extent, env, &error_message_);
    return status;
  }
  job_ = Job{body, env, extent, chunks};
  status_.store(TESSEL_OK, std::memory_order_relaxed);
  pending_.store(static_cast<uint32_t>(chunks - 1), std::memory_order_relaxed);
  uint32_t generation = static_cast<uint32_t>(ticket_.load(std::memory_order_relaxed) >> 32) + 1;
  ticket_.store((uint64_t{generation} << 32) | static_cast<uint32_t>(chunks),
                std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) > 0) {
    wake_.fetch_add(1, std::memory_order_seq_cst);
    futex_wake(&wake_, INT_MAX);
  }
  run_chunk(0);
  help(1, chunks, generation);
  wait_for_workers();
  return status_.load(std::memory_order_acquire);
}

void set_num_threads(int num_threads) {
  if (num_threads < 0)
    throw Error("set_num_threads: expected a thread count >= 0, got " +
                std::to_string(num_threads));
  if (t_in_parallel) throw Error("set_num_threads: cannot be called inside a parallel body");
  std::lock_guard<std::mutex> lock(g_launch_mutex);
  int wanted = num_threads == 0 ? default_num_threads() : num_threads;
  if (g_pool && g_pool->num_threads() != wanted) g_pool.reset();
  g_num_threads.store(num_threads);
}

int num_threads() {
  int n = g_num_threads.load();
  return n == 0 ? default_num_threads() : n;
}

bool in_parallel_region() {
  return t_in_parallel;
}

int32_t parallel_for(int64_t extent, tessel_parallel_body body, void* env, std::string* error) {
  if (!body) {
    if (error) *error = "tessel_parallel_for: the body is null";
    return TESSEL_ERR_INVALID_ARGUMENT;
  }
  if (extent <= 0) return TESSEL_OK;
  // Nested, one thread chosen or one iteration: the caller runs the body itself without
  // taking the pool, so that single-threaded runs on many application threads do not queue
  // for it. (The default count is not asked for here: hardware_concurrency() reads sysfs.)
  if (t_in_parallel || extent == 1 || g_num_threads.load() == 1) {
    ParallelRegion region;
    return call_body(body, 0, extent, env, error);
  }
  try {
    std::lock_guard<std::mutex> lock(g_launch_mutex);
    if (!g_pool) start_pool();
    int32_t status = g_pool->run(extent, body, env);
    if (status != TESSEL_OK && error) *error = g_pool->error_message();
    return status;
  } catch (const std::exception& e) {  // thread creation failed
    if (error) *error = std::string("tessel_parallel_for: ") + e.what();
    return TESSEL_ERR_EXCEPTION;
  }
}

}  // namespace tessel::runtime
