// tessel-bench-ops: tessel's hand-scheduled operators side by side with oneDNN, timed in
// alternating rounds.
//
// Each case prints one final line:
//   <case> threads=<t>: tessel <x> GFLOP/s, onednn <y> GFLOP/s, ratio <x/y>
// Options: --filter <substring> (cases whose name contains it), --threads <t> (default: 1 and 2).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "driver/build.h"
#include "ir/expr.h"
#include "onednn_reference.h"
#include "ops/conv2d.h"
#include "ops/matmul.h"
#include "ops/reference.h"
#include "runtime/tessel_runtime.h"
#include "timing.h"

namespace tessel::bench {
namespace {

using ir::DataType;

struct Measurement {
  double tessel_s;
  double anchor_s;
  double error;  ///< tessel vs oneDNN, in units of the tolerance
};

/// A compiled tessel kernel with its buffers (the output last) and the matching anchor.
struct Prepared {
  driver::Kernel kernel;
  std::vector<ops::reference::Floats> buffers;
  std::unique_ptr<Anchor> anchor;

  void run_tessel() {
    std::vector<void*> data;
    for (auto& b : buffers) data.push_back(b.data());
    kernel.run(data);
  }
};

struct Case {
  std::string name;
  double flops;
  std::function<Prepared(bool parallel)> prepare;
};

double median_of(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

/// Checks tessel against oneDNN, then times both in alternating rounds so that both see
/// the same machine conditions (the VM is noisy); each figure is a median of medians.
Measurement measure(Prepared& p, int threads) {
  tessel_set_num_threads(threads);
  set_onednn_threads(threads);
  p.run_tessel();
  p.anchor->run();
  double error = ops::reference::max_scaled_error(p.buffers.back(), p.anchor->output(), 1e-4, 1e-4);
  constexpr int kRounds = 7;
  std::vector<double> tessel_times, anchor_times;
  // Both thread pools spin for a while after a parallel region; a pause before switching
  // lets the other side's threads go to sleep so they do not steal the cores.
  auto settle = [] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); };
  for (int round = 0; round < kRounds; ++round) {
    settle();
    tessel_times.push_back(median_seconds([&] { p.run_tessel(); }, 0.15, 5));
    settle();
    anchor_times.push_back(median_seconds([&] { p.anchor->run(); }, 0.15, 5));
  }
  return {median_of(tessel_times), median_of(anchor_times), error};
}

Case matmul_case(int64_t m, int64_t n, int64_t k) {
  std::string name = "matmul_" + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  return {name, 2.0 * m * n * k, [=](bool parallel) {
            te::Tensor a = te::placeholder({m, k}, DataType::Float(32), "A");
            te::Tensor b = te::placeholder({k, n}, DataType::Float(32), "B");
            te::Tensor c = ops::matmul(a, b, "C");
            schedule::Schedule s({c});
            ops::MatmulConfig config = ops::default_matmul_config();
            config.parallel = parallel;
            ops::schedule_matmul_cpu(s, c, config);
            Prepared p{driver::build(s, {a, b, c}, "matmul"),
                       {ops::reference::random_values(m * k, 1),
                        ops::reference::random_values(k * n, 2), ops::reference::Floats(m * n)},
                       nullptr};
            p.anchor = onednn_matmul(m, n, k, p.buffers[0], p.buffers[1]);
            return p;
          }};
}

Case conv2d_case(int64_t c, int64_t hw, int64_t k, int64_t r, int64_t stride, int64_t pad) {
  int64_t out = (hw + 2 * pad - r) / stride + 1;
  std::string name = "conv2d_c" + std::to_string(c) + "_" + std::to_string(hw) + "x" +
                     std::to_string(hw) + "_k" + std::to_string(k) + "_" + std::to_string(r) +
                     "x" + std::to_string(r);
  return {name, 2.0 * c * k * r * r * out * out, [=](bool parallel) {
            te::Tensor x = te::placeholder({1, c, hw, hw}, DataType::Float(32), "data");
            te::Tensor w = te::placeholder({k, c, r, r}, DataType::Float(32), "weight");
            te::Tensor y = ops::conv2d_nchw(x, w, {stride, pad}, "conv");
            schedule::Schedule s({y});
            ops::Conv2dConfig config = ops::default_conv2d_config();
            config.parallel = parallel;
            ops::schedule_conv2d_cpu(s, y, config);
            Prepared p{driver::build(s, {x, w, y}, "conv2d"),
                       {ops::reference::random_values(c * hw * hw, 3),
                        ops::reference::random_values(k * c * r * r, 4),
                        ops::reference::Floats(k * out * out)},
                       nullptr};
            p.anchor = onednn_conv2d(1, c, hw, hw, k, r, r, stride, pad, p.buffers[0], p.buffers[1]);
            return p;
          }};
}

int run(int argc, char** argv) {
  std::string filter;
  std::vector<int> thread_counts = {1, 2};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if ((arg == "--filter" || arg == "--threads") && i + 1 < argc) {
      std::string value = argv[++i];
      if (arg == "--filter") filter = value;
      else thread_counts = {std::stoi(value)};
    } else {
      std::cerr << "usage: tessel-bench-ops [--filter SUBSTRING] [--threads T]\n";
      return 2;
    }
  }
  std::vector<Case> cases = {matmul_case(1024, 1024, 1024), matmul_case(128, 768, 768),
                             matmul_case(128, 3072, 768), conv2d_case(64, 56, 64, 3, 1, 1)};
  bool all_match = true;
  for (const Case& c : cases) {
    if (c.name.find(filter) == std::string::npos) continue;
    for (int threads : thread_counts) {
      Prepared prepared = c.prepare(threads > 1);
      Measurement m = measure(prepared, threads);
      double tessel_gflops = c.flops / m.tessel_s / 1e9, anchor_gflops = c.flops / m.anchor_s / 1e9;
      bool match = m.error <= 1.0;
      all_match &= match;
      if (!match) std::printf("%s threads=%d: RESULT MISMATCH vs oneDNN (%.3g of tolerance)\n",
                              c.name.c_str(), threads, m.error);
      std::printf("%s threads=%d: tessel %.1f GFLOP/s, onednn %.1f GFLOP/s, ratio %.2f\n",
                  c.name.c_str(), threads, tessel_gflops, anchor_gflops, tessel_gflops / anchor_gflops);
      std::fflush(stdout);
    }
  }
  return all_match ? 0 : 1;
}

}  // namespace
}  // namespace tessel::bench

int main(int argc, char** argv) { return tessel::bench::run(argc, argv); }
