// `tessel demo`: three operators through the whole compiler, checked and timed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.h"
#include "driver/build.h"
#include "ir/printer.h"
#include "ops/conv2d.h"
#include "ops/matmul.h"
#include "ops/reference.h"
#include "ops/softmax.h"
#include "runtime/tessel_runtime.h"
#include "schedules/cpu/conv2d.h"
#include "schedules/cpu/matmul.h"
#include "schedules/cpu/softmax.h"
#include "schedules/cpu/target_budget.h"
#include "support/error.h"
#include "target/host.h"

namespace tessel::cli {
namespace {

using ir::DataType;

struct DemoOptions {
  int threads = 0;  // 0: all cores
  std::vector<std::string> print_after;
  bool small = false;
};

DemoOptions parse_options(const std::vector<std::string>& args) {
  DemoOptions opts;
  for (size_t i = 0; i < args.size(); ++i) {
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw CompileError("demo: option " + args[i] + " needs a value");
      return args[++i];
    };
    if (args[i] == "--threads") {
      opts.threads = std::stoi(value());
    } else if (args[i] == "--print-after") {
      opts.print_after.push_back(value());
    } else if (args[i] == "--small") {
      opts.small = true;
    } else {
      throw CompileError("demo: unknown option '" + args[i] + "'");
    }
  }
  return opts;
}

/// Absolute tolerance for a float32 sum of `terms` products of values in [-1, 1): the
/// rounding error of such a sum is bounded by about terms * epsilon * |partial sums|.
double fp32_sum_atol(int64_t terms) { return 1e-6 * static_cast<double>(terms); }

double median_ms(const std::function<void()>& fn, int runs) {
  std::vector<double> times;
  fn();  // warm-up
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

/// Builds, prints, runs, checks and times one operator. Returns whether it matched.
bool demo_operator(const std::string& title, const schedule::Schedule& s,
                   const std::vector<te::Tensor>& args, std::vector<ops::reference::Floats>& buffers,
                   const ops::reference::Floats& expected, double atol, double flops,
                   const DemoOptions& opts) {
  std::cout << "== " << title << " ==\n";
  driver::BuildOptions build_opts;
  build_opts.passes.print_after = opts.print_after;
  build_opts.passes.log = &std::cout;
  driver::Kernel kernel = driver::build(s, args, title.substr(0, title.find(' ')), build_opts);
  std::cout << "lowered loop IR:\n" << kernel.lowered();
  const driver::BuildTimes& t = kernel.times();
  std::printf("compile: lower %.1f ms, passes %.1f ms, codegen %.1f ms (lowering + codegen %.1f ms)\n",
              t.lower_ms, t.passes_ms, t.codegen_ms, t.total_ms());

  std::vector<void*> data;
  for (auto& b : buffers) data.push_back(b.data());
  kernel.run(data);
  double err = ops::reference::max_scaled_error(buffers.back(), expected, 1e-4, atol);
  bool ok = err <= 1.0;
  std::printf("check against the naive reference: worst error %.3g of tolerance -> %s\n", err,
              ok ? "ok" : "MISMATCH");
  double ms = median_ms([&] { kernel.run(data); }, 20);
  std::printf("speed: %.3f ms, %.1f GFLOP/s (threads=%d)\n\n", ms, flops / ms / 1e6,
              tessel_get_num_threads());
  return ok;
}

}  // namespace

int run_demo(const std::vector<std::string>& args) {
  DemoOptions opts = parse_options(args);
  tessel_set_num_threads(opts.threads);
  bool all_ok = true;
  const DataType f32 = DataType::Float(32);
  const target::Target& target = target::host();

  {  // matmul
    int64_t n = opts.small ? 128 : 1024;
    te::Tensor a = te::placeholder({n, n}, f32, "A");
    te::Tensor b = te::placeholder({n, n}, f32, "B");
    te::Tensor c = ops::matmul(a, b, schedules::matmul_panel(target), "C");
    schedule::Schedule s({c});
    schedules::schedule_matmul_cpu(s, c, schedules::default_matmul_config(target));
    std::vector<ops::reference::Floats> bufs = {ops::reference::random_values(n * n, 1),
                                            ops::reference::random_values(n * n, 2),
                                            ops::reference::Floats(n * n)};
    auto expected = ops::reference::matmul(bufs[0], bufs[1], n, n, n);
    all_ok &= demo_operator("matmul " + std::to_string(n) + "x" + std::to_string(n) + "x" +
                                std::to_string(n),
                            s, {a, b, c}, bufs, expected, fp32_sum_atol(n), 2.0 * n * n * n, opts);
  }
  {  // conv2d: a ResNet-18 layer
    int64_t ch = opts.small ? 16 : 64, hw = opts.small ? 14 : 56;
    te::Tensor x = te::placeholder({1, ch, hw, hw}, f32, "data");
    te::Tensor w = te::placeholder({ch, ch, 3, 3}, f32, "weight");
    te::Tensor y = ops::conv2d_nchw(x, w, {1, 1, schedules::conv2d_weight_block(target)}, "conv");
    schedule::Schedule s({y});
    schedules::schedule_conv2d_cpu(s, y, target, schedules::default_conv2d_config());
    std::vector<ops::reference::Floats> bufs = {ops::reference::random_values(ch * hw * hw, 3),
                                            ops::reference::random_values(ch * ch * 9, 4),
                                            ops::reference::Floats(ch * hw * hw)};
    auto expected = ops::reference::conv2d_nchw(bufs[0], bufs[1], 1, ch, hw, hw, ch, 3, 3, 1, 1);
    all_ok &= demo_operator("conv2d C" + std::to_string(ch) + " " + std::to_string(hw) + "x" +
                                std::to_string(hw) + " 3x3",
                            s, {x, w, y}, bufs, expected, fp32_sum_atol(ch * 9), 2.0 * ch * ch * 9 * hw * hw,
                            opts);
  }
  {  // softmax over BERT-like attention rows
    int64_t rows = opts.small ? 64 : 1536, cols = 128;
    te::Tensor x = te::placeholder({rows, cols}, f32, "X");
    te::Tensor y = ops::softmax(x, "softmax");
    schedule::Schedule s({y});
    schedules::schedule_softmax_cpu(s, y, target.float_lanes());
    std::vector<ops::reference::Floats> bufs = {ops::reference::random_values(rows * cols, 5),
                                            ops::reference::Floats(rows * cols)};
    auto expected = ops::reference::softmax(bufs[0], rows, cols);
    all_ok &= demo_operator("softmax " + std::to_string(rows) + "x" + std::to_string(cols), s,
                            {x, y}, bufs, expected, 1e-6, 5.0 * rows * cols, opts);
  }
  std::cout << (all_ok ? "all operators match their references\n"
                       : "SOME OPERATORS DO NOT MATCH THEIR REFERENCES\n");
  return all_ok ? 0 : 1;
}

}  // namespace tessel::cli
