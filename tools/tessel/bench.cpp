// `tessel bench`: latency of a model (median and p90 over repeated runs after warm-up), the
// time share of each kernel and, with --memory, the process's resident memory over the runs.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>

#include "commands.h"
#include "model_source.h"
#include "support/error.h"

namespace tessel::cli {
namespace {

/// Random data for an input: floats in [-1, 1), integers in [0, 10) (valid token ids and
/// indices for the models we run), booleans, strings of those integers.
runtime::NDArray random_input(const std::vector<int64_t>& shape, runtime::DType dtype,
                              std::mt19937& rng) {
  runtime::NDArray array(shape, dtype);
  int64_t n = array.size();
  using runtime::DTypeCode;
  if (dtype == runtime::DType::Float(32)) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (int64_t i = 0; i < n; ++i) array.data_as<float>()[i] = dist(rng);
  } else if (dtype == runtime::DType::Int(64)) {
    for (int64_t i = 0; i < n; ++i) array.data_as<int64_t>()[i] = static_cast<int64_t>(rng() % 10);
  } else if (dtype == runtime::DType::Int(32)) {
    for (int64_t i = 0; i < n; ++i) array.data_as<int32_t>()[i] = static_cast<int32_t>(rng() % 10);
  } else if (dtype.is_string()) {
    for (int64_t i = 0; i < n; ++i) array.set_string(i, std::to_string(rng() % 10));
  } else {
    auto* bytes = static_cast<uint8_t*>(array.data());
    for (int64_t i = 0; i < array.nbytes(); ++i) bytes[i] = static_cast<uint8_t>(rng() % 2);
  }
  return array;
}

double percentile(std::vector<double> samples, double q) {
  std::sort(samples.begin(), samples.end());
  size_t index = static_cast<size_t>(q * static_cast<double>(samples.size() - 1) + 0.5);
  return samples[std::min(index, samples.size() - 1)];
}

/// The resident memory of this process now and its peak, in KiB (VmRSS and VmHWM of
/// /proc/self/status; -1 where not found).
struct Resident {
  int64_t now_kib = -1, peak_kib = -1;
};

Resident resident() {
  Resident r;
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) r.now_kib = std::stoll(line.substr(6));
    if (line.rfind("VmHWM:", 0) == 0) r.peak_kib = std::stoll(line.substr(6));
  }
  return r;
}

/// Time share of each kernel over `runs` profiled runs, largest first.
void print_profile(runtime::Model& model, const std::vector<const runtime::NDArray*>& inputs,
                   int runs) {
  model.set_profiling(true);
  const runtime::ModelPlan& plan = model.plan();
  struct Share {
    std::string label;
    int launches = 0;
    double ms = 0;
  };
  std::map<std::string, Share> by_kernel;
  double total = 0;
  for (int r = 0; r < runs; ++r) {
    model.run(inputs);
    const std::vector<double>& times = model.step_times_ms();
    for (size_t k = 0; k < times.size(); ++k) {
      const runtime::PlanStep& step = plan.steps[k];
      Share& share = by_kernel[step.kind == runtime::StepKind::Kernel
                                   ? step.kernel
                                   : std::string("(") + runtime::step_kind_name(step.kind) + ")"];
      share.label = step.label;
      share.launches += r == 0 ? 1 : 0;
      share.ms += times[k] / runs;
      total += times[k] / runs;
    }
  }
  model.set_profiling(false);
  std::vector<std::pair<std::string, Share>> sorted(by_kernel.begin(), by_kernel.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.second.ms > b.second.ms; });
  std::cout << "per-kernel profile (" << plan.steps.size() << " launches of " << sorted.size()
            << " kernels, mean of " << runs << " runs):\n";
  std::cout << "   share       ms  launches  kernel (fused operators)\n";
  size_t shown = std::min<size_t>(sorted.size(), 25);
  for (size_t k = 0; k < shown; ++k) {
    const auto& [name, share] = sorted[k];
    std::cout << std::fixed << std::setprecision(1) << std::setw(7) << 100.0 * share.ms / total
              << "%" << std::setprecision(3) << std::setw(9) << share.ms << std::setw(10)
              << share.launches << "  " << name << " (" << share.label << ")\n";
  }
  if (shown < sorted.size()) std::cout << "  ... " << sorted.size() - shown << " more kernels\n";
}

}  // namespace

