// The thread pool behind tessel_parallel_for: every index runs exactly once, over many
// launches, thread counts and extents; statuses and exceptions come back as statuses;
// nested and concurrent launches.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "runtime/error.h"
#include "runtime/tessel_runtime.h"
#include "runtime/thread_pool.h"

namespace tessel::runtime {
namespace {

/// Counts how many times each index ran and records which chunks were seen.
struct Coverage {
  std::vector<std::atomic<int>> hits;
  std::atomic<int> chunks{0};
  explicit Coverage(int64_t n) : hits(n) {}
};

int32_t count_body(int64_t begin, int64_t end, void* env) {
  auto* c = static_cast<Coverage*>(env);
  for (int64_t i = begin; i < end; ++i) c->hits[i].fetch_add(1, std::memory_order_relaxed);
  c->chunks.fetch_add(1, std::memory_order_relaxed);
  return TESSEL_OK;
}

class ThreadPoolThreads : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { set_num_threads(GetParam()); }
  void TearDown() override { set_num_threads(0); }
};

TEST_P(ThreadPoolThreads, EveryIndexRunsOnceOverManyLaunches) {
  const int threads = GetParam();
  EXPECT_EQ(num_threads(), threads);
  EXPECT_EQ(tessel_get_num_threads(), threads);
  for (int64_t extent : {1, 2, 3, 7, 64, 1001}) {
    Coverage c(extent);
    const int launches = 2000;
    for (int l = 0; l < launches; ++l)
      ASSERT_EQ(tessel_parallel_for(extent, count_body, &c), TESSEL_OK);
    for (int64_t i = 0; i < extent; ++i)
      ASSERT_EQ(c.hits[i].load(), launches) << "extent " << extent;
    // Contiguous chunks: one per thread at most.
    EXPECT_EQ(c.chunks.load(), launches * std::min<int64_t>(extent, threads));
  }
}

TEST_P(ThreadPoolThreads, ChunksRunOnDistinctThreadsWhenWorkersAreAwake) {
  // Each chunk waits (up to 10 s) until every thread has arrived: the workers run their
  // own chunks while the caller runs the first, so all threads take part.
  struct Seen {
    std::mutex mutex;
    std::set<std::thread::id> ids;
    size_t wanted = 0;
  } seen;
  seen.wanted = static_cast<size_t>(GetParam());
  auto body = [](int64_t, int64_t, void* env) -> int32_t {
    auto* s = static_cast<Seen*>(env);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(s->mutex);
        s->ids.insert(std::this_thread::get_id());
        if (s->ids.size() == s->wanted) return TESSEL_OK;
      }
      if (std::chrono::steady_clock::now() > deadline) return 1;
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  };
  ASSERT_EQ(tessel_parallel_for(GetParam(), body, &seen), TESSEL_OK);
  EXPECT_EQ(seen.ids.size(), seen.wanted);
  EXPECT_TRUE(seen.ids.count(std::this_thread::get_id()));  // the caller works too
}

TEST_P(ThreadPoolThreads, FirstNonZeroStatusIsReturned) {
  auto fail_high = [](int64_t begin, int64_t, void*) -> int32_t {
    return begin > 0 ? 42 : TESSEL_OK;
  };
  auto fail_all = [](int64_t, int64_t, void*) -> int32_t { return 7; };
  int32_t expected_high = GetParam() > 1 ? 42 : TESSEL_OK;  // one thread: a single chunk from 0
  EXPECT_EQ(tessel_parallel_for(100, fail_high, nullptr), expected_high);
  EXPECT_EQ(tessel_parallel_for(100, fail_all, nullptr), 7);
  EXPECT_EQ(tessel_parallel_for(0, fail_all, nullptr), TESSEL_OK);
  EXPECT_EQ(tessel_parallel_for(-5, fail_all, nullptr), TESSEL_OK);
  EXPECT_EQ(tessel_parallel_for(10, nullptr, nullptr), TESSEL_ERR_INVALID_ARGUMENT);
}

TEST_P(ThreadPoolThreads, ExceptionsBecomeStatuses) {
  // Thrown on the caller's chunk and on workers' chunks: never escapes the C API.
  auto throw_all = [](int64_t, int64_t, void*) -> int32_t { throw std::runtime_error("boom"); };
  auto throw_high = [](int64_t begin, int64_t, void*) -> int32_t {
    if (begin > 0) throw 17;
    return TESSEL_OK;
  };
  EXPECT_EQ(tessel_parallel_for(100, throw_all, nullptr), TESSEL_ERR_EXCEPTION);
  EXPECT_NE(std::string(tessel_last_error()).find("boom"), std::string::npos)
      << tessel_last_error();
  if (GetParam() > 1) {
    EXPECT_EQ(tessel_parallel_for(100, throw_high, nullptr), TESSEL_ERR_EXCEPTION);
  }
  // The pool still works afterwards.
  Coverage c(50);
  EXPECT_EQ(tessel_parallel_for(50, count_body, &c), TESSEL_OK);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(c.hits[i].load(), 1);
}

