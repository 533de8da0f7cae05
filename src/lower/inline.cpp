// Substitution of inlined stages into their consumers' bodies.
#include "lower/inline.h"

#include "ir/functor.h"
#include "support/error.h"
#include "te/rewrite.h"

namespace tessel::lower {

using ir::Expr;

std::vector<Expr> Inliner::bodies(const schedule::Stage& stage) {
  std::vector<Expr> out;
  for (const Expr& b : stage.op->bodies) out.push_back(expand(b));
  return out;
}

Expr Inliner::expand(const Expr& e) {
  return te::rewrite_loads(e, [this](const te::Tensor& t, const std::vector<Expr>& idx) {
    const schedule::Stage* producer = schedule_.stage_of(t.op().get());
    TESSEL_ICHECK(producer, "tensor '", t.name(), "' has no stage");
    if (producer->attach != schedule::AttachKind::Inline) return Expr();
    std::vector<std::pair<ir::Var, Expr>> map;
    const auto& axis = producer->op->axis;
    for (size_t d = 0; d < axis.size(); ++d) map.emplace_back(axis[d].var, idx[d]);
    return ir::substitute(inlined_body(*producer), map);
  });
}

const Expr& Inliner::inlined_body(const schedule::Stage& stage) {
  auto it = expanded_.find(&stage);
  if (it != expanded_.end()) return it->second;
  Expr body = expand(stage.op->bodies.at(0));
  return expanded_.emplace(&stage, body).first->second;
}

}  // namespace tessel::lower
