// simplify: a statement mutator that binds loop ranges and let bounds into an Analyzer and
// simplifies every expression under them.
#include "tir/simplify.h"

#include "arith/analyzer.h"
#include "ir/functor.h"

namespace tessel::tir {
namespace {

using ir::Expr;
using ir::Stmt;

Stmt no_op() {
  return ir::make_Seq({});
}

class StmtSimplifier : public ir::IRMutator {
 public:
  Expr mutate(const Expr& e) override { return analyzer_.simplify(e); }
  Stmt mutate(const Stmt& s) override { return IRMutator::mutate(s); }

  Stmt mutate_For(const ir::ForNode* op, const Stmt& self) override {
    Expr min = mutate(op->min);
    Expr extent = mutate(op->extent);
    if (analyzer_.can_prove(extent <= 0)) return no_op();
    bool keep_unit = op->for_kind == ir::ForKind::ThreadBinding;
    if (ir::is_one(extent) && !keep_unit) return mutate(ir::substitute(op->body, {{op->var, min}}));
    analyzer_.bind(op->var, min, extent);
    Stmt body = mutate(op->body);
    analyzer_.unbind(op->var);
    if (is_no_op(body) && !keep_unit) return no_op();
    if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) return self;
    return ir::make_For(op->var, min, extent, op->for_kind, body, op->thread_tag);
  }

  Stmt mutate_LetStmt(const ir::LetStmtNode* op, const Stmt& self) override {
    Expr value = mutate(op->value);
    if (ir::as_const_int(value) || value.as<ir::FloatImmNode>() || value.as<ir::VarNode>())
      return mutate(ir::substitute(op->body, {{op->var, value}}));
    arith::ConstBound b = analyzer_.const_bound(value);
    if (value.dtype().is_integer() && b.bounded())
      analyzer_.bind(op->var, ir::make_const(value.dtype(), static_cast<double>(b.min)),
                     ir::make_const(value.dtype(), static_cast<double>(b.max - b.min + 1)));
    Stmt body = mutate(op->body);
    analyzer_.unbind(op->var);
    if (is_no_op(body)) return body;
    if (value.same_as(op->value) && body.same_as(op->body)) return self;
    return ir::make_LetStmt(op->var, value, body);
  }

  Stmt mutate_Allocate(const ir::AllocateNode* op, const Stmt& self) override {
    Stmt body = mutate(op->body);
    if (is_no_op(body)) return body;
    return body.same_as(op->body) ? self : ir::make_Allocate(op->buffer, body);
  }

  Stmt mutate_IfThenElse(const ir::IfThenElseNode* op, const Stmt& self) override {
    Expr cond = mutate(op->condition);
    const int64_t* c = ir::as_const_int(cond);
    if ((c && *c) || (!c && analyzer_.can_prove(cond))) return mutate(op->then_case);
    if (c || analyzer_.can_prove(mutate(ir::make_Not(cond))))
      return op->else_case.defined() ? mutate(op->else_case) : no_op();
    Stmt then_case = mutate(op->then_case);
    Stmt else_case = op->else_case.defined() ? mutate(op->else_case) : Stmt();
    if (else_case.defined() && is_no_op(else_case)) else_case = Stmt();
    if (is_no_op(then_case) && !else_case.defined()) return no_op();
    if (cond.same_as(op->condition) && then_case.same_as(op->then_case) &&
        else_case.same_as(op->else_case))
      return self;
    if (is_no_op(then_case)) return ir::make_IfThenElse(mutate(ir::make_Not(cond)), else_case);
    return ir::make_IfThenElse(cond, then_case, else_case);
  }

 private:
  static bool is_no_op(const Stmt& s) {
    const auto* seq = s.as<ir::SeqNode>();
    return seq && seq->seq.empty();
  }

  arith::Analyzer analyzer_;
};

}  // namespace

Stmt simplify(const Stmt& s) {
  return StmtSimplifier().mutate(s);
}

ir::PrimFunc simplify(const ir::PrimFunc& f) {
  return {f.name, f.params, simplify(f.body)};
}

}  // namespace tessel::tir
