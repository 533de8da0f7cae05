// tessel-bench-ops: tessel's hand-scheduled operators side by side with oneDNN.
//
// Each case prints one final line:
//   <case> threads=<t>: tessel <x> GFLOP/s, onednn <y> GFLOP/s, ratio <x/y>
// Options: --filter <substring> (cases whose name contains it), --threads <t> (default: 1 and 2).
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
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

struct Case {
  std::string name;
  double flops;
  std::function<Measurement(int threads)> run;
};

double time_kernel(const driver::Kernel& kernel, std::vector<ops::reference::Floats>& buffers) {
  std::vector<void*> data;
  for (auto& b : buffers) data.push_back(b.data());
  return median_seconds([&] { kernel.run(data); });
}

Case matmul_case(int64_t m, int64_t n, int64_t k) {
  std::string name = "matmul_" + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  return {name, 2.0 * m * n * k, [=](int threads) {
            te::Tensor a = te::placeholder({m, k}, DataType::Float(32), "A");
            te::Tensor b = te::placeholder({k, n}, DataType::Float(32), "B");
            te::Tensor c = ops::matmul(a, b, "C");
            schedule::Schedule s({c});
            ops::MatmulConfig config = ops::default_matmul_config();
            config.parallel = threads > 1;
            ops::schedule_matmul_cpu(s, c, config);
            driver::Kernel kernel = driver::build(s, {a, b, c}, "matmul");
            std::vector<ops::reference::Floats> bufs = {ops::reference::random_values(m * k, 1),
                                                    ops::reference::random_values(k * n, 2),
                                                    ops::reference::Floats(m * n)};
            tessel_set_num_threads(threads);
            double t = time_kernel(kernel, bufs);
            AnchorResult anchor = onednn_matmul(m, n, k, bufs[0], bufs[1], threads);
            double err = ops::reference::max_scaled_error(bufs[2], anchor.output, 1e-4, 1e-4);
            return Measurement{t, anchor.seconds, err};
          }};
}

Case conv2d_case(int64_t c, int64_t hw, int64_t k, int64_t r, int64_t stride, int64_t pad) {
  int64_t out = (hw + 2 * pad - r) / stride + 1;
  std::string name = "conv2d_c" + std::to_string(c) + "_" + std::to_string(hw) + "x" +
                     std::to_string(hw) + "_k" + std::to_string(k) + "_" + std::to_string(r) +
                     "x" + std::to_string(r);
  return {name, 2.0 * c * k * r * r * out * out, [=](int threads) {
            te::Tensor x = te::placeholder({1, c, hw, hw}, DataType::Float(32), "data");
            te::Tensor w = te::placeholder({k, c, r, r}, DataType::Float(32), "weight");
            te::Tensor y = ops::conv2d_nchw(x, w, {stride, pad}, "conv");
            schedule::Schedule s({y});
            ops::Conv2dConfig config = ops::default_conv2d_config();
            config.parallel = threads > 1;
            ops::schedule_conv2d_cpu(s, y, config);
            driver::Kernel kernel = driver::build(s, {x, w, y}, "conv2d");
            std::vector<ops::reference::Floats> bufs = {ops::reference::random_values(c * hw * hw, 3),
                                                    ops::reference::random_values(k * c * r * r, 4),
                                                    ops::reference::Floats(k * out * out)};
            tessel_set_num_threads(threads);
            double t = time_kernel(kernel, bufs);
            AnchorResult anchor = onednn_conv2d(1, c, hw, hw, k, r, r, stride, pad, bufs[0],
                                                bufs[1], threads);
            double err = ops::reference::max_scaled_error(bufs[2], anchor.output, 1e-4, 1e-4);
            return Measurement{t, anchor.seconds, err};
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
      Measurement m = c.run(threads);
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
