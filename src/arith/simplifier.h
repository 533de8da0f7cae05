// The rewrite simplifier behind Analyzer::simplify (internal to tessel::arith).
//
// A bottom-up IRMutator: each node's operands are simplified first, then the rules of the
// node's family apply (one file per family: simplify_add_sub.cpp, simplify_div_mod.cpp,
// simplify_min_max.cpp, simplify_cmp.cpp, simplify_logic.cpp, simplify_vector.cpp). The
// `simplify_<op>(a, b)` entry points take operands that are already simplified and return a
// simplified result, so rules can build new nodes through them without re-walking subtrees.
#pragma once

#include <optional>

#include "arith/bindings.h"
#include "arith/expr_equal.h"
#include "arith/linear_form.h"
#include "ir/functor.h"

namespace tessel::arith {

/// Simplifies expressions under the facts of `bindings` (see the file comment).
class Simplifier : public ir::IRMutator {
 public:
  explicit Simplifier(Bindings& bindings) : bindings_(bindings) {}

  /// Constant bounds of an (already simplified) expression under the current bindings.
  ConstBound bound(const Expr& e);
  /// Bounds of a - b, for scalar integer a and b (everything() when unknown).
  ConstBound difference_bound(const Expr& a, const Expr& b);

  /// The rules of each operation; operands must already be simplified.
  Expr simplify_add(const Expr& a, const Expr& b);
  Expr simplify_sub(const Expr& a, const Expr& b);
  Expr simplify_mul(const Expr& a, const Expr& b);
  Expr simplify_div(const Expr& a, const Expr& b);
  Expr simplify_mod(const Expr& a, const Expr& b);
  Expr simplify_min(const Expr& a, const Expr& b);
  Expr simplify_max(const Expr& a, const Expr& b);
  Expr simplify_cmp(ir::ExprKind kind, const Expr& a, const Expr& b);
  Expr simplify_and(const Expr& a, const Expr& b);
  Expr simplify_or(const Expr& a, const Expr& b);
  Expr simplify_not(const Expr& a);
  Expr simplify_select(const Expr& c, const Expr& t, const Expr& f);
  /// Ramp/Broadcast rules for an element-wise binary op on vectors; null when none applies.
  Expr simplify_vector_binary(ir::ExprKind kind, const Expr& a, const Expr& b);
  /// Dispatches to the simplify_<op> rule of a binary kind.
  Expr simplify_binary(ir::ExprKind kind, const Expr& a, const Expr& b);
  /// Applies the Div/Mod recombination rules to a linear form in place.
  void canonicalize(LinearForm& form);
  /// The canonical expression of a linear form (its atoms are already simplified).
  Expr simplify_linear(const LinearForm& form);
  /// Constant bounds of a linear form's value.
  ConstBound linear_bound(const LinearForm& form);
  /// `e`, or the constant it equals when its bounds are a single point.
  Expr fold_point(const Expr& e);

  Expr mutate_Var(const ir::VarNode* op, const Expr& self) override;
  Expr mutate_Add(const ir::AddNode* op, const Expr& self) override;
  Expr mutate_Sub(const ir::SubNode* op, const Expr& self) override;
  Expr mutate_Mul(const ir::MulNode* op, const Expr& self) override;
  Expr mutate_Div(const ir::DivNode* op, const Expr& self) override;
  Expr mutate_Mod(const ir::ModNode* op, const Expr& self) override;
  Expr mutate_Min(const ir::MinNode* op, const Expr& self) override;
  Expr mutate_Max(const ir::MaxNode* op, const Expr& self) override;
  Expr mutate_EQ(const ir::EQNode* op, const Expr& self) override;
  Expr mutate_NE(const ir::NENode* op, const Expr& self) override;
  Expr mutate_LT(const ir::LTNode* op, const Expr& self) override;
  Expr mutate_LE(const ir::LENode* op, const Expr& self) override;
  Expr mutate_GT(const ir::GTNode* op, const Expr& self) override;
  Expr mutate_GE(const ir::GENode* op, const Expr& self) override;
  Expr mutate_And(const ir::AndNode* op, const Expr& self) override;
  Expr mutate_Or(const ir::OrNode* op, const Expr& self) override;
  Expr mutate_Not(const ir::NotNode* op, const Expr& self) override;
  Expr mutate_Select(const ir::SelectNode* op, const Expr& self) override;
  Expr mutate_Cast(const ir::CastNode* op, const Expr& self) override;
  Expr mutate_Ramp(const ir::RampNode* op, const Expr& self) override;
  Expr mutate_Let(const ir::LetNode* op, const Expr& self) override;

 private:
  /// Adds scale * e to form, walking the additive spine of the unsimplified e and
  /// simplifying its atoms; false on coefficient overflow.
  bool collect_spine(const Expr& e, int64_t scale, LinearForm& form);
  /// The simplified additive spine rooted at self (undefined on overflow).
  Expr mutate_spine(const Expr& self);
  /// Applies one Div/Mod recombination to a linear form; false when none applies.
  bool merge_div_mod(LinearForm& form);
  /// a / c and a % c for c > 0 where a has no term divisible by c: nested division and
  /// modulo rules, then a plain node.
  Expr divide_atom(const Expr& a, int64_t c);
  Expr modulo_atom(const Expr& a, int64_t c);
  /// a / b and a % b for a non-constant divisor b (assumed nonzero).
  Expr divide_by_variable(const Expr& a, const Expr& b);
  Expr modulo_by_variable(const Expr& a, const Expr& b);
  /// Simplifies both operands of a binary node and applies `rule`; returns `self` when the
  /// result is the same expression.
  template <class Node, class Rule>
  Expr binary(const Node* op, const Expr& self, Rule rule);

  Bindings& bindings_;
};

template <class Node, class Rule>
Expr Simplifier::binary(const Node* op, const Expr& self, Rule rule) {
  Expr a = mutate(op->a);
  Expr b = mutate(op->b);
  Expr r = rule(a, b);
  if (a.same_as(op->a) && b.same_as(op->b) && deep_equal(r, self)) return self;
  return r;
}

/// Whether e is a scalar integer expression (where linear forms and bounds apply).
inline bool is_index_like(const Expr& e) {
  return e.dtype().is_integer() && e.dtype().is_scalar();
}

}  // namespace tessel::arith
