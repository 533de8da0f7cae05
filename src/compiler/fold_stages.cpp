// fold_constant_stages: find the maximal constant stages, run them, rebuild the readers.
#include "compiler/fold_stages.h"

#include <set>

#include "graph/graph.h"
#include "ops/op_util.h"
#include "schedules/cpu/generic.h"
#include "support/error.h"
#include "target/host.h"
#include "te/dag.h"
#include "te/rewrite.h"

namespace tessel::compiler {
namespace {

/// A folded stage may be this many times larger than the constants it reads (packing pads
/// a little, a Winograd transform spreads each 3x3 filter over (m + 2)^2 points: 4x for
/// m = 4, 7.1x for m = 6; a broadcast that multiplies the data further is left to run time).
constexpr int64_t kMaxGrowth = 8;
constexpr int64_t kSmallStage = 1 << 12;

int64_t elements(const te::Tensor& t) {
  return te::shape_size(te::static_shape(t));
}

/// Runs the stage computing `t` on the constants it reads, unless a stage of the same
/// structure ran on the same arrays before.
std::shared_ptr<const runtime::NDArray> evaluate(
    const te::Tensor& t, const std::vector<te::Tensor>& reads,
    const std::map<const te::OperationNode*, const runtime::NDArray*>& constants,
    const std::string& cache_key, FoldCache& cache) {
  std::vector<const runtime::NDArray*> arrays;
  for (const te::Tensor& r : reads) arrays.push_back(constants.at(r.op().get()));
  std::shared_ptr<const runtime::NDArray>& folded = cache.results[{cache_key, arrays}];
  if (folded) return folded;
  auto& kernel = cache.kernels[cache_key];
  if (!kernel) {
    schedule::Schedule s({t});
    schedules::schedule_generic(s, {t}, target::host());  // folded here, on the host
    std::vector<te::Tensor> args = reads;
    args.push_back(t);
    kernel = std::make_shared<driver::Kernel>(driver::build(s, args, "fold"));
  }
  runtime::NDArray result(te::static_shape(t), graph::to_runtime_dtype(t.dtype()));
  std::vector<void*> pointers;
  for (const runtime::NDArray* array : arrays) pointers.push_back(const_cast<void*>(array->data()));
  pointers.push_back(result.data());
  kernel->run(pointers);
  folded = std::make_shared<const runtime::NDArray>(std::move(result));
  return folded;
}

}  // namespace

te::Tensor StageFolding::map(const te::Tensor& t) const {
  auto found = rebuilt.find(t.op().get());
  return found == rebuilt.end() ? t : found->second->output(t.value_index());
}

StageFolding fold_constant_stages(
    const std::vector<te::Tensor>& outputs,
    const std::map<const te::OperationNode*, const runtime::NDArray*>& constants,
    const std::string& key, FoldCache& cache) {
  StageFolding result;
  result.outputs = outputs;
  std::vector<te::Operation> order = te::topological_order(outputs);
  std::set<const te::OperationNode*> roots;
  for (const te::Tensor& t : outputs) roots.insert(t.op().get());

  // Stages reading only constants (directly or through other such stages), and what they
  // read in the end.
  std::map<const te::OperationNode*, int64_t> constant_elements;
  for (const te::Operation& op : order) {
    if (op->is_placeholder()) {
      auto found = constants.find(op.get());
      if (found != constants.end()) constant_elements[op.get()] = found->second->size();
      continue;
    }
    if (op->num_outputs() != 1 || roots.count(op.get())) continue;
    bool all_constant = true;  // a stage reading nothing (a table of indices) is constant
    int64_t read = 0;
    for (const te::Tensor& in : op->inputs) {
      auto found = constant_elements.find(in.op().get());
      all_constant &= found != constant_elements.end();
      if (found != constant_elements.end()) read += found->second;
    }
    if (all_constant) constant_elements[op.get()] = read;
  }
  // The maximal ones: read by a stage that is not constant.
  std::map<const te::OperationNode*, te::Tensor> replacement;
  for (size_t position = 0; position < order.size(); ++position) {
    const te::Operation& op = order[position];
    if (constant_elements.count(op.get())) continue;
    for (const te::Tensor& in : op->inputs) {
      const te::OperationNode* producer = in.op().get();
      if (in.op()->is_placeholder() || !constant_elements.count(producer) ||
          replacement.count(producer))
        continue;
      if (elements(in) > kMaxGrowth * constant_elements.at(producer) + kSmallStage) continue;
      std::vector<te::Tensor> reads;
      for (const te::Operation& candidate : te::topological_order({in}))
        if (candidate->is_placeholder()) reads.push_back(candidate->output(0));
      std::string cache_key = key + "#fold" + std::to_string(result.folded.size());
      std::shared_ptr<const runtime::NDArray> data =
          evaluate(in, reads, constants, cache_key, cache);
      te::Tensor placeholder = te::placeholder(in.shape(), in.dtype(), in.name() + ".folded");
      replacement[producer] = placeholder;
      result.folded.push_back(FoldedStage{placeholder, data});
    }
  }
  if (replacement.empty()) return result;

  // Rebuild every stage that reads a replaced or rebuilt one, producers first.
  for (const te::Operation& op : order) {
    if (op->is_placeholder() || replacement.count(op.get())) continue;
    te::Operation rebuilt = te::rewrite_op_loads(op, [&](const te::Tensor& t,
                                                         const std::vector<ir::Expr>& index) {
      auto replaced = replacement.find(t.op().get());
      if (replaced != replacement.end()) return replaced->second(index);
      auto found = result.rebuilt.find(t.op().get());
      if (found != result.rebuilt.end()) return found->second->output(t.value_index())(index);
      return ir::Expr();
    });
    if (rebuilt.get() != op.get()) result.rebuilt[op.get()] = rebuilt;
  }
  for (te::Tensor& t : result.outputs) t = result.map(t);
  return result;
}

}  // namespace tessel::compiler
