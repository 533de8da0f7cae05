// vectorize_loops: Vectorized loops become vector code, or serial loops when that is unsafe.
#include "tir/vectorize.h"

#include <algorithm>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/expr_equal.h"
#include "ir/functor.h"

namespace tessel::tir {
namespace {

using ir::Expr;
using ir::ExprKind;
using ir::Stmt;
using ir::Var;

/// Thrown while vectorizing a loop body that must stay serial; caught per loop.
struct CannotVectorize {
  std::string reason;
};

int lanes_of(const Expr& e) {
  return e.dtype().lanes;
}

/// `e` as a scalar when it is one or a broadcast of one, else undefined.
Expr scalar_of(const Expr& e) {
  if (lanes_of(e) == 1) return e;
  if (const auto* b = e.as<ir::BroadcastNode>()) return b->value;
  return Expr();
}

/// `e` with `lanes` lanes: broadcast when scalar.
Expr widen(const Expr& e, int lanes) {
  if (lanes_of(e) == lanes) return e;
  if (lanes_of(e) != 1)
    throw CannotVectorize{"an expression of " + e.dtype().to_string() + " meets " +
                          std::to_string(lanes) + " lanes"};
  return ir::make_Broadcast(e, lanes);
}

// Ramp bases and strides, with constants folded for the index type (int64 wraps like the
// unsigned arithmetic used here) and the identities x + 0, x * 1 applied.
const int64_t* index_const(const Expr& e) {
  return e.dtype() == ir::DataType::Index() ? ir::as_const_int(e) : nullptr;
}

Expr fold_add(const Expr& a, const Expr& b) {
  const int64_t *ca = index_const(a), *cb = index_const(b);
  if (ca && cb) return ir::make_int(static_cast<int64_t>(static_cast<uint64_t>(*ca) + *cb));
  if (ir::is_zero(b)) return a;
  if (ir::is_zero(a)) return b;
  return ir::make_Add(a, b);
}

Expr fold_sub(const Expr& a, const Expr& b) {
  const int64_t *ca = index_const(a), *cb = index_const(b);
  if (ca && cb) return ir::make_int(static_cast<int64_t>(static_cast<uint64_t>(*ca) - *cb));
  if (ir::is_zero(b)) return a;
  return ir::make_Sub(a, b);
}

Expr fold_mul(const Expr& a, const Expr& b) {
  const int64_t *ca = index_const(a), *cb = index_const(b);
  if (ca && cb) return ir::make_int(static_cast<int64_t>(static_cast<uint64_t>(*ca) * *cb));
  if (ir::is_one(b)) return a;
  if (ir::is_one(a)) return b;
  return ir::make_Mul(a, b);
}

/// Ramp arithmetic that keeps a ramp: ramp +/- invariant, ramp +/- ramp, ramp * invariant.
/// Undefined when the rule does not apply.
Expr ramp_rule(ExprKind kind, const Expr& a, const Expr& b) {
  const auto* ra = a.as<ir::RampNode>();
  const auto* rb = b.as<ir::RampNode>();
  Expr sa = scalar_of(a), sb = scalar_of(b);
  int lanes = std::max(lanes_of(a), lanes_of(b));
  auto ramp = [lanes](const Expr& base, const Expr& stride) {
    return ir::make_Ramp(base, stride, lanes);
  };
  switch (kind) {
    case ExprKind::Add:
      if (ra && sb.defined()) return ramp(fold_add(ra->base, sb), ra->stride);
      if (sa.defined() && rb) return ramp(fold_add(sa, rb->base), rb->stride);
      if (ra && rb) return ramp(fold_add(ra->base, rb->base), fold_add(ra->stride, rb->stride));
      return Expr();
    case ExprKind::Sub:
      if (ra && sb.defined()) return ramp(fold_sub(ra->base, sb), ra->stride);
      if (sa.defined() && rb) {
        Expr zero = ir::make_int(0, rb->stride.dtype());
        return ramp(fold_sub(sa, rb->base), fold_sub(zero, rb->stride));
      }
      if (ra && rb) return ramp(fold_sub(ra->base, rb->base), fold_sub(ra->stride, rb->stride));
      return Expr();
    case ExprKind::Mul:
      if (ra && sb.defined()) return ramp(fold_mul(ra->base, sb), fold_mul(ra->stride, sb));
      if (sa.defined() && rb) return ramp(fold_mul(sa, rb->base), fold_mul(sa, rb->stride));
      return Expr();
    default:
      return Expr();
  }
}

/// Finds what may fault when evaluated on lanes the original code would not have run:
/// loads, integer division and modulo, float-to-int casts.
class FaultFinder : public ir::IRVisitor {
 public:
  void visit_Load(const ir::LoadNode*) override { safe = false; }
  void visit_Div(const ir::DivNode* op) override { check_division(op); }
  void visit_Mod(const ir::ModNode* op) override { check_division(op); }
  void visit_Cast(const ir::CastNode* op) override {
    if (op->value.dtype().is_float() && !op->dtype.is_float()) safe = false;
    IRVisitor::visit_Cast(op);
  }
  bool safe = true;

