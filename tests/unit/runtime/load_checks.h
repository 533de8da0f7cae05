// Checks of a model under load shared by the runtime and deploy tests: one model run from
// many threads at once, every result compared bitwise with the single-threaded one; a
// library loaded and unloaded many times with the resident memory watched.
#pragma once

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace tessel::runtime::test {

/// A run's outputs, as bytes.
using OutputBytes = std::vector<std::vector<uint8_t>>;

/// The bytes of `values`.
template <class T>
std::vector<uint8_t> bytes_of(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

/// Starts `threads` threads together; thread t calls run(t, r % expected.size()) for r in
/// [0, runs) (so threads run different inputs at the same time) and compares what it
/// returns with expected[input] byte for byte. Returns the number of runs that differ or
/// throw, and describes the first in `first_problem`.
inline int concurrent_mismatches(int threads, int runs, const std::vector<OutputBytes>& expected,
                                 const std::function<OutputBytes(int, size_t)>& run,
                                 std::string& first_problem) {
  std::atomic<int> waiting{threads}, mismatches{0};
  std::atomic<bool> described{false};
  auto note = [&](const std::string& problem) {
    ++mismatches;
    if (!described.exchange(true)) first_problem = problem;
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      --waiting;
      while (waiting.load() > 0) std::this_thread::yield();
      for (int r = 0; r < runs; ++r) {
        size_t input = static_cast<size_t>(t + r) % expected.size();
        try {
          if (run(t, input) != expected[input])
            note("thread " + std::to_string(t) + ", run " + std::to_string(r) + ": input " +
                 std::to_string(input) + " gave other outputs than on one thread");
        } catch (const std::exception& e) {
          note("thread " + std::to_string(t) + ", run " + std::to_string(r) + ": " + e.what());
        }
      }
    });
  for (std::thread& th : pool) th.join();
  return mismatches.load();
}

/// The resident memory of this process now, in bytes (from /proc/self/statm).
inline int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size_pages = 0, resident_pages = 0;
  statm >> size_pages >> resident_pages;
  return resident_pages * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

/// Resident memory around `cycles` calls of load_and_unload, after `warmup` calls (the
/// allocator's and the loader's first-use growth).
struct LoadCycles {
  int64_t rss_start = 0, rss_end = 0;
  double seconds = 0;
};

inline LoadCycles run_load_cycles(int warmup, int cycles,
                                  const std::function<void()>& load_and_unload) {
  for (int i = 0; i < warmup; ++i) load_and_unload();
  LoadCycles result;
  result.rss_start = resident_bytes();
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < cycles; ++i) load_and_unload();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.rss_end = resident_bytes();
  return result;
}

/// Whether this build runs under AddressSanitizer or ThreadSanitizer, whose allocators hold
/// freed memory for a while (so the resident memory grows by design).
constexpr bool kSanitizedAllocator =
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    true;
#else
    false;
#endif
#else
    false;
#endif

}  // namespace tessel::runtime::test
