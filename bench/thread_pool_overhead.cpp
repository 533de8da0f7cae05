// Launch overhead of tessel_parallel_for against OpenMP's `#pragma omp parallel for`, in
// the same process with the same thread count: an empty body (pure launch and join), a
// small body (saxpy over 1024 floats) and a larger one (saxpy over 64Ki floats, where the
// work is really shared). Reports the median per-launch time in microseconds and the
// ratio tessel / OpenMP. (For bodies shorter than a worker's wake-up, tessel's launching
// thread runs the chunks no worker has claimed yet itself.)
//
// Usage: tessel-bench-threadpool [threads]   (default: the runtime's default thread count)
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "runtime/tessel_runtime.h"
#include "timing.h"

namespace {

constexpr int kLaunchesPerSample = 100;
constexpr int64_t kSmall = 1024;
constexpr int64_t kLarge = 64 * 1024;

/// Keeps the compiler from removing an otherwise empty loop body.
__attribute__((noinline)) void touch(int64_t i) {
  asm volatile("" : : "r"(i) : "memory");
}

struct Saxpy {
  std::vector<float> x, y;
  float a = 1.0001f;
};

int32_t empty_body(int64_t begin, int64_t end, void*) {
  for (int64_t i = begin; i < end; ++i) touch(i);
  return TESSEL_OK;
}

int32_t saxpy_body(int64_t begin, int64_t end, void* env) {
  auto* s = static_cast<Saxpy*>(env);
  for (int64_t i = begin; i < end; ++i) s->y[i] = s->a * s->x[i] + s->y[i];
  return TESSEL_OK;
}

/// Median time of one launch, in microseconds.
template <class Launch>
double per_launch_us(Launch launch) {
  double seconds = tessel::bench::median_seconds(
      [&] {
        for (int k = 0; k < kLaunchesPerSample; ++k) launch();
      },
      1.0, 50);
  return seconds / kLaunchesPerSample * 1e6;
}

/// Lets the other library's idle threads stop spinning before measuring.
void settle() {
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
}

void report(const char* name, double tessel_us, double openmp_us) {
  std::printf("%-22s %12.2f %12.2f %8.2f\n", name, tessel_us, openmp_us, tessel_us / openmp_us);
}

}  // namespace

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : tessel_get_num_threads();
  if (threads < 1 || tessel_set_num_threads(threads) != TESSEL_OK) {
    std::fprintf(stderr, "usage: %s [threads >= 1]\n", argv[0]);
    return 1;
  }
  omp_set_num_threads(threads);
  omp_set_dynamic(0);
  Saxpy s;
  s.x.assign(kLarge, 0.5f);
  s.y.assign(kLarge, 0.25f);
  const int64_t chunks = threads;

  std::printf("threads: %d (hardware concurrency %u), median of samples of %d launches\n", threads,
              std::thread::hardware_concurrency(), kLaunchesPerSample);
  std::printf("%-22s %12s %12s %8s\n", "body", "tessel_us", "openmp_us", "ratio");

  settle();
  double tessel_empty = per_launch_us([&] { tessel_parallel_for(chunks, empty_body, nullptr); });
  settle();
  double openmp_empty = per_launch_us([&] {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < chunks; ++i) touch(i);
  });
  report("empty (1 iter/thread)", tessel_empty, openmp_empty);

  for (int64_t n : {kSmall, kLarge}) {
    settle();
    double tessel_us = per_launch_us([&] { tessel_parallel_for(n, saxpy_body, &s); });
    settle();
    double openmp_us = per_launch_us([&] {
#pragma omp parallel for schedule(static)
      for (int64_t i = 0; i < n; ++i) s.y[i] = s.a * s.x[i] + s.y[i];
    });
    report(n == kSmall ? "saxpy 1Ki floats" : "saxpy 64Ki floats", tessel_us, openmp_us);
  }
  return 0;
}
