// Topological ordering of a tensor-expression DAG.
#include "te/dag.h"

#include <string>
#include <unordered_set>

#include "support/error.h"

namespace tessel::te {

std::vector<Operation> topological_order(const std::vector<Tensor>& outputs) {
  std::vector<Operation> order;
  std::unordered_set<const OperationNode*> done;
  // Iterative depth-first post-order: (operation, next input to visit).
  std::vector<std::pair<Operation, size_t>> stack;
  for (const Tensor& out : outputs) {
    if (!out.defined()) TESSEL_USER_ERROR("an output tensor is undefined");
    if (done.count(out.op().get())) continue;
    stack.emplace_back(out.op(), 0);
    while (!stack.empty()) {
      auto& [op, next] = stack.back();
      if (next < op->inputs.size()) {
        const Operation& input = op->inputs[next++].op();
        if (!done.count(input.get())) stack.emplace_back(input, 0);
        continue;
      }
      Operation finished = op;
      stack.pop_back();
      if (!done.insert(finished.get()).second) continue;
      order.push_back(finished);
    }
  }
  return order;
}

}  // namespace tessel::te
