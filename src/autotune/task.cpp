// Task extraction: fused groups -> distinct kernels with weights, FLOPs and templates.
#include "autotune/task.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <thread>

#include "autotune/generated_space.h"
#include "ir/functor.h"
#include "schedules/knobs.h"
#include "support/error.h"
#include "te/dag.h"

namespace tessel::autotune {
namespace {

/// 64-bit FNV-1a.
uint64_t fnv1a(const std::string& text) {
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

/// Counts floating-point arithmetic, scaled by the extents of the reductions around it.
class FlopCounter : public ir::IRVisitor {
 public:
  double flops = 0;

 private:
  void count(const ir::ExprNode* op) {
    if (op->dtype.is_float()) flops += scale_ * op->dtype.lanes;
  }
#define TESSEL_COUNT(name)                               \
  void visit_##name(const ir::name##Node* op) override { \
    count(op);                                           \
    visit_children(op);                                  \
  }
  TESSEL_COUNT(Add)
  TESSEL_COUNT(Sub)
  TESSEL_COUNT(Mul)
  TESSEL_COUNT(Div)
  TESSEL_COUNT(Min)
  TESSEL_COUNT(Max)
  TESSEL_COUNT(Call)
#undef TESSEL_COUNT
  /// One branch runs: the costlier one counts (a table of rows chosen by select, as in
  /// Winograd's transforms, costs one row).
  void visit_Select(const ir::SelectNode* op) override {
    visit(op->condition);
    double before = flops;
    visit(op->true_value);
    double true_flops = flops - before;
    flops = before;
    visit(op->false_value);
    flops = before + std::max(true_flops, flops - before);
  }
  void visit_Reduce(const ir::ReduceNode* op) override {
    double steps = 1;
    for (const ir::IterVar& axis : op->axes) {
      const int64_t* extent = ir::as_const_int(axis.extent);
      steps *= extent ? static_cast<double>(*extent) : 1.0;
    }
    double outer = scale_;
    scale_ *= steps;
    count(op);  // the combine
    visit(op->source);
    scale_ = outer;
  }
  double scale_ = 1;
};

std::string hex(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::string shape_text(const graph::TensorType& type) {
  std::string text;
  for (int64_t d : type.shape()) text += (text.empty() ? "" : "x") + std::to_string(d);
  return text;
}

}  // namespace

std::shared_ptr<schedule::Schedule> Task::schedule_at(const Point& point) const {
  schedules::KnobValues knobs;
  for (size_t k = 0; k < space.knobs().size(); ++k)
    knobs.set(space.knobs()[k].name, space.knobs()[k].values.at(static_cast<size_t>(point.at(k))));
  return search == SearchKind::Auto ? generated_schedule(*kernel->scheduler, knobs)
                                    : kernel->scheduler->schedule(knobs);
}

std::string target_key(const target::Target& target, int threads) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return "llvm -mcpu=" + target.cpu + " -lanes=" + std::to_string(target.float_lanes()) +
         " -threads=" + std::to_string(threads);
}

std::string task_key(const compiler::GroupKernel& kernel, const std::string& target) {
  return hex(fnv1a(kernel.key + "|" + target));
}

double count_flops(const std::vector<te::Tensor>& outputs) {
  double flops = 0;
  for (const te::Operation& op : te::topological_order(outputs)) {
    if (op->is_placeholder()) continue;
    double elements = 1;
    for (const ir::Expr& extent : op->shape) {
      const int64_t* e = ir::as_const_int(extent);
      elements *= e ? static_cast<double>(*e) : 1.0;
    }
    for (const ir::Expr& body : op->bodies) flops += elements * count_flops(body);
  }
  return flops;
}

double count_flops(const ir::Expr& e) {
  FlopCounter counter;
  counter.visit(e);
  return counter.flops;
}

namespace {

/// Adds the kernel of `group` (launched `runs` times per inference; rebuilt for blocks of
/// rows where the plan runs it so) to `set`: a new task, or more weight for an equal
/// kernel's.
void add_group(TaskSet& set, const compiler::FusedGroup& group,
               const passes::RunTimeExtents& run_time, compiler::FoldCache& fold_cache,
               std::map<std::string, size_t>& index_of_key, const target::Target& target,
               const std::string& target_text, SearchKind search, int64_t runs) {
  const compiler::FusedGroup* built = &group;
  if (std::optional<compiler::RowBlocks> blocks = compiler::row_blocks(group, run_time)) {
    set.row_blocks.push_back(std::make_shared<const compiler::RowBlocks>(std::move(*blocks)));
    built = &set.row_blocks.back()->group;
  }
  auto kernel = std::make_shared<compiler::GroupKernel>(
      compiler::build_group_kernel(*built, target, fold_cache));
  bool any_elements = false;
  for (const graph::TensorType& type : kernel->output_types)
    any_elements |= type.num_elements() > 0;
  if (!any_elements) return;  // compile_graph launches nothing for it
  std::string key = task_key(*kernel, target_text);
  auto [found, added] = index_of_key.try_emplace(key, set.tasks.size());
  if (!added) {
    set.tasks[found->second].weight += static_cast<int>(runs);
    return;
  }
  Task task;
  task.key = key;
  task.target = target_text;
  task.name = group.label() + " " + shape_text(kernel->output_types.at(0));
  task.weight = static_cast<int>(runs);
  task.flops = count_flops(kernel->scheduler->outputs());
  task.search = search;
  schedules::TuningSpace space;
  if (search == SearchKind::Templates) {
    space = kernel->scheduler->tuning_space();
  } else {
    try {
      space = generated_space(*kernel->scheduler);
    } catch (const CompileError&) {
      space = {};  // the rules do not apply to this DAG: the task keeps its default
    }
  }
  task.template_name = space.template_name;
  for (schedules::KnobSpec& knob : space.knobs) task.space.add(knob.name, std::move(knob.values));
  task.kernel = std::move(kernel);
  set.tasks.push_back(std::move(task));
}

}  // namespace

TaskSet extract_tasks(std::shared_ptr<const graph::Graph> graph,
                      const compiler::CompileOptions& options, SearchKind search) {
  TaskSet set;
  set.graph = graph;
  std::string target = target_key(options.build.target, options.num_threads);
  compiler::FoldCache fold_cache;
  std::map<std::string, size_t> index_of_key;
  // The kernels of `g`, each launched `runs` times per inference (a loop body's trips).
  std::function<void(const graph::Graph&, int64_t)> add_graph = [&](const graph::Graph& g,
                                                                    int64_t runs) {
    passes::RunTimeExtents run_time = passes::find_run_time_extents(g);
    for (const compiler::FusedGroup& group : compiler::fuse_operators(g, options.fusion)) {
      if (group.nodes.size() == 1 && group.nodes[0]->has_body()) {  // If, Loop, Scan
        for (compiler::CompiledBody& body : compiler::compiled_bodies(*group.nodes[0], options)) {
          add_graph(*body.graph, runs * body.runs);
          set.bodies.push_back(std::move(body.graph));
        }
        continue;
      }
      if (group.data_dependent()) continue;  // run by the runtime: no kernel to tune
      add_group(set, group, run_time, fold_cache, index_of_key, options.build.target, target,
                search, runs);
    }
  };
  add_graph(*graph, 1);
  return set;
}

}  // namespace tessel::autotune
