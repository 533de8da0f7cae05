// Load rewriting over tensor-expression bodies.
#include "te/rewrite.h"

#include "ir/functor.h"

namespace tessel::te {
namespace {

class LoadRewriter : public ir::IRMutator {
 public:
  explicit LoadRewriter(const LoadRewrite& rewrite) : rewrite_(rewrite) {}

  Expr mutate_Load(const ir::LoadNode* op, const Expr& self) override {
    Expr load = mutate_children(op, self);
    const auto* node = load.as<ir::LoadNode>();
    if (!as_tensor_buffer(node->buffer)) return load;
    Expr replaced = rewrite_(Tensor(node->buffer), node->indices);
    return replaced.defined() ? replaced : load;
  }

 private:
  const LoadRewrite& rewrite_;
};

}  // namespace

Expr rewrite_loads(const Expr& e, const LoadRewrite& rewrite) {
  return LoadRewriter(rewrite).mutate(e);
}

Operation rewrite_op_loads(const Operation& op, const LoadRewrite& rewrite) {
  std::vector<Expr> bodies;
  bool changed = false;
  for (const Expr& b : op->bodies) {
    bodies.push_back(rewrite_loads(b, rewrite));
    changed = changed || !bodies.back().same_as(b);
  }
  if (!changed) return op;
  return make_compute_op(op->name, op->shape, op->axis, std::move(bodies), op->output_names);
}

}  // namespace tessel::te
