// IRVisitor / IRMutator dispatch and the small helpers built on them.
#include "ir/functor.h"

#include <unordered_map>

namespace tessel::ir {

void IRVisitor::visit(const Expr& e) {
  switch (e.kind()) {
#define TESSEL_DISPATCH(name) \
  case ExprKind::name: return visit_##name(static_cast<const name##Node*>(e.get()));
    TESSEL_EXPR_KINDS(TESSEL_DISPATCH)
#undef TESSEL_DISPATCH
  }
}

void IRVisitor::visit(const Stmt& s) {
  switch (s.kind()) {
#define TESSEL_DISPATCH(name) \
  case StmtKind::name: return visit_##name(static_cast<const name##Node*>(s.get()));
    TESSEL_STMT_KINDS(TESSEL_DISPATCH)
#undef TESSEL_DISPATCH
  }
}

void IRVisitor::visit_IntImm(const IntImmNode*) {}
void IRVisitor::visit_FloatImm(const FloatImmNode*) {}
void IRVisitor::visit_Var(const VarNode*) {}
#define TESSEL_VISIT_DEFAULT(name) \
  void IRVisitor::visit_##name(const name##Node* op) { visit_children(op); }
TESSEL_BINARY_EXPR_KINDS(TESSEL_VISIT_DEFAULT)
TESSEL_VISIT_DEFAULT(Not)
TESSEL_VISIT_DEFAULT(Select)
TESSEL_VISIT_DEFAULT(Cast)
TESSEL_VISIT_DEFAULT(Call)
TESSEL_VISIT_DEFAULT(Load)
TESSEL_VISIT_DEFAULT(Ramp)
TESSEL_VISIT_DEFAULT(Broadcast)
TESSEL_VISIT_DEFAULT(Let)
TESSEL_VISIT_DEFAULT(Reduce)
TESSEL_STMT_KINDS(TESSEL_VISIT_DEFAULT)
#undef TESSEL_VISIT_DEFAULT

Expr IRMutator::mutate(const Expr& e) {
  switch (e.kind()) {
#define TESSEL_DISPATCH(name) \
  case ExprKind::name: return mutate_##name(static_cast<const name##Node*>(e.get()), e);
    TESSEL_EXPR_KINDS(TESSEL_DISPATCH)
#undef TESSEL_DISPATCH
  }
  TESSEL_INTERNAL_ERROR("unknown expression kind");
}

Stmt IRMutator::mutate(const Stmt& s) {
  switch (s.kind()) {
#define TESSEL_DISPATCH(name) \
  case StmtKind::name: return mutate_##name(static_cast<const name##Node*>(s.get()), s);
    TESSEL_STMT_KINDS(TESSEL_DISPATCH)
#undef TESSEL_DISPATCH
  }
  TESSEL_INTERNAL_ERROR("unknown statement kind");
}

Expr IRMutator::mutate_IntImm(const IntImmNode*, const Expr& self) { return self; }
Expr IRMutator::mutate_FloatImm(const FloatImmNode*, const Expr& self) { return self; }
Expr IRMutator::mutate_Var(const VarNode*, const Expr& self) { return self; }
#define TESSEL_MUTATE_DEFAULT(name) \
  Expr IRMutator::mutate_##name(const name##Node* op, const Expr& self) { return mutate_children(op, self); }
TESSEL_BINARY_EXPR_KINDS(TESSEL_MUTATE_DEFAULT)
TESSEL_MUTATE_DEFAULT(Not)
TESSEL_MUTATE_DEFAULT(Select)
TESSEL_MUTATE_DEFAULT(Cast)
TESSEL_MUTATE_DEFAULT(Call)
TESSEL_MUTATE_DEFAULT(Load)
TESSEL_MUTATE_DEFAULT(Ramp)
TESSEL_MUTATE_DEFAULT(Broadcast)
TESSEL_MUTATE_DEFAULT(Let)
TESSEL_MUTATE_DEFAULT(Reduce)
#undef TESSEL_MUTATE_DEFAULT
#define TESSEL_MUTATE_DEFAULT(name) \
  Stmt IRMutator::mutate_##name(const name##Node* op, const Stmt& self) { return mutate_children(op, self); }
TESSEL_STMT_KINDS(TESSEL_MUTATE_DEFAULT)
#undef TESSEL_MUTATE_DEFAULT

namespace {

class Substituter : public IRMutator {
 public:
  explicit Substituter(const std::vector<std::pair<Var, Expr>>& map) {
    for (const auto& [var, value] : map) map_[var.get()] = value;
  }
  Expr mutate_Var(const VarNode* op, const Expr& self) override {
    auto it = map_.find(op);
    return it == map_.end() ? self : it->second;
  }

 private:
  std::unordered_map<const VarNode*, Expr> map_;
};

class VarUseFinder : public IRVisitor {
 public:
  explicit VarUseFinder(const VarNode* var) : var_(var) {}
  void visit_Var(const VarNode* op) override { found = found || op == var_; }
  bool found = false;

 private:
  const VarNode* var_;
};

}  // namespace

Expr substitute(const Expr& e, const std::vector<std::pair<Var, Expr>>& map) {
  if (map.empty()) return e;
  return Substituter(map).mutate(e);
}

Stmt substitute(const Stmt& s, const std::vector<std::pair<Var, Expr>>& map) {
  if (map.empty()) return s;
  return Substituter(map).mutate(s);
}

bool uses_var(const Expr& e, const Var& var) {
  VarUseFinder finder(var.get());
  finder.visit(e);
  return finder.found;
}

bool uses_var(const Stmt& s, const Var& var) {
  VarUseFinder finder(var.get());
  finder.visit(s);
  return finder.found;
}

}  // namespace tessel::ir
