// IRVisitor and IRMutator: walk and rewrite loop IR, overriding only the nodes a pass
// cares about.
//
// Both derive their default behaviour from each node's `fields()` list, so adding a field
// to a node needs no change here. Fields of type Var inside For/Let/IterVar are
// *declarations*: the visitor reports them through `visit_def`, the mutator keeps them.
// Buffers are reported through `visit_buffer` / rewritten through `mutate_buffer`.
// A mutator rebuilds a node only when one of its children changed (pointer identity),
// through the node's checked `make_` builder, so derived types (vector lanes) stay right.
#pragma once

#include <tuple>
#include <utility>
#include <vector>

#include "ir/stmt.h"
#include "support/error.h"

namespace tessel::ir {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  virtual void visit(const Expr& e);
  virtual void visit(const Stmt& s);
  /// A variable declared by a For, Let, LetStmt or IterVar.
  virtual void visit_def(const Var&) {}
  /// A buffer read, written or allocated.
  virtual void visit_buffer(const Buffer&) {}

#define TESSEL_VISIT_DECL(name) virtual void visit_##name(const name##Node* op);
  TESSEL_EXPR_KINDS(TESSEL_VISIT_DECL)
  TESSEL_STMT_KINDS(TESSEL_VISIT_DECL)
#undef TESSEL_VISIT_DECL

  /// Visits every field of `op` in declaration order.
  template <class Node>
  void visit_children(const Node* op) {
    std::apply([this](const auto&... f) { (visit_field(f), ...); }, op->fields());
  }

 private:
  void visit_field(const Expr& e) {
    if (e.defined()) visit(e);
  }
  void visit_field(const Var& v) { visit_def(v); }
  void visit_field(const Stmt& s) {
    if (s.defined()) visit(s);
  }
  void visit_field(const Buffer& b) { visit_buffer(b); }
  void visit_field(const IterVar& iv) {
    visit_def(iv.var);
    visit(iv.min);
    visit(iv.extent);
  }
  template <class T>
  void visit_field(const std::vector<T>& items) {
    for (const T& item : items) visit_field(item);
  }
  template <class T>
  void visit_field(const T&) {}
};

class IRMutator {
 public:
  virtual ~IRMutator() = default;
  virtual Expr mutate(const Expr& e);
  virtual Stmt mutate(const Stmt& s);
  /// Rewrites a buffer wherever it appears; identity by default.
  virtual Buffer mutate_buffer(const Buffer& b) { return b; }

#define TESSEL_MUTATE_EXPR_DECL(name) virtual Expr mutate_##name(const name##Node* op, const Expr& self);
  TESSEL_EXPR_KINDS(TESSEL_MUTATE_EXPR_DECL)
#undef TESSEL_MUTATE_EXPR_DECL
#define TESSEL_MUTATE_STMT_DECL(name) virtual Stmt mutate_##name(const name##Node* op, const Stmt& self);
  TESSEL_STMT_KINDS(TESSEL_MUTATE_STMT_DECL)
#undef TESSEL_MUTATE_STMT_DECL

  /// Mutates every field of `op`; returns `self` when nothing changed, else a rebuilt node.
  template <class Node, class Handle>
  Handle mutate_children(const Node* op, const Handle& self) {
    auto fresh = std::apply([this](const auto&... f) { return std::make_tuple(map_field(f)...); },
                            op->fields());
    if (all_same(op->fields(), fresh, std::make_index_sequence<std::tuple_size_v<decltype(fresh)>>{}))
      return self;
    return std::apply([op](auto&&... f) { return rebuild(op, std::move(f)...); }, std::move(fresh));
  }

 private:
  Expr map_field(const Expr& e) { return e.defined() ? mutate(e) : e; }
  Var map_field(const Var& v) { return v; }
  Stmt map_field(const Stmt& s) { return s.defined() ? mutate(s) : s; }
  Buffer map_field(const Buffer& b) { return mutate_buffer(b); }
  IterVar map_field(const IterVar& iv) { return {iv.var, mutate(iv.min), mutate(iv.extent), iv.kind}; }
  template <class T>
  std::vector<T> map_field(const std::vector<T>& items) {
    std::vector<T> out;
    out.reserve(items.size());
    for (const T& item : items) out.push_back(map_field(item));
    return out;
  }
  template <class T>
  T map_field(const T& v) {
    return v;
  }