 private:
  template <class Node>
  void check_division(const Node* op) {
    if (!op->dtype.is_float()) safe = false;
    visit_children(op);
  }
};

bool can_speculate(const Expr& e) {
  FaultFinder finder;
  finder.visit(e);
  return finder.safe;
}

/// Rewrites one loop body for `lanes` lanes, the loop variable becoming a ramp.
class VectorBody : public ir::IRMutator {
 public:
  VectorBody(const Var& var, const Expr& ramp) : lanes_(lanes_of(ramp)) { vars_[var.get()] = ramp; }

  Expr mutate_Var(const ir::VarNode* op, const Expr& self) override {
    auto it = vars_.find(op);
    return it == vars_.end() ? self : it->second;
  }

#define TESSEL_VECTORIZE_BINARY(name)                                       \
  Expr mutate_##name(const ir::name##Node* op, const Expr& self) override { \
    return binary<ir::make_##name>(op, self);                               \
  }
  TESSEL_BINARY_EXPR_KINDS(TESSEL_VECTORIZE_BINARY)
#undef TESSEL_VECTORIZE_BINARY

  Expr mutate_Select(const ir::SelectNode* op, const Expr& self) override {
    Expr c = mutate(op->condition), t = mutate(op->true_value), f = mutate(op->false_value);
    if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value))
      return self;
    int lanes = std::max({lanes_of(c), lanes_of(t), lanes_of(f)});
    if (lanes_of(c) != 1) c = widen(c, lanes);
    return ir::make_Select(c, widen(t, lanes), widen(f, lanes));
  }

  Expr mutate_Call(const ir::CallNode* op, const Expr& self) override {
    std::vector<Expr> args;
    int lanes = 1;
    for (const Expr& a : op->args) {
      args.push_back(mutate(a));
      lanes = std::max(lanes, lanes_of(args.back()));
    }
    if (lanes == 1) return mutate_children(op, self);
    for (Expr& a : args) a = widen(a, lanes);
    return ir::make_Call(op->op, std::move(args));
  }

  Expr mutate_Ramp(const ir::RampNode*, const Expr&) override {
    throw CannotVectorize{"the body already holds a ramp"};
  }
  Expr mutate_Broadcast(const ir::BroadcastNode*, const Expr&) override {
    throw CannotVectorize{"the body already holds a broadcast"};
  }
  Expr mutate_Reduce(const ir::ReduceNode*, const Expr&) override {
    throw CannotVectorize{"the body holds a Reduce"};
  }

  Expr mutate_Let(const ir::LetNode* op, const Expr& self) override {
    Expr value = mutate(op->value);
    if (lanes_of(value) == 1) return mutate_children(op, self);
    Var vector_var(op->var.name(), value.dtype());
    Expr body = with_vector_var(op->var, vector_var, [&] { return mutate(op->body); });
    return ir::make_Let(vector_var, value, body);
  }

  Stmt mutate_LetStmt(const ir::LetStmtNode* op, const Stmt& self) override {
    Expr value = mutate(op->value);
    if (lanes_of(value) == 1) return mutate_children(op, self);
    Var vector_var(op->var.name(), value.dtype());
    Stmt body = with_vector_var(op->var, vector_var, [&] { return mutate(op->body); });
    return ir::make_LetStmt(vector_var, value, body);
  }

  Stmt mutate_Store(const ir::StoreNode* op, const Stmt&) override {
    Expr value = mutate(op->value);
    std::vector<Expr> indices;
    int lanes = 1;
    for (const Expr& i : op->indices) {
      indices.push_back(mutate(i));
      lanes = std::max(lanes, lanes_of(indices.back()));
    }
    if (lanes == 1)
      throw CannotVectorize{"store to '" + op->buffer->name +
                            "' at an index that does not depend on the loop variable"};
    return ir::make_Store(op->buffer, widen(value, lanes), std::move(indices));
  }

  Stmt mutate_For(const ir::ForNode* op, const Stmt& self) override {
    Expr min = mutate(op->min), extent = mutate(op->extent);
    if (lanes_of(min) != 1 || lanes_of(extent) != 1)
      throw CannotVectorize{"the bounds of inner loop '" + op->var.name() + "' depend on it"};
    return mutate_children(op, self);
  }

  Stmt mutate_IfThenElse(const ir::IfThenElseNode* op, const Stmt& self) override {
    Expr condition = mutate(op->condition);
    if (lanes_of(condition) == 1) return mutate_children(op, self);
    return select_store(op, widen(condition, lanes_));
  }

  Stmt mutate_Allocate(const ir::AllocateNode* op, const Stmt&) override {
    throw CannotVectorize{"the body allocates '" + op->buffer->name + "'"};
  }

 private:
  template <Expr (*Make)(Expr, Expr), class Node>
  Expr binary(const Node* op, const Expr& self) {
    Expr a = mutate(op->a), b = mutate(op->b);
    if (a.same_as(op->a) && b.same_as(op->b)) return self;
    int lanes = std::max(lanes_of(a), lanes_of(b));
    if (lanes == 1) return Make(a, b);
    if (Expr r = ramp_rule(op->kind, a, b); r.defined()) return r;
    Expr sa = scalar_of(a), sb = scalar_of(b);
    if (sa.defined() && sb.defined()) return ir::make_Broadcast(Make(sa, sb), lanes);
    return Make(widen(a, lanes), widen(b, lanes));
  }

  template <class Fn>
  std::invoke_result_t<Fn&> with_vector_var(const Var& var, const Var& vector_var, Fn&& fn) {
    vars_[var.get()] = vector_var;
    auto result = fn();
    vars_.erase(var.get());
    return result;
  }

  /// if (c) B[i] = x else B[i] = y, with a vector c, as B[i] = select(c, x, y).
  Stmt select_store(const ir::IfThenElseNode* op, const Expr& condition) {
    if (!op->else_case.defined())
      throw CannotVectorize{"an if without else depends on the loop variable"};
    Stmt then_case = mutate(op->then_case), else_case = mutate(op->else_case);
    const auto* t = then_case.as<ir::StoreNode>();
    const auto* e = else_case.as<ir::StoreNode>();
    bool same_element = t && e && t->buffer.same_as(e->buffer) &&
                        std::equal(t->indices.begin(), t->indices.end(), e->indices.begin(),
                                   e->indices.end(), arith::deep_equal);
    if (!same_element || !can_speculate(t->value) || !can_speculate(e->value))
      throw CannotVectorize{"an if whose condition depends on the loop variable"};
    return ir::make_Store(t->buffer, ir::make_Select(condition, t->value, e->value), t->indices);
  }

  int lanes_;
  // Variables replaced in the body: the loop variable, and lets that became vectors.
  std::unordered_map<const ir::VarNode*, Expr> vars_;
};

