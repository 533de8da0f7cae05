// `tessel tune`: searches schedules for a model's kernels and stores every measurement in a
// records database; `--list-tasks` prints the tasks.
#include "autotune/tune.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>

#include "api/tune.h"
#include "autotune/features.h"
#include "autotune/pretrained.h"
#include "autotune/records.h"
#include "autotune/task.h"
#include "commands.h"
#include "frontend/onnx_importer.h"
#include "model_source.h"
#include "support/error.h"

namespace tessel::cli {
namespace {

/// "10m", "90s", "1h" or plain seconds.
double parse_duration(const std::string& text) {
  size_t digits = text.find_first_not_of("0123456789.");
  std::string number = text.substr(0, digits),
              unit = digits == std::string::npos ? "" : text.substr(digits);
  double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
  if (number.empty() || scale < 0 || std::count(number.begin(), number.end(), '.') > 1)
    TESSEL_USER_ERROR("--time-budget: '", text, "' is not a duration like 10m, 90s or 1h");
  return std::stod(number) * scale;
}

/// "template", "auto", or both in the order to search them: "template,auto".
std::vector<autotune::SearchKind> parse_searches(const std::string& text) {
  std::vector<autotune::SearchKind> searches;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = std::min(text.find(',', begin), text.size());
    std::string kind = text.substr(begin, end - begin);
    if (kind != "template" && kind != "auto")
      TESSEL_USER_ERROR("--search: '", kind, "' is not 'template' or 'auto' (in '", text, "')");
    autotune::SearchKind search =
        kind == "auto" ? autotune::SearchKind::Auto : autotune::SearchKind::Templates;
    if (std::find(searches.begin(), searches.end(), search) != searches.end())
      TESSEL_USER_ERROR("--search: '", kind, "' is named twice in '", text, "'");
    searches.push_back(search);
    begin = end + 1;
  }
  return searches;
}

void list_tasks(const autotune::TaskSet& set, const autotune::RecordDatabase* db) {
  if (db) {
    std::cout << "records of " << db->path() << " by target";
    if (!set.tasks.empty()) std::cout << " (this model's: " << set.tasks.front().target << ")";
    std::cout << ":\n";
    for (const auto& [target, count] : db->targets())
      std::cout << "  " << std::setw(9) << count << "  " << target << "\n";
  }
  std::cout << std::left << std::setw(4) << "#" << std::setw(18) << "key" << std::setw(8)
            << "weight" << std::setw(11) << "MFLOP" << std::setw(24) << "template"
            << (db ? "records  best GFLOP/s  " : "") << "kernel\n";
  for (size_t i = 0; i < set.tasks.size(); ++i) {
    const autotune::Task& t = set.tasks[i];
    std::cout << std::left << std::setw(4) << i + 1 << std::setw(18) << t.key << std::setw(8)
              << t.weight << std::setw(11) << std::fixed << std::setprecision(2) << t.flops * 1e-6
              << std::setw(24) << (t.tunable() ? t.template_name : "-");
    if (db) {
      std::optional<autotune::Record> best = db->best(t.key, t.target);
      std::cout << std::setw(9) << db->count(t.key, t.target) << std::setw(13)
                << (best ? t.flops / best->mean_cost() * 1e-9 : 0.0);
    }
    std::cout << t.name << "\n";
  }
}

void print_summary(const std::vector<autotune::TaskResult>& results) {
  double before = 0, after = 0;
  for (const autotune::TaskResult& r : results) {
    if (r.default_cost <= 0 || r.best_cost <= 0) continue;
    before += r.weight * r.default_cost;
    after += r.weight * std::min(r.best_cost, r.default_cost);
    std::cout << std::fixed << std::setprecision(1) << std::setw(9) << r.flops / r.best_cost * 1e-9
              << " GFLOP/s (default " << std::setw(7) << r.flops / r.default_cost * 1e-9 << ", x"
              << std::setprecision(2) << r.default_cost / r.best_cost << ")  " << r.trials
              << " trials, " << r.failed << " failed  ";
    if (r.settled_ratio > 0)
      std::cout << (r.kept_default ? "default kept, best ran " : "best ran ")
                << std::setprecision(3) << r.settled_ratio << "x the default run by run  ";
    std::cout << r.name << "\n";
  }
  if (before > 0)
    std::cout << "tuned kernels: " << std::fixed << std::setprecision(3) << before * 1e3
              << " ms -> " << after * 1e3 << " ms per inference (weighted by launches)\n";
}

/// The cost model `spec` names: "none" (null), "shipped", or a JSON file saved by
/// --train-cost-model.
std::shared_ptr<const autotune::CostModel> cost_model_of(const std::string& spec) {
  if (spec == "none") return nullptr;
  if (spec == "shipped") {
    std::shared_ptr<const autotune::CostModel> shipped = autotune::shipped_prior();
    if (!shipped) TESSEL_USER_ERROR("--cost-model: this build of tessel has no shipped model");
    return shipped;
  }
  std::ifstream in(spec, std::ios::binary);
  if (!in) TESSEL_USER_ERROR("--cost-model: cannot read '", spec, "'");
  std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto model =
      std::make_shared<autotune::CostModel>(autotune::CostModel::load(json, "'" + spec + "'"));
  if (model->num_features() != autotune::kLoopFeatures)
    TESSEL_USER_ERROR("--cost-model: '", spec, "' takes ", model->num_features(),
                      " features; candidates have ", autotune::kLoopFeatures, " loop features");
  return model;
}

void print_quality(const autotune::PriorQuality& q, const std::string& what) {
  std::cout << what << ": " << q.tasks << " tasks; mean relative throughput of the first choice "
            << std::fixed << std::setprecision(3) << q.top1 << ", of the first 8 " << q.top8
            << ", of a random choice " << q.random << " (best 1)\n";
}

}  // namespace