  template <class T>
  static bool same(const Ref<T>& a, const Ref<T>& b) {
    return a.same_as(b);
  }
  static bool same(const Expr& a, const Expr& b) { return a.same_as(b); }
  static bool same(const Stmt& a, const Stmt& b) { return a.same_as(b); }
  static bool same(const IterVar& a, const IterVar& b) {
    return a.min.same_as(b.min) && a.extent.same_as(b.extent);
  }
  template <class T>
  static bool same(const std::vector<T>& a, const std::vector<T>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!same(a[i], b[i])) return false;
    return true;
  }
  template <class T>
  static bool same(const T&, const T&) {
    return true;  // plain values (kinds, lanes, names) are copied unchanged
  }
  template <class Old, class New, size_t... I>
  static bool all_same(const Old& old, const New& fresh, std::index_sequence<I...>) {
    return (same(std::get<I>(old), std::get<I>(fresh)) && ...);
  }

  // One builder per node kind, taking the fields in `fields()` order.
#define TESSEL_REBUILD_BINARY(name) \
  static Expr rebuild(const name##Node*, Expr a, Expr b) { return make_##name(std::move(a), std::move(b)); }
  TESSEL_BINARY_EXPR_KINDS(TESSEL_REBUILD_BINARY)
#undef TESSEL_REBUILD_BINARY
  static Expr rebuild(const NotNode*, Expr a) { return make_Not(std::move(a)); }
  static Expr rebuild(const SelectNode*, Expr c, Expr t, Expr f) {
    return make_Select(std::move(c), std::move(t), std::move(f));
  }
  static Expr rebuild(const CastNode* op, Expr v) {
    DataType t = op->dtype.with_lanes(v.dtype().lanes);
    return make_Cast(t, std::move(v));
  }
  static Expr rebuild(const CallNode*, Intrinsic o, std::vector<Expr> args) {
    return make_Call(o, std::move(args));
  }
  static Expr rebuild(const LoadNode*, Buffer b, std::vector<Expr> idx) {
    return make_Load(std::move(b), std::move(idx));
  }
  static Expr rebuild(const RampNode*, Expr base, Expr stride, int lanes) {
    return make_Ramp(std::move(base), std::move(stride), lanes);
  }
  static Expr rebuild(const BroadcastNode*, Expr v, int lanes) { return make_Broadcast(std::move(v), lanes); }
  static Expr rebuild(const LetNode*, Var v, Expr value, Expr body) {
    return make_Let(std::move(v), std::move(value), std::move(body));
  }
  static Expr rebuild(const ReduceNode*, ReduceOp o, Expr src, std::vector<IterVar> axes, Expr c) {
    return make_Reduce(o, std::move(src), std::move(axes), std::move(c));
  }
  static Stmt rebuild(const ForNode*, Var v, Expr min, Expr ext, ForKind k, Stmt body, std::string tag) {
    return make_For(std::move(v), std::move(min), std::move(ext), k, std::move(body), std::move(tag));
  }
  static Stmt rebuild(const StoreNode*, Buffer b, Expr v, std::vector<Expr> idx) {
    return make_Store(std::move(b), std::move(v), std::move(idx));
  }
  static Stmt rebuild(const AllocateNode*, Buffer b, Stmt body) {
    return make_Allocate(std::move(b), std::move(body));
  }
  static Stmt rebuild(const IfThenElseNode*, Expr c, Stmt t, Stmt e) {
    return make_IfThenElse(std::move(c), std::move(t), std::move(e));
  }
  static Stmt rebuild(const LetStmtNode*, Var v, Expr value, Stmt body) {
    return make_LetStmt(std::move(v), std::move(value), std::move(body));
  }
  static Stmt rebuild(const SeqNode*, std::vector<Stmt> seq) { return make_Seq(std::move(seq)); }
  static Stmt rebuild(const EvaluateNode*, Expr v) { return make_Evaluate(std::move(v)); }
  static Stmt rebuild(const PrefetchNode*, Buffer b, Expr offset) {
    return make_Prefetch(std::move(b), std::move(offset));
  }
};

/// Replaces variables by expressions (by identity) in an expression or statement.
Expr substitute(const Expr& e, const std::vector<std::pair<Var, Expr>>& map);
Stmt substitute(const Stmt& s, const std::vector<std::pair<Var, Expr>>& map);

/// Whether `e` mentions any of `vars`.
bool uses_var(const Expr& e, const Var& var);
bool uses_var(const Stmt& s, const Var& var);

}  // namespace tessel::ir
