// Deep equality derived from each node's fields() list.
#include "arith/expr_equal.h"

#include <cstring>
#include <tuple>

namespace tessel::arith {
namespace {

using namespace ir;

bool field_equal(const Expr& a, const Expr& b) {
  return deep_equal(a, b);
}
bool field_equal(const Var& a, const Var& b) {
  return a.same_as(b);
}
bool field_equal(const Buffer& a, const Buffer& b) {
  return a.same_as(b);
}
bool field_equal(const IterVar& a, const IterVar& b) {
  return a.var.same_as(b.var) && deep_equal(a.min, b.min) && deep_equal(a.extent, b.extent) &&
         a.kind == b.kind;
}
bool field_equal(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}
template <class T>
bool field_equal(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!field_equal(a[i], b[i])) return false;
  return true;
}
template <class T>
bool field_equal(const T& a, const T& b) {
  return a == b;
}

template <class Node>
bool node_equal(const Expr& a, const Expr& b) {
  auto fa = static_cast<const Node*>(a.get())->fields();
  auto fb = static_cast<const Node*>(b.get())->fields();
  return std::apply(
      [&](const auto&... x) {
        return std::apply([&](const auto&... y) { return (field_equal(x, y) && ...); }, fb);
      },
      fa);
}

}  // namespace

bool deep_equal(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  if (a.kind() != b.kind() || a.dtype() != b.dtype()) return false;
  switch (a.kind()) {
    case ExprKind::Var:
      return false;  // distinct variables (same_as failed above)
#define TESSEL_EQUAL_CASE(name) \
  case ExprKind::name:          \
    return node_equal<name##Node>(a, b);
      TESSEL_EQUAL_CASE(IntImm)
      TESSEL_EQUAL_CASE(FloatImm)
      TESSEL_BINARY_EXPR_KINDS(TESSEL_EQUAL_CASE)
      TESSEL_EQUAL_CASE(Not)
      TESSEL_EQUAL_CASE(Select)
      TESSEL_EQUAL_CASE(Cast)
      TESSEL_EQUAL_CASE(Call)
      TESSEL_EQUAL_CASE(Load)
      TESSEL_EQUAL_CASE(Ramp)
      TESSEL_EQUAL_CASE(Broadcast)
      TESSEL_EQUAL_CASE(Let)
      TESSEL_EQUAL_CASE(Reduce)
#undef TESSEL_EQUAL_CASE
  }
  return false;
}

}  // namespace tessel::arith