/// What the lane-independence check needs to know about a vectorized body.
class BodyAccesses : public ir::IRVisitor {
 public:
  using IndexList = const std::vector<Expr>*;

  void visit_def(const Var& v) override { declared_.insert(v.get()); }
  void visit_For(const ir::ForNode* op) override {
    loops_.push_back(op);
    IRVisitor::visit_For(op);
  }
  void visit_Load(const ir::LoadNode* op) override {
    loads_[op->buffer->data.get()].push_back(&op->indices);
    IRVisitor::visit_Load(op);
  }
  void visit_Store(const ir::StoreNode* op) override {
    stores_[op->buffer->data.get()].push_back(&op->indices);
    IRVisitor::visit_Store(op);
  }

  /// Throws CannotVectorize when lanes could touch one element of a stored buffer in an
  /// order other than the serial loop's (see vectorize.h).
  void check_lanes_independent() {
    for (const auto& [data, stores] : stores_) {
      std::vector<IndexList> all = stores;
      const std::vector<IndexList>& loads = loads_[data];
      all.insert(all.end(), loads.begin(), loads.end());
      const std::vector<Expr>& index = *all[0];
      for (IndexList other : all)
        if (!std::equal(index.begin(), index.end(), other->begin(), other->end(),
                        arith::deep_equal))
          throw CannotVectorize{"a stored buffer is accessed at different indices"};
      // A lone store whose index is fixed for the whole body: with repeated lanes the last
      // lane wins, as the last iteration does in the loop.
      bool fixed =
          std::none_of(index.begin(), index.end(), [&](const Expr& e) { return uses_inner(e); });
      if ((all.size() > 1 || !fixed) && !lanes_distinct(index))
        throw CannotVectorize{"lanes could touch the same element of a stored buffer"};
    }
  }