TEST_P(ThreadPoolThreads, NestedLaunchesRunSeriallyInTheirThread) {
  struct Env {
    std::atomic<int> total{0};
    std::atomic<int> foreign{0};
  } env;
  auto outer = [](int64_t begin, int64_t end, void* e) -> int32_t {
    auto* self = static_cast<Env*>(e);
    EXPECT_TRUE(in_parallel_region());
    for (int64_t i = begin; i < end; ++i) {
      std::thread::id me = std::this_thread::get_id();
      struct Probe {
        std::thread::id id;
        Env* env;
      } probe{me, self};
      auto check_thread = [](int64_t b, int64_t en, void* p) -> int32_t {
        auto* pr = static_cast<Probe*>(p);
        if (std::this_thread::get_id() != pr->id) pr->env->foreign.fetch_add(1);
        pr->env->total.fetch_add(static_cast<int>(en - b));
        return TESSEL_OK;
      };
      if (tessel_parallel_for(10, check_thread, &probe) != TESSEL_OK) return 1;
    }
    return TESSEL_OK;
  };
  ASSERT_EQ(tessel_parallel_for(8, outer, &env), TESSEL_OK);
  EXPECT_EQ(env.total.load(), 80);
  EXPECT_EQ(env.foreign.load(), 0);
  EXPECT_FALSE(in_parallel_region());
}

INSTANTIATE_TEST_SUITE_P(Threads, ThreadPoolThreads, ::testing::Values(1, 2, 4));

TEST(ThreadPool, ConcurrentLaunchesFromSeveralThreads) {
  set_num_threads(3);
  const int callers = 4, launches = 300;
  std::vector<int> bad(callers, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < callers; ++t)
    threads.emplace_back([t, &bad] {
      Coverage c(97);
      for (int l = 0; l < launches; ++l)
        if (tessel_parallel_for(97, count_body, &c) != TESSEL_OK) ++bad[t];
      for (int i = 0; i < 97; ++i)
        if (c.hits[i].load() != launches) ++bad[t];
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < callers; ++t) EXPECT_EQ(bad[t], 0);
  set_num_threads(0);
}

TEST(ThreadPool, ThreadCountChangesDuringConcurrentLaunches) {
  // Callers launch while others change the thread count (as models asking for different
  // counts do): each change replaces the pool between two launches, never during one.
  const int callers = 4, changers = 2, launches = 300;
  std::atomic<bool> done{false};
  std::vector<int> bad(callers, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < changers; ++t)
    threads.emplace_back([t, &done] {
      for (int n = 0; !done.load(); ++n) set_num_threads(1 + (n + t) % 4);
    });
  std::vector<std::thread> launchers;
  for (int t = 0; t < callers; ++t)
    launchers.emplace_back([t, &bad] {
      Coverage c(61);
      for (int l = 0; l < launches; ++l)
        if (tessel_parallel_for(61, count_body, &c) != TESSEL_OK) ++bad[t];
      for (int i = 0; i < 61; ++i)
        if (c.hits[i].load() != launches) ++bad[t];
    });
  for (auto& th : launchers) th.join();
  done.store(true);
  for (auto& th : threads) th.join();
  for (int t = 0; t < callers; ++t) EXPECT_EQ(bad[t], 0) << "caller " << t;
  set_num_threads(0);
}

TEST(ThreadPool, SingleThreadedLaunchesFromSeveralThreadsRunAtOnce) {
  // With one thread, each caller runs its own body: two callers' bodies overlap (each waits,
  // up to 2 s, for the other to start), where taking the pool in turn would time out.
  set_num_threads(1);
  std::atomic<int> started{0};
  auto body = [](int64_t, int64_t, void* env) -> int32_t {
    auto* n = static_cast<std::atomic<int>*>(env);
    ++*n;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (n->load() < 2)
      if (std::chrono::steady_clock::now() > deadline) return 1;
    return in_parallel_region() ? TESSEL_OK : 2;
  };
  int32_t status[2] = {-1, -1};
  std::thread other([&] { status[1] = tessel_parallel_for(8, body, &started); });
  status[0] = tessel_parallel_for(8, body, &started);
  other.join();
  EXPECT_EQ(status[0], TESSEL_OK);
  EXPECT_EQ(status[1], TESSEL_OK);
  set_num_threads(0);
}

TEST(ThreadPool, ThreadCountSettings) {
  EXPECT_EQ(tessel_set_num_threads(-1), TESSEL_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessel_last_error()).find("-1"), std::string::npos);
  EXPECT_THROW(set_num_threads(-3), Error);
  EXPECT_EQ(tessel_set_num_threads(2), TESSEL_OK);
  EXPECT_EQ(tessel_get_num_threads(), 2);
  EXPECT_EQ(tessel_set_num_threads(0), TESSEL_OK);
  int hardware = static_cast<int>(std::thread::hardware_concurrency());
  EXPECT_EQ(tessel_get_num_threads(), hardware > 0 ? hardware : 1);
  // Reading the thread count inside a parallel body works; changing the pool there is
  // refused (not a deadlock).
  auto read = [](int64_t, int64_t, void*) -> int32_t {
    return tessel_get_num_threads() == 2 ? 0 : 1;
  };
  EXPECT_EQ(tessel_set_num_threads(2), TESSEL_OK);
  EXPECT_EQ(tessel_parallel_for(4, read, nullptr), TESSEL_OK);
  auto change = [](int64_t, int64_t, void*) -> int32_t { return tessel_set_num_threads(1); };
  EXPECT_EQ(tessel_parallel_for(4, change, nullptr), TESSEL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tessel_set_num_threads(0), TESSEL_OK);
}

TEST(ThreadPool, SleepingWorkersWakeUp) {
  // Long pauses between launches let the workers fall asleep on the futex.
  set_num_threads(2);
  for (int round = 0; round < 5; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    Coverage c(16);
    ASSERT_EQ(tessel_parallel_for(16, count_body, &c), TESSEL_OK);
    for (int i = 0; i < 16; ++i) ASSERT_EQ(c.hits[i].load(), 1);
  }
  set_num_threads(0);
}

}  // namespace
}  // namespace tessel::runtime
