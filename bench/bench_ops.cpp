// tessel-bench-ops: tessel's operators side by side with oneDNN, timed in alternating
// rounds; with tuning records, the tuned schedules too.
//
// Each operator is built the way a model's kernel is: a one-node graph through the graph
// passes (convolutions run blocked, NCHW[x]c, with their layout changes outside the timing,
// as oneDNN's reorders are), then the kernel of its task at the default schedule, and at
// the schedule of its best record when --records holds one. --tune N first tunes the
// operator's task to N trials (--time-budget S: for S seconds of wall time, however many
// trials that is) into the records, printing the wall time and the best GFLOP/s found by
// then at points along it (--curves DIR writes the curves); --search auto tunes it in the
// space generated from its compute instead of its template's.
// Each case prints one final line per schedule (a Winograd convolution's also as the direct
// convolution it replaces):
//   <case>[ direct| tuned] threads=<t>: tessel <x> GFLOP/s, onednn[ (algorithm)] <y> GFLOP/s,
//   ratio <x/y>[, speed-up <this schedule over the default>]
// All of a case's schedules and oneDNN are timed in the same alternating rounds.
// Options: --filter <substring>, --threads <t[,t...]> (default: 1 and 2), --target T (tessel's
// kernels for another target of this machine, e.g. x86-64-avx2; cap oneDNN to the same ISA
// with ONEDNN_MAX_CPU_ISA=AVX2), --records DB, --tune N,
// --time-budget S, --search template|auto, --tuner KIND, --curves DIR.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "autotune/records.h"
#include "autotune/task.h"
#include "autotune/tune.h"
#include "driver/build.h"
#include "onednn_reference.h"
#include "ops/reference.h"
#include "runtime/tessel_runtime.h"
#include "schedule/replay.h"
#include "target/parse_target.h"
#include "timing.h"

namespace tessel::bench {
namespace {

using ops::reference::Floats;

/// One operator: a one-node graph (op, weight shape, attributes) and its oneDNN anchor.
struct Case {
  std::string name;
  double flops = 0;
  std::string op;
  std::vector<int64_t> input_shape, weight_shape, output_shape;
  std::map<std::string, graph::Attribute> attributes;
  std::function<std::unique_ptr<Anchor>(const Floats& input, const Floats& weight)> anchor;
  /// Naive loops accumulating in float64, where the case has them (not for grouped or
  /// dilated convolutions): every side is checked against them.
  std::function<Floats(const Floats& input, const Floats& weight)> reference;
};

int64_t elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

graph::TensorType f32(const std::vector<int64_t>& shape) {
  return graph::TensorType::of(ir::DataType::Float(32), shape);
}

graph::Graph one_node_graph(const Case& c, const Floats& weight) {
  graph::Graph g;
  graph::Value* x = g.add_value("x", f32(c.input_shape));
  g.add_input(x);
  runtime::NDArray w(c.weight_shape, runtime::DType::Float(32));
  std::memcpy(w.data(), weight.data(), static_cast<size_t>(w.nbytes()));
  graph::Node node;
  node.name = c.op;
  node.op_type = c.op;
  node.opset = 17;
  node.attributes = c.attributes;
  node.inputs = {x, g.add_constant("w", std::make_shared<const runtime::NDArray>(std::move(w)))};
  graph::Value* y = g.add_value("y", f32(c.output_shape));
  node.outputs = {y};
  g.add_node(std::move(node));
  g.add_output(y);
  return g;
}

/// Blocked [N, C/x, H, W, x] from NCHW data (padding channels zero).
void to_blocked(const Floats& nchw, runtime::NDArray& out) {
  const std::vector<int64_t>& s = out.shape();
  int64_t h = s[2], w = s[3], x = s[4], c = static_cast<int64_t>(nchw.size()) / (h * w);
  float* o = out.data_as<float>();
  for (int64_t i = 0; i < out.size(); ++i) {
    int64_t ch = i / (x * w * h) * x + i % x, pixel = i / x % (h * w);
    o[i] = ch < c ? nchw[static_cast<size_t>(ch * h * w + pixel)] : 0.0f;
  }
}

/// The first `channels` channels of blocked data as NCHW.
Floats from_blocked(const runtime::NDArray& in, int64_t channels) {
  const std::vector<int64_t>& s = in.shape();
  int64_t hw = s[2] * s[3], x = s[4];
  Floats out(static_cast<size_t>(channels * hw));
  const float* p = in.data_as<float>();
  for (int64_t ch = 0; ch < channels; ++ch)
    for (int64_t i = 0; i < hw; ++i)
      out[static_cast<size_t>(ch * hw + i)] = p[((ch / x) * hw + i) * x + ch % x];
  return out;
}

/// A kernel of the case's task with its arguments (inputs from the case's data).
struct Prepared {
  driver::Kernel kernel;
  std::vector<runtime::NDArray> args;

