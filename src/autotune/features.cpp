// Cost-model features read off lowered loop IR.
#include "autotune/features.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "autotune/access_features.h"
#include "ir/functor.h"
#include "lower/lower.h"

namespace tessel::autotune {
namespace {

float log_scale(double x) {
  return static_cast<float>(std::log2(1.0 + std::max(0.0, x)));
}

double const_extent(const ir::Expr& extent) {
  const int64_t* e = ir::as_const_int(extent);
  return e ? static_cast<double>(*e) : 1.0;
}

/// Loads, and loads whose last index uses `inner`, in one expression tree.
class LoadCounter : public ir::IRVisitor {
 public:
  explicit LoadCounter(ir::Var inner) : inner_(std::move(inner)) {}
  double loads = 0, inner_loads = 0;

 private:
  void visit_Load(const ir::LoadNode* op) override {
    loads += 1;
    if (inner_.defined() && !op->indices.empty() && ir::uses_var(op->indices.back(), inner_))
      inner_loads += 1;
    visit_children(op);
  }
  ir::Var inner_;
};

/// The kinds of operations in an expression tree: float adds/subtracts/multiplies/min/max,
/// divisions, math calls (exp, erf, ...), comparisons and selects; each vector lane counts.
class OperationMix : public ir::IRVisitor {
 public:
  double simple = 0, divisions = 0, calls = 0, choices = 0;

 private:
  static double lanes(const ir::ExprNode* op) { return op->dtype.lanes; }
  void float_op(const ir::ExprNode* op, double& counter) {
    if (op->dtype.is_float()) counter += lanes(op);
  }
#define TESSEL_MIX(name, counter)                        \
  void visit_##name(const ir::name##Node* op) override { \
    float_op(op, counter);                               \
    visit_children(op);                                  \
  }
  TESSEL_MIX(Add, simple)
  TESSEL_MIX(Sub, simple)
  TESSEL_MIX(Mul, simple)
  TESSEL_MIX(Min, simple)
  TESSEL_MIX(Max, simple)
  TESSEL_MIX(Div, divisions)
  TESSEL_MIX(Call, calls)
#undef TESSEL_MIX
  void visit_Select(const ir::SelectNode* op) override {
    choices += lanes(op);
    visit_children(op);
  }
};

/// Log-scaled access features of the statement's store and of its kLoadSlots loads that
/// touch the most distinct bytes (zeros for missing loads).
constexpr size_t kLoadSlots = 3;
std::vector<float> access_slots(std::vector<AccessFeatures> accesses) {
  std::stable_sort(accesses.begin() + 1, accesses.end(),
                   [](const AccessFeatures& a, const AccessFeatures& b) {
                     return a.unique_bytes > b.unique_bytes;
                   });
  accesses.resize(1 + kLoadSlots);
  std::vector<float> features;
  for (const AccessFeatures& a : accesses)
    for (double x : {a.unique_bytes, a.inner_bytes, a.stride, a.reuse_count, a.reuse_bytes})
      features.push_back(log_scale(x));
  return features;
}

/// Walks the statements with the stack of enclosing loops.
class LoopWalker : public ir::IRVisitor {
 public:
  struct Loop {
    const ir::ForNode* node;
    double extent;
  };
  /// Features of the store doing the most arithmetic: its loops, then its operation mix,
  /// then its memory accesses.
  std::vector<float> main_features = std::vector<float>(9, 0.0f);
  std::vector<float> mix_features = std::vector<float>(4, 0.0f);
  std::vector<float> memory_features = std::vector<float>((1 + kLoadSlots) * 5, 0.0f);
  double best_work = -1;
  double stores = 0, loops = 0, local_bytes = 0;
  /// Distinct bytes written by all statements (a padded copy's pass included).
  double written_bytes = 0;

 private:
  void visit_For(const ir::ForNode* op) override {
    loops += 1;
    stack_.push_back({op, const_extent(op->extent)});
    visit(op->body);
    stack_.pop_back();
  }
  void visit_Allocate(const ir::AllocateNode* op) override {
    if (op->buffer->scope == ir::MemoryScope::Local && op->buffer.const_size() > 0)
      local_bytes += static_cast<double>(op->buffer.const_size() * op->buffer->dtype.bytes());
    visit(op->body);
  }
  void visit_Store(const ir::StoreNode* op) override {
    stores += 1;
    double trips = 1, parallel = 1, vector = 1, unrolled = 1;
    for (const Loop& loop : stack_) {
      trips *= loop.extent;
      if (loop.node->for_kind == ir::ForKind::Parallel) parallel *= loop.extent;
      if (loop.node->for_kind == ir::ForKind::Vectorized) vector *= loop.extent;
      if (loop.node->for_kind == ir::ForKind::Unrolled) unrolled *= loop.extent;
    }
    std::vector<NestLoop> nest;
    for (const Loop& loop : stack_) nest.push_back({loop.node->var, loop.extent});
    std::vector<AccessFeatures> accesses = access_features(op, nest);
    written_bytes += accesses.front().unique_bytes;
    LoadCounter counter(stack_.empty() ? ir::Var() : stack_.back().node->var);
    counter.visit(op->value);
    double flops = count_flops(op->value);
    double work = trips * std::max(1.0, flops);
    if (work <= best_work) return;
    OperationMix mix;
    mix.visit(op->value);
    mix_features = {log_scale(trips * mix.simple), log_scale(trips * mix.divisions),
                    log_scale(trips * mix.calls), log_scale(trips * mix.choices)};
    memory_features = access_slots(std::move(accesses));
    best_work = work;
    double innermost = stack_.empty() ? 1 : stack_.back().extent;
    main_features = {log_scale(trips),
                     log_scale(trips * flops),
                     log_scale(parallel),
                     log_scale(vector),
                     log_scale(unrolled),
                     log_scale(counter.loads),
                     log_scale(counter.inner_loads),
                     log_scale(static_cast<double>(stack_.size())),
                     log_scale(innermost)};
  }
  std::vector<Loop> stack_;
};

}  // namespace

std::vector<float> loop_features(const ir::PrimFunc& func) {
  LoopWalker walker;
  walker.visit(func.body);
  std::vector<float> features = walker.main_features;
  features.push_back(log_scale(walker.stores));
  features.push_back(log_scale(walker.loops));
  features.push_back(log_scale(walker.local_bytes));
  features.push_back(log_scale(walker.best_work));
  features.push_back(log_scale(static_cast<double>(func.params.size())));
  features.insert(features.end(), walker.mix_features.begin(), walker.mix_features.end());
  features.insert(features.end(), walker.memory_features.begin(), walker.memory_features.end());
  features.push_back(log_scale(walker.written_bytes));
  return features;
}

std::vector<float> candidate_features(const Task& task, const Point& point) {
  std::shared_ptr<schedule::Schedule> schedule = task.schedule_at(point);
  std::vector<float> features =
      loop_features(lower::lower(*schedule, task.kernel->args, "features"));
  for (size_t k = 0; k < point.size(); ++k)
    features.push_back(log_scale(
        static_cast<double>(task.space.knobs()[k].values[static_cast<size_t>(point[k])])));
  return features;
}

}  // namespace tessel::autotune
