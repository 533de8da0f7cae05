// Constant bounds by structural recursion: each node kind combines its operands' bounds
// with interval arithmetic (interval_math.h), then intersects with its type's range.
#include "arith/const_bound.h"

#include "arith/interval_math.h"
#include "ir/functor.h"

namespace tessel::arith {
namespace {

using namespace ir;

class BoundEvaluator {
 public:
  explicit BoundEvaluator(Bindings& bindings) : bindings_(bindings) {}

  ConstBound eval(const Expr& e) {
    DataType t = e.dtype();
    if (!t.is_integer() && !t.is_bool()) return bound::everything();
    return bound::intersect(eval_node(e), bound::of_type(t.element()));
  }

 private:
  ConstBound eval_node(const Expr& e) {
    switch (e.kind()) {
      case ExprKind::IntImm:
        return bound::point(e.as<IntImmNode>()->value);
      case ExprKind::Var:
        return eval_var(e.as<VarNode>());
      case ExprKind::Add:
        return binary<AddNode>(e, bound::add);
      case ExprKind::Sub:
        return binary<SubNode>(e, bound::sub);
      case ExprKind::Mul:
        return binary<MulNode>(e, bound::mul);
      case ExprKind::Div:
        return binary<DivNode>(e, bound::floordiv);
      case ExprKind::Mod:
        return binary<ModNode>(e, bound::floormod);
      case ExprKind::Min:
        return binary<MinNode>(e, bound::min);
      case ExprKind::Max:
        return binary<MaxNode>(e, bound::max);
      case ExprKind::Select:
        return eval_select(e.as<SelectNode>());
      case ExprKind::Cast:
        return eval_cast(e.as<CastNode>());
      case ExprKind::Broadcast:
        return eval(e.as<BroadcastNode>()->value);
      case ExprKind::Ramp:
        return eval_ramp(e.as<RampNode>());
      case ExprKind::Let:
        return eval_let(e.as<LetNode>());
      default:
        return bound::of_type(e.dtype().element());  // loads, calls, logic
    }
  }

  template <class Node>
  ConstBound binary(const Expr& e, ConstBound (*op)(const ConstBound&, const ConstBound&)) {
    const Node* n = static_cast<const Node*>(e.get());
    return op(eval(n->a), eval(n->b));
  }

  ConstBound eval_var(const VarNode* op) {
    const VarInfo* info = bindings_.find(op);
    if (!info) return bound::of_type(op->dtype.element());
    if (info->has_bound) return info->bound;
    if (info->value.defined()) return eval(info->value);
    return bound::of_type(op->dtype.element());
  }

  ConstBound eval_select(const SelectNode* op) {
    if (const int64_t* c = as_const_int(op->condition))
      return eval(*c ? op->true_value : op->false_value);
    return bound::unite(eval(op->true_value), eval(op->false_value));
  }

  ConstBound eval_cast(const CastNode* op) {
    DataType from = op->value.dtype();
    if (!from.is_integer() && !from.is_bool()) return bound::of_type(op->dtype.element());
    ConstBound v = eval(op->value);
    ConstBound range = bound::of_type(op->dtype.element());
    // Values outside the target range wrap around: then only the type's range is known.
    return v.min >= range.min && v.max <= range.max ? v : range;
  }

  ConstBound eval_ramp(const RampNode* op) {
    ConstBound base = eval(op->base);
    ConstBound last = bound::add(base, bound::mul(eval(op->stride), bound::point(op->lanes - 1)));
    return bound::unite(base, last);
  }

  ConstBound eval_let(const LetNode* op) {
    const VarInfo* saved = bindings_.find(op->var.get());
    VarInfo old = saved ? *saved : VarInfo{};
    bindings_.set_bound(op->var, eval(op->value));
    ConstBound r = eval(op->body);
    bindings_.restore(op->var, saved ? &old : nullptr);
    return r;
  }

  Bindings& bindings_;
};

}  // namespace

ConstBound const_bound_of(const Expr& e, Bindings& bindings) {
  return BoundEvaluator(bindings).eval(e);
}

}  // namespace tessel::arith