  void run() {
    std::vector<void*> data;
    for (runtime::NDArray& a : args) data.push_back(a.data());
    kernel.run(data);
  }
  /// The output, NCHW or row-major, without padding channels.
  Floats output(const Case& c) const {
    const runtime::NDArray& out = args.back();
    if (out.ndim() == 5) return from_blocked(out, c.output_shape[1]);
    const float* p = out.data_as<float>();
    return Floats(p, p + out.size());
  }
};

Prepared prepare(const autotune::Task& task, const schedule::Schedule& s, const Floats& input,
                 const target::Target& target) {
  const compiler::GroupKernel& k = *task.kernel;
  driver::BuildOptions build;
  build.target = target;
  Prepared p{driver::build(s, k.args, "bench", build), {}};
  for (size_t a = 0; a < k.args.size(); ++a) {
    const graph::Value* v = a < k.num_inputs ? k.arg_values[a] : nullptr;
    runtime::NDArray array(v ? v->type.shape() : k.output_types[a - k.num_inputs].shape(),
                           runtime::DType::Float(32));
    if (v && v->constant)
      std::memcpy(array.data(), v->constant->data(), static_cast<size_t>(array.nbytes()));
    else if (v && array.ndim() == 5)
      to_blocked(input, array);
    else if (v)
      std::memcpy(array.data(), input.data(), static_cast<size_t>(array.nbytes()));
    p.args.push_back(std::move(array));
  }
  return p;
}

double median_of(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

/// One schedule of a case's kernel, built with its arguments.
struct Variant {
  std::string label;  // "" for the default schedule, " tuned" for the best record's
  Prepared prepared;
  /// The error accepted, in multiples of rtol 1e-4 + atol 1e-4: 10 (the models' tolerance)
  /// for Winograd, whose transforms round more than a direct sum.
  double tolerance = 1.0;
};

/// Checks every variant and oneDNN against the float64 loops `expected` (without them: every
/// variant against oneDNN) and prints each side's error, then times all of them and oneDNN
/// in the same
/// alternating rounds, so that each ratio compares runs under the same machine conditions
/// (the VM's speed drifts by tens of percent over seconds); prints one line per variant,
/// with its speed-up over the default schedule after the first. False on a mismatch.
bool compare(const Case& c, std::vector<Variant>& variants, Anchor& anchor, int threads,
             const Floats& expected) {
  tessel_set_num_threads(threads);
  anchor.run();
  // Each side against the float64 loops (in multiples of rtol 1e-4 + atol 1e-4), or, without
  // them, tessel against oneDNN; oneDNN's own algorithms are held to 1.
  bool ok = true;
  std::string errors;
  auto check = [&](const Floats& result, const std::string& label, double tolerance) {
    const Floats& against = expected.empty() ? anchor.output() : expected;
    double error = ops::reference::max_scaled_error(result, against, 1e-4, 1e-4);
    char text[64];
    std::snprintf(text, sizeof text, "%s %.2f", label.c_str(), error);
    errors += (errors.empty() ? "" : ", ") + std::string(text);
    if (error > tolerance) {
      std::printf("%s %s threads=%d: RESULT MISMATCH vs %s (%.3g of tolerance)\n", c.name.c_str(),
                  label.c_str(), threads, expected.empty() ? "oneDNN" : "float64 loops", error);
      ok = false;
    }
  };
  for (Variant& v : variants) {
    v.prepared.run();
    check(v.prepared.output(c), "tessel" + v.label, v.tolerance);
  }
  if (!expected.empty()) check(anchor.output(), "onednn", 1.0);
  std::printf("%s threads=%d: error vs %s (x tolerance): %s\n", c.name.c_str(), threads,
              expected.empty() ? "oneDNN" : "float64 loops", errors.c_str());
  constexpr int kRounds = 7;
  std::vector<std::vector<double>> times(variants.size());
  std::vector<double> anchor_times;
  // Both thread pools spin for a while after a parallel region; a pause before switching
  // lets the other side's threads go to sleep so they do not steal the cores.
  auto settle = [] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); };
  for (int round = 0; round < kRounds; ++round) {
    for (size_t i = 0; i < variants.size(); ++i) {
      settle();
      times[i].push_back(median_seconds([&] { variants[i].prepared.run(); }, 0.15, 5));
    }
    settle();
    anchor_times.push_back(median_seconds([&] { anchor.run(); }, 0.15, 5));
  }
  double anchor_gflops = c.flops / median_of(anchor_times) / 1e9;
  double default_seconds = median_of(times[0]);
  for (size_t i = 0; i < variants.size(); ++i) {
    double seconds = median_of(times[i]);
    double gflops = c.flops / seconds / 1e9;
    std::string anchor_label = anchor.label().empty() ? "" : " (" + anchor.label() + ")";
    std::printf("%s%s threads=%d: tessel %.1f GFLOP/s, onednn%s %.1f GFLOP/s, ratio %.2f",
                c.name.c_str(), variants[i].label.c_str(), threads, gflops, anchor_label.c_str(),
                anchor_gflops, gflops / anchor_gflops);
    if (i > 0) std::printf(", speed-up %.2f", default_seconds / seconds);
    std::printf("\n");
  }
  std::fflush(stdout);
  return ok;
}

Case matmul_case(int64_t m, int64_t n, int64_t k) {
  Case c;
  c.name = "matmul_" + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  c.flops = 2.0 * m * n * k;
  c.op = "MatMul";
  c.input_shape = {m, k};
  c.weight_shape = {k, n};
  c.output_shape = {m, n};
  c.anchor = [=](const Floats& a, const Floats& b) { return onednn_matmul(m, n, k, a, b); };
  c.reference = [=](const Floats& a, const Floats& b) { return ops::reference::matmul(a, b, m, n, k); };
  return c;
}

/// A convolution of a 1 x ch x hw x hw image by k filters of r x r (groups: ch for a
/// depthwise one).
Case conv2d_case(int64_t ch, int64_t hw, int64_t k, int64_t r, int64_t stride, int64_t pad,
                 int64_t groups = 1, int64_t dilation = 1) {
  int64_t out = (hw + 2 * pad - (r - 1) * dilation - 1) / stride + 1;
  Case c;
  c.name = std::string(groups == ch && groups > 1 ? "dwconv2d_c" : "conv2d_c") +
           std::to_string(ch) + "_" + std::to_string(hw) + "x" + std::to_string(hw) + "_k" +
           std::to_string(k) + "_" + std::to_string(r) + "x" + std::to_string(r) +
           (stride > 1 ? "_s" + std::to_string(stride) : "") +
           (groups > 1 && groups != ch ? "_g" + std::to_string(groups) : "") +
           (dilation > 1 ? "_d" + std::to_string(dilation) : "");
  c.flops = 2.0 * ch / groups * k * r * r * out * out;
  c.op = "Conv";
  c.input_shape = {1, ch, hw, hw};
  c.weight_shape = {k, ch / groups, r, r};
  c.output_shape = {1, k, out, out};
  c.attributes = {{"pads", graph::Attribute::of_ints({pad, pad, pad, pad})},
                  {"strides", graph::Attribute::of_ints({stride, stride})},
                  {"group", graph::Attribute::of_int(groups)},
                  {"dilations", graph::Attribute::of_ints({dilation, dilation})}};
  c.anchor = [=](const Floats& x, const Floats& w) {
    return onednn_conv2d({1, ch, hw, hw, k, r, r, stride, pad, groups, dilation}, x, w);
  };
  if (groups == 1 && dilation == 1)
    c.reference = [=](const Floats& x, const Floats& w) {
      return ops::reference::conv2d_nchw(x, w, 1, ch, hw, hw, k, r, r, stride, pad);
    };
  return c;
}

/// The matmuls of BERT-base, of the GPT decoder's second FFN layer and vocabulary projection,
/// of ViT-B/16's MLP (197 tokens) and a square one; the convolutions of ResNet-18 and the 3x3
/// stem of MobileNet, EfficientNet and MnasNet; the 1x1 bottleneck layers of ResNet-50 and
/// ResNeXt-50 with the most input channels; grouped, depthwise and dilated convolutions
/// of the model zoo (ResNeXt-50, RegNetY-400MF, EfficientNet-B0, LR-ASPP).
std::vector<Case> all_cases() {
  return {matmul_case(1024, 1024, 1024),
          matmul_case(128, 768, 768),
          matmul_case(128, 3072, 768),
          matmul_case(128, 512, 2048),
          matmul_case(128, 16000, 512),
          matmul_case(197, 3072, 768),
          matmul_case(197, 768, 3072),
          conv2d_case(3, 224, 64, 7, 2, 3),
          conv2d_case(3, 224, 32, 3, 2, 1),
          conv2d_case(64, 56, 64, 3, 1, 1),
          conv2d_case(64, 56, 128, 3, 2, 1),
          conv2d_case(64, 56, 128, 1, 2, 0),
          conv2d_case(128, 28, 128, 3, 1, 1),
          conv2d_case(128, 28, 256, 3, 2, 1),
          conv2d_case(128, 28, 256, 1, 2, 0),
          conv2d_case(256, 14, 256, 3, 1, 1),
          conv2d_case(256, 14, 512, 3, 2, 1),
          conv2d_case(256, 14, 512, 1, 2, 0),
          conv2d_case(512, 7, 512, 3, 1, 1),
          conv2d_case(1024, 14, 256, 1, 1, 0),
          conv2d_case(512, 14, 1024, 1, 1, 0),
          conv2d_case(1024, 7, 2048, 1, 1, 0),
          conv2d_case(128, 56, 128, 3, 1, 1, 32),
          conv2d_case(256, 28, 256, 3, 1, 1, 32),
          conv2d_case(512, 14, 512, 3, 1, 1, 32),
          conv2d_case(208, 14, 208, 3, 1, 1, 26),
          conv2d_case(96, 112, 96, 3, 2, 1, 96),
          conv2d_case(240, 28, 240, 5, 1, 2, 240),
          conv2d_case(672, 14, 672, 5, 1, 4, 672, 2)};
}

struct Options {
  std::string filter, records, tuner = "xgb", curves;
  std::vector<int> thread_counts = {1, 2};
  int tune_trials = 0;
  double time_budget_seconds = 0;
  autotune::SearchKind search = autotune::SearchKind::Templates;
  /// The target tessel's kernels are compiled for (--target); oneDNN's ISA is capped by
  /// ONEDNN_MAX_CPU_ISA in the environment.
  target::Target target = target::host();
  bool tunes() const { return tune_trials > 0 || time_budget_seconds > 0; }
};

/// "<s> s <GFLOP/s>, ..." : the best found by each of a few wall times of a tuning run, and
/// at its end.
std::string best_against_wall_time(const std::vector<autotune::CurvePoint>& curve) {
  std::string text;
  auto best_by = [&](double seconds) {
    double best = 0;
    for (const autotune::CurvePoint& p : curve)
      if (p.seconds <= seconds) best = std::max(best, p.best_gflops);
    return best;
  };
  char item[64];
  double end = curve.empty() ? 0 : curve.back().seconds;
  for (double s : {10.0, 20.0, 30.0, 60.0, 90.0, 120.0, 180.0, 240.0, 300.0, 450.0, 600.0}) {
    if (s >= end) break;
    std::snprintf(item, sizeof item, "%.0f s %.1f, ", s, best_by(s));
    text += item;
  }
  std::snprintf(item, sizeof item, "%.0f s %.1f (end)", end, best_by(end));
  return text + item;
}

bool run_case(const Case& c, const Options& o, autotune::RecordDatabase* db) {
  Floats input = ops::reference::random_values(elements(c.input_shape), 1);
  Floats weight = ops::reference::random_values(elements(c.weight_shape), 2);
  graph::Graph g = one_node_graph(c, weight);
  Floats expected = c.reference ? c.reference(input, weight) : Floats{};
  bool ok = true;
  for (int threads : o.thread_counts) {
    compiler::CompileOptions options;
    options.num_threads = threads;
    options.build.target = o.target;
    autotune::TaskSet set = autotune::extract_tasks(
        compiler::optimize_graph(g, {f32(c.input_shape)}, {}, options), options);
    const autotune::Task* task = nullptr;
    for (const autotune::Task& t : set.tasks)
      if (t.tunable()) task = &t;
    if (!task) throw std::runtime_error(c.name + ": no task with a template");
    if (db && o.tunes()) {
      // The operator's own task alone, from its template or from the generated space.
      autotune::TaskSet tuning = o.search == autotune::SearchKind::Templates
                                     ? set
                                     : autotune::extract_tasks(set.graph, options, o.search);
      std::erase_if(tuning.tasks, [&](const autotune::Task& t) { return t.key != task->key; });
      if (tuning.tasks.empty() || !tuning.tasks.front().tunable())
        throw std::runtime_error(c.name + ": the operator's task has no search space");
      autotune::TuneOptions tune;
      tune.tuner = o.tuner;
      // A time budget alone leaves the trials unbounded: the budget ends the run.
      tune.trials = o.tune_trials > 0 ? o.tune_trials : std::numeric_limits<int>::max() / 2;
      tune.time_budget_seconds = o.time_budget_seconds;
      tune.measure.threads = threads;
      tune.measure.target = o.target;
      auto start = std::chrono::steady_clock::now();
      std::vector<autotune::TaskResult> results = autotune::tune_tasks(tuning, *db, tune);
      double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      for (const autotune::TaskResult& r : results) {
        std::printf("%s threads=%d: tuned %d trials (%d failed) in %.1f s, best %.1f GFLOP/s\n",
                    c.name.c_str(), threads, r.trials, r.failed, seconds,
                    r.best_cost > 0 ? c.flops / r.best_cost * 1e-9 : 0.0);
        std::printf("%s threads=%d: best GFLOP/s against wall time: %s\n", c.name.c_str(), threads,
                    best_against_wall_time(r.curve).c_str());
        if (!o.curves.empty() && !r.curve.empty()) {
          std::filesystem::create_directories(o.curves);
          autotune::write_curve_svg(
              r, o.curves + "/" + c.name + "_t" + std::to_string(threads) + ".svg");
        }
      }
    }
    // oneDNN plans a primitive's work for the threads it has when the primitive is made.
    set_onednn_threads(threads);
    std::unique_ptr<Anchor> anchor = c.anchor(input, weight);
    std::vector<Variant> variants;
    double tolerance = task->template_name == "conv2d_nchwc_winograd" ? 10.0 : 1.0;
    variants.push_back({"", prepare(*task, *task->kernel->schedule, input, o.target), tolerance});
    // A Winograd convolution is also timed as the direct one it replaces.
    autotune::TaskSet direct_set;
    if (task->template_name == "conv2d_nchwc_winograd") {
      compiler::CompileOptions direct = options;
      direct.passes.winograd = false;
      direct_set = autotune::extract_tasks(
          compiler::optimize_graph(g, {f32(c.input_shape)}, {}, direct), direct);
      for (const autotune::Task& t : direct_set.tasks)
        if (t.tunable())
          variants.push_back({" direct", prepare(t, *t.kernel->schedule, input, o.target)});
    }
    std::optional<autotune::Record> best = db ? db->best(task->key, task->target) : std::nullopt;
    if (best) {
      schedule::Schedule tuned = schedule::replay(task->kernel->scheduler->outputs(),
                                                  schedule::Trace::from_json(best->trace_json));
      variants.push_back({" tuned", prepare(*task, tuned, input, o.target), tolerance});
    }
    ok &= compare(c, variants, *anchor, threads, expected);
  }
  return ok;
}

/// The thread counts of a comma-separated list ("1,2"); empty when any is not a positive
/// integer.
std::vector<int> thread_counts(const std::string& list) {
  std::vector<int> counts;
  std::stringstream items(list);
  for (std::string item; std::getline(items, item, ',');) {
    if (item.empty() || item.size() > 4 ||
        item.find_first_not_of("0123456789") != std::string::npos || std::stoi(item) == 0)
      return {};
    counts.push_back(std::stoi(item));
  }
  return counts;
}

int run(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc) {
      std::cerr
          << "usage: tessel-bench-ops [--filter SUBSTRING] [--threads T[,T...]] [--records DB] "
             "[--tune N] [--time-budget S] [--search template|auto] [--tuner KIND] "
             "[--curves DIR] [--target T]\n";
      return 2;
    }
    std::string value = argv[++i];
    if (arg == "--filter")
      o.filter = value;
    else if (arg == "--threads") {
      o.thread_counts = thread_counts(value);
      if (o.thread_counts.empty()) {
        std::cerr << "tessel-bench-ops: --threads takes counts such as 1 or 1,2, got '" << value
                  << "'\n";
        return 2;
      }
    } else if (arg == "--records")
      o.records = value;
    else if (arg == "--tune")
      o.tune_trials = std::stoi(value);
    else if (arg == "--time-budget")
      o.time_budget_seconds = std::stod(value);
    else if (arg == "--search") {
      if (value != "template" && value != "auto") {
        std::cerr << "tessel-bench-ops: --search takes template or auto, got '" << value << "'\n";
        return 2;
      }
      o.search = value == "auto" ? autotune::SearchKind::Auto : autotune::SearchKind::Templates;
    } else if (arg == "--tuner")
      o.tuner = value;
    else if (arg == "--curves")
      o.curves = value;
    else if (arg == "--target")
      o.target = target::parse_target(value);
    else {
      std::cerr << "tessel-bench-ops: unknown option " << arg << "\n";
      return 2;
    }
  }
  std::unique_ptr<autotune::RecordDatabase> db;
  if (!o.records.empty()) db = std::make_unique<autotune::RecordDatabase>(o.records);
  bool all_match = true;
  for (const Case& c : all_cases())
    if (c.name.find(o.filter) != std::string::npos) all_match &= run_case(c, o, db.get());
  return all_match ? 0 : 1;
}

}  // namespace
}  // namespace tessel::bench

int main(int argc, char** argv) {
  try {
    return tessel::bench::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "tessel-bench-ops: " << e.what() << "\n";
    return 1;
  }
}