int run_bench(const std::vector<std::string>& args) {
  std::string input;
  CompileFlags flags;
  int warmup = 3, runs = 0, batch = 1;
  bool profile = true, memory = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (flags.parse(args, i)) continue;
    const std::string& arg = args[i];
    if ((arg == "--warmup" || arg == "--runs" || arg == "--batch") && i + 1 < args.size()) {
      const std::string& value = args[++i];
      if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos ||
          value.size() > 7)
        TESSEL_USER_ERROR(arg, ": '", value, "' is not a count (at most 7 digits)");
      (arg == "--warmup" ? warmup : arg == "--runs" ? runs : batch) = std::stoi(value);
    } else if (arg == "--no-profile") {
      profile = false;
    } else if (arg == "--memory") {
      memory = true;
    } else if (!arg.empty() && arg[0] == '-') {
      TESSEL_USER_ERROR("bench: unknown option '", arg, "'");
    } else if (input.empty()) {
      input = arg;
    } else {
      TESSEL_USER_ERROR("bench: more than one model given");
    }
  }
  if (input.empty())
    TESSEL_USER_ERROR(
        "usage: tessel bench <model.onnx|model.so> [--threads N] [--runs R] "
        "[--warmup W] [--batch N] [--no-profile] [--memory] [--input-shape NAME=SHAPE]... "
        "[--no-fusion] "
        "[--no-blocked-layout] [--no-winograd]");
  runtime::Model model = load_model(input, flags, true);
  int threads = flags.request.options.num_threads;
  if (threads > 0) model.set_num_threads(threads);
  // --batch N: N samples per run, for a model with a symbolic batch.
  model.context().set_batch_size(batch);
  std::mt19937 rng(1);
  std::vector<runtime::NDArray> arrays;
  for (size_t i = 0; i < model.num_inputs(); ++i)
    arrays.push_back(random_input(model.context().input_shape(i), model.input(i).dtype, rng));
  std::vector<const runtime::NDArray*> inputs;
  for (const auto& a : arrays) inputs.push_back(&a);

  for (int w = 0; w < warmup; ++w) model.run(inputs);
  std::vector<double> samples;
  // The samples' memory is touched now, so that it does not count as growth over the runs.
  samples.assign(static_cast<size_t>(runs), 0.0);
  samples.clear();
  Resident start_memory = resident(), early_memory;
  auto begin = std::chrono::steady_clock::now();
  // Without --runs: at least 10 runs and at least 2 s, at most 1000 runs.
  while (true) {
    auto start = std::chrono::steady_clock::now();
    model.run(inputs);
    auto end = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    if (samples.size() == 1000) early_memory = resident();
    double elapsed = std::chrono::duration<double>(end - begin).count();
    if (runs > 0 ? static_cast<int>(samples.size()) >= runs
                 : (samples.size() >= 10 && elapsed >= 2.0) || samples.size() >= 1000)
      break;
  }
  Resident end_memory = resident();
  if (memory) {
    std::cout << "resident memory: " << start_memory.now_kib << " KiB after " << warmup
              << " warm-up runs";
    if (samples.size() > 1000) std::cout << ", " << early_memory.now_kib << " KiB after 1000 runs";
    std::cout << ", " << end_memory.now_kib << " KiB after " << samples.size() << " runs (peak "
              << end_memory.peak_kib << " KiB)\n";
  }
  if (profile) print_profile(model, inputs, std::min<int>(10, static_cast<int>(samples.size())));
  std::cout << std::fixed << std::setprecision(3) << api::model_name(input)
            << " threads=" << (threads > 0 ? threads : tessel_get_num_threads()) << ": median "
            << percentile(samples, 0.5) << " ms, p90 " << percentile(samples, 0.9) << " ms\n";
  return 0;
}

}  // namespace tessel::cli