int run_tune(const std::vector<std::string>& args) {
  std::string input, curves, export_path, import_path;
  CompileFlags flags;
  api::TuneRequest request;
  autotune::TuneOptions& options = request.options;
  bool list = false;
  std::string cost_model, train_path, evaluate_spec;  // cost_model "": the shipped one if any
  // Options that take their value as it is written.
  const std::pair<const char*, std::string*> text_options[] = {
      {"--curves", &curves},
      {"--export", &export_path},
      {"--import", &import_path},
      {"--cost-model", &cost_model},
      {"--train-cost-model", &train_path},
      {"--evaluate-cost-model", &evaluate_spec}};
  auto text_option = [&](const std::string& flag) -> std::string* {
    for (const auto& [name, target] : text_options)
      if (flag == name) return target;
    return nullptr;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    if (flags.parse(args, i)) continue;
    const std::string& flag = args[i];
    if (flag == "--trials") {
      options.trials = parse_count(flag, value_of(args, i));
    } else if (flag == "--time-budget") {
      options.time_budget_seconds = parse_duration(value_of(args, i));
    } else if (flag == "--tuner") {
      options.tuner = value_of(args, i);
    } else if (flag == "--search") {
      request.searches = parse_searches(value_of(args, i));
    } else if (flag == "--batch") {
      options.batch = std::max(1, parse_count(flag, value_of(args, i)));
    } else if (flag == "--seed") {
      options.seed = static_cast<uint64_t>(parse_count(flag, value_of(args, i)));
    } else if (flag == "--timeout") {
      options.measure.timeout_seconds = parse_duration(value_of(args, i));
    } else if (flag == "--flush-cache") {
      // Ten single runs, each after 64 MiB were written: more than the caches hold.
      options.measure.flush_cache_bytes = size_t{64} << 20;
      options.measure.repeats = 10;
    } else if (flag == "--weights") {
      request.weights = value_of(args, i);
      if (request.weights != "cold" && request.weights != "warm")
        TESSEL_USER_ERROR("--weights: '", request.weights, "' is not 'cold' or 'warm'");
    } else if (std::string* target = text_option(flag)) {
      *target = value_of(args, i);
    } else if (flag == "--list-tasks") {
      list = true;
    } else if (!flag.empty() && flag[0] == '-') {
      TESSEL_USER_ERROR("tune: unknown option '", flag, "'");
    } else if (input.empty()) {
      input = flag;
    } else {
      TESSEL_USER_ERROR("tune: more than one model given ('", input, "', '", flag, "')");
    }
  }
  bool records_only = input.empty() && (!export_path.empty() || !import_path.empty() ||
                                        !train_path.empty() || !evaluate_spec.empty());
  if ((input.empty() && !records_only) || (!list && flags.request.records.empty()))
    TESSEL_USER_ERROR(
        "usage: tessel tune <model.onnx> --records <db.sqlite> [--trials N] "
        "[--time-budget 10m] [--tuner xgb|ga|random|grid] [--search template|auto|template,auto] "
        "[--weights cold|warm] [--threads T] [--batch N] "
        "[--curves DIR] [--flush-cache] [--list-tasks] [--input-shape NAME=SHAPE]...; "
        "[--cost-model FILE|shipped|none]; "
        "tessel tune --records <db.sqlite> --export|--import <file.jsonl>; "
        "tessel tune --records <db.sqlite> --train-cost-model <out.json> | "
        "--evaluate-cost-model FILE|shipped");
  std::unique_ptr<autotune::RecordDatabase> db;
  if (!flags.request.records.empty())
    db = std::make_unique<autotune::RecordDatabase>(flags.request.records);
  if (!import_path.empty()) {
    std::ifstream in(import_path);
    if (!in) TESSEL_USER_ERROR("--import: cannot read '", import_path, "'");
    std::cout << "imported " << db->import_jsonl(in, import_path) << " records from " << import_path
              << "\n";
  }
  // Exported last, so that the file holds what this run measured too.
  auto export_records = [&] {
    if (export_path.empty()) return 0;
    std::ofstream out(export_path);
    db->export_jsonl(out);
    if (!out) TESSEL_USER_ERROR("--export: cannot write '", export_path, "'");
    std::cout << "exported the records of " << flags.request.records << " to " << export_path
              << "\n";
    return 0;
  };
  if (!train_path.empty()) {
    std::vector<autotune::Record> records = db->all();
    autotune::CostModel model = autotune::train_prior(records);
    std::ofstream out(train_path, std::ios::binary);
    out << model.save();
    if (!out) TESSEL_USER_ERROR("--train-cost-model: cannot write '", train_path, "'");
    print_quality(autotune::evaluate_prior(model, records),
                  "trained " + train_path + " on " + flags.request.records);
  }
  if (!evaluate_spec.empty()) {
    std::shared_ptr<const autotune::CostModel> model = cost_model_of(evaluate_spec);
    if (!model) TESSEL_USER_ERROR("--evaluate-cost-model: 'none' is no model");
    print_quality(autotune::evaluate_prior(*model, db->all()),
                  evaluate_spec + " on " + flags.request.records);
  }
  if (records_only) return export_records();
  options.prior = cost_model.empty() ? autotune::shipped_prior() : cost_model_of(cost_model);

  request.compile = flags.request;
  if (list) {
    list_tasks(api::model_tasks(input, request, request.searches.front()), db.get());
    return export_records();
  }
  options.progress = &std::cerr;
  options.live = ::isatty(STDERR_FILENO);
  api::tune_model(
      input, request, *db, &std::cerr, [&](const api::SearchResult& search, size_t index) {
        print_summary(search.tasks);
        if (curves.empty()) return;
        // One file per task and search: <task key>.svg for the first search of
        // the run, <task key>-auto.svg or -template.svg for the second.
        std::string suffix = index == 0                                    ? ""
                             : search.search == autotune::SearchKind::Auto ? "-auto"
                                                                           : "-template";
        std::filesystem::create_directories(curves);
        for (const autotune::TaskResult& r : search.tasks)
          if (!r.curve.empty())
            autotune::write_curve_svg(r, curves + "/" + r.key + suffix + ".svg");
        std::cout << "tuning curves in " << curves << "/<task key>" << suffix << ".svg\n";
      });
  return export_records();
}

}  // namespace tessel::cli