 private:
  /// Whether `e` uses a variable declared in the body (and, with lets_only, not a loop's).
  bool uses_inner(const Expr& e, bool lets_only = false) const {
    bool found = false;
    visit_vars(e, [&](const ir::VarNode* v) {
      bool is_loop_var = std::any_of(loops_.begin(), loops_.end(),
                                     [v](const ir::ForNode* op) { return op->var.get() == v; });
      found = found || (declared_.count(v) && !(lets_only && is_loop_var));
    });
    return found;
  }

  template <class Fn>
  static void visit_vars(const Expr& e, Fn&& fn) {
    struct Walker : ir::IRVisitor {
      explicit Walker(Fn& f) : fn(f) {}
      void visit_Var(const ir::VarNode* op) override { fn(op); }
      Fn& fn;
    } walker(fn);
    walker.visit(e);
  }

  /// Whether distinct lanes address distinct elements whatever the inner loops' iterations:
  /// some dimension is ramp(base, s) with a constant s != 0 and base varies by less than |s|
  /// over the inner loops (their variables are bound to their ranges, with a renamed copy).
  bool lanes_distinct(const std::vector<Expr>& index) const {
    for (const Expr& i : index) {
      const auto* r = i.as<ir::RampNode>();
      const int64_t* stride = r ? ir::as_const_int(r->stride) : nullptr;
      if (!stride || *stride == 0) continue;
      if (!uses_inner(r->base)) return true;
      if (uses_inner(r->base, /*lets_only=*/true)) continue;
      arith::Analyzer analyzer;
      std::vector<std::pair<Var, Expr>> renamed;
      for (const ir::ForNode* loop : loops_) {  // outer loops first
        Var copy(loop->var.name(), loop->var.dtype());
        analyzer.bind(loop->var, loop->min, loop->extent);
        analyzer.bind(copy, loop->min, loop->extent);
        renamed.emplace_back(loop->var, copy);
      }
      arith::ConstBound spread = analyzer.const_bound(r->base - ir::substitute(r->base, renamed));
      int64_t limit = *stride > 0 ? *stride : -*stride;
      if (spread.bounded() && spread.max < limit && spread.min > -limit) return true;
    }
    return false;
  }

  std::unordered_set<const ir::VarNode*> declared_;
  std::vector<const ir::ForNode*> loops_;
  std::unordered_map<const ir::VarNode*, std::vector<IndexList>> loads_, stores_;
};

bool has_vector(const Stmt& s) {
  struct Finder : ir::IRVisitor {
    using IRVisitor::visit;
    void visit(const Expr& e) override {
      found = found || e.dtype().is_vector();
      if (!found) IRVisitor::visit(e);
    }
    bool found = false;
  } finder;
  finder.visit(s);
  return finder.found;
}

class LoopVectorizer : public ir::IRMutator {
 public:
  Stmt mutate_For(const ir::ForNode* op, const Stmt& self) override {
    Stmt body = mutate(op->body);  // inner loops first
    if (op->for_kind == ir::ForKind::Vectorized) return vectorize(op, body);
    if (body.same_as(op->body)) return self;
    return ir::make_For(op->var, op->min, op->extent, op->for_kind, body, op->thread_tag);
  }

 private:
  static Stmt vectorize(const ir::ForNode* op, const Stmt& body) {
    Stmt serial = ir::make_For(op->var, op->min, op->extent, ir::ForKind::Serial, body);
    const int64_t* extent = ir::as_const_int(op->extent);
    if (!extent || *extent < 1 || *extent > kMaxLanes) return serial;
    if (*extent == 1) return ir::substitute(body, {{op->var, op->min}});
    if (has_vector(body)) return serial;
    int lanes = static_cast<int>(*extent);
    try {
      Expr ramp = ir::make_Ramp(op->min, ir::make_int(1, op->var.dtype()), lanes);
      Stmt vector_body = VectorBody(op->var, ramp).mutate(body);
      BodyAccesses accesses;
      accesses.visit(vector_body);
      accesses.check_lanes_independent();
      return vector_body;
    } catch (const CannotVectorize&) {
      return serial;
    }
  }
};

}  // namespace

ir::PrimFunc vectorize_loops(const ir::PrimFunc& f) {
  return ir::PrimFunc{f.name, f.params, LoopVectorizer().mutate(f.body)};
}

}  // namespace tessel::tir
