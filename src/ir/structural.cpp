// Structural equality and hashing, both driven by each node's fields() list.
#include "ir/structural.h"

#include <cstring>
#include <functional>
#include <unordered_map>

namespace tessel::ir {
namespace {

template <class Node, class Base>
const Node& cast_node(const Base* b) {
  return *static_cast<const Node*>(b);
}

class Equal {
 public:
  explicit Equal(VarMatch match = VarMatch::Rename) : identity_(match == VarMatch::Identity) {}

  // Only with identity matching may a shared subtree be skipped: under renaming it still
  // has to record its variable correspondence.
  bool expr(const Expr& a, const Expr& b) {
    if (identity_ && a.same_as(b)) return true;
    if (!a.defined() || !b.defined()) return a.defined() == b.defined();
    if (a.kind() != b.kind() || a.dtype() != b.dtype()) return false;
    switch (a.kind()) {
      case ExprKind::Var: return var(static_cast<const VarNode*>(a.get()), static_cast<const VarNode*>(b.get()));
#define TESSEL_EQ_CASE(name)                                     \
  case ExprKind::name:                                           \
    return fields(cast_node<name##Node>(a.get()).fields(), cast_node<name##Node>(b.get()).fields());
      TESSEL_BINARY_EXPR_KINDS(TESSEL_EQ_CASE)
      TESSEL_EQ_CASE(IntImm)
      TESSEL_EQ_CASE(FloatImm)
      TESSEL_EQ_CASE(Not)
      TESSEL_EQ_CASE(Select)
      TESSEL_EQ_CASE(Cast)
      TESSEL_EQ_CASE(Call)
      TESSEL_EQ_CASE(Load)
      TESSEL_EQ_CASE(Ramp)
      TESSEL_EQ_CASE(Broadcast)
      TESSEL_EQ_CASE(Let)
      TESSEL_EQ_CASE(Reduce)
#undef TESSEL_EQ_CASE
    }
    return false;
  }

  bool stmt(const Stmt& a, const Stmt& b) {
    if (identity_ && a.same_as(b)) return true;
    if (!a.defined() || !b.defined()) return a.defined() == b.defined();
    if (a.kind() != b.kind()) return false;
    switch (a.kind()) {
#define TESSEL_EQ_CASE(name) \
  case StmtKind::name:       \
    return fields(cast_node<name##Node>(a.get()).fields(), cast_node<name##Node>(b.get()).fields());
      TESSEL_STMT_KINDS(TESSEL_EQ_CASE)
#undef TESSEL_EQ_CASE
    }
    return false;
  }

  bool buffer(const Buffer& a, const Buffer& b) {
    if (!a.defined() || !b.defined()) return a.defined() == b.defined();
    if (a->dtype != b->dtype || a->scope != b->scope || !item(a->shape, b->shape)) return false;
    return var(a->data.get(), b->data.get());
  }

 private:
  bool var(const VarNode* a, const VarNode* b) {
    if (identity_) return a == b;
    if (a->dtype != b->dtype) return false;
    auto fa = forward_.find(a);
    auto fb = backward_.find(b);
    if (fa == forward_.end() && fb == backward_.end()) {
      forward_[a] = b;
      backward_[b] = a;
      return true;
    }
    return fa != forward_.end() && fa->second == b;
  }

  bool item(const Expr& a, const Expr& b) { return expr(a, b); }
  bool item(const Var& a, const Var& b) { return var(a.get(), b.get()); }
  bool item(const Stmt& a, const Stmt& b) { return stmt(a, b); }
  bool item(const Buffer& a, const Buffer& b) { return buffer(a, b); }
  bool item(const IterVar& a, const IterVar& b) { return fields(a.fields(), b.fields()); }
  bool item(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
  template <class T>
  bool item(const std::vector<T>& a, const std::vector<T>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!item(a[i], b[i])) return false;
    return true;
  }
  template <class T>
  bool item(const T& a, const T& b) {
    return a == b;
  }
  template <class Tuple>
  bool fields(const Tuple& a, const Tuple& b) {
    return std::apply(
        [&](const auto&... xa) {
          return std::apply([&](const auto&... xb) { return (item(xa, xb) && ...); }, b);
        },
        a);
  }

  bool identity_;
  std::unordered_map<const VarNode*, const VarNode*> forward_, backward_;
};

class Hasher {
 public:
  size_t value = 0x9e3779b97f4a7c15ull;

  void expr(const Expr& e) {
    if (!e.defined()) return mix(1);
    mix(static_cast<size_t>(e.kind()) + 100);
    mix(std::hash<std::string>()(e.dtype().to_string()));
    switch (e.kind()) {
      case ExprKind::Var: return var(static_cast<const VarNode*>(e.get()));
#define TESSEL_HASH_CASE(name) \
  case ExprKind::name: return fields(cast_node<name##Node>(e.get()).fields());
      TESSEL_BINARY_EXPR_KINDS(TESSEL_HASH_CASE)
      TESSEL_HASH_CASE(IntImm)
      TESSEL_HASH_CASE(FloatImm)
      TESSEL_HASH_CASE(Not)
      TESSEL_HASH_CASE(Select)
      TESSEL_HASH_CASE(Cast)
      TESSEL_HASH_CASE(Call)
      TESSEL_HASH_CASE(Load)
      TESSEL_HASH_CASE(Ramp)
      TESSEL_HASH_CASE(Broadcast)
      TESSEL_HASH_CASE(Let)
      TESSEL_HASH_CASE(Reduce)
#undef TESSEL_HASH_CASE
    }
  }

  void stmt(const Stmt& s) {
    if (!s.defined()) return mix(2);
    mix(static_cast<size_t>(s.kind()) + 200);
    switch (s.kind()) {
#define TESSEL_HASH_CASE(name) \
  case StmtKind::name: return fields(cast_node<name##Node>(s.get()).fields());
      TESSEL_STMT_KINDS(TESSEL_HASH_CASE)
#undef TESSEL_HASH_CASE
    }
  }

  void buffer(const Buffer& b) {
    if (!b.defined()) return mix(3);
    mix(std::hash<std::string>()(b->dtype.to_string()));
    mix(static_cast<size_t>(b->scope));
    item(b->shape);
    var(b->data.get());
  }

 private:
  void mix(size_t h) { value ^= h + 0x9e3779b97f4a7c15ull + (value << 6) + (value >> 2); }
  void var(const VarNode* v) {
    auto [it, inserted] = order_.emplace(v, order_.size());
    mix(it->second + 7);
  }
  void item(const Expr& e) { expr(e); }
  void item(const Var& v) { var(v.get()); }
  void item(const Stmt& s) { stmt(s); }
  void item(const Buffer& b) { buffer(b); }
  void item(const IterVar& iv) { fields(iv.fields()); }
  void item(const std::string& s) { mix(std::hash<std::string>()(s)); }
  void item(double d) { mix(std::hash<double>()(d)); }
  template <class T>
  void item(const std::vector<T>& items) {
    mix(items.size());
    for (const T& x : items) item(x);
  }
  template <class T>
  void item(const T& v) {
    mix(static_cast<size_t>(v));
  }
  template <class Tuple>
  void fields(const Tuple& t) {
    std::apply([&](const auto&... x) { (item(x), ...); }, t);
  }

  std::unordered_map<const VarNode*, size_t> order_;
};

}  // namespace

bool structural_equal(const Expr& a, const Expr& b, VarMatch match) {
  return Equal(match).expr(a, b);
}
bool structural_equal(const Stmt& a, const Stmt& b, VarMatch match) {
  return Equal(match).stmt(a, b);
}
bool structural_equal(const PrimFunc& a, const PrimFunc& b) {
  if (a.params.size() != b.params.size()) return false;
  Equal eq;
  for (size_t i = 0; i < a.params.size(); ++i)
    if (!eq.buffer(a.params[i], b.params[i])) return false;
  return eq.stmt(a.body, b.body);
}

size_t structural_hash(const Expr& e) {
  Hasher h;
  h.expr(e);
  return h.value;
}
size_t structural_hash(const Stmt& s) {
  Hasher h;
  h.stmt(s);
  return h.value;
}
size_t structural_hash(const PrimFunc& f) {
  Hasher h;
  for (const Buffer& b : f.params) h.buffer(b);
  h.stmt(f.body);
  return h.value;
}

}  // namespace tessel::ir
