// The tensor-expression DSL: placeholders, computes, reduction axes and reducers.
//
//   Tensor A = placeholder({M, K}, DataType::Float(32), "A");
//   IterVar k = reduce_axis(K, "k");
//   Tensor C = compute({M, N}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C",
//                      {"i", "j"});
//
// A body is a callable over the index variables, taking them one by one or as a
// `const std::vector<Var>&`. Index variables are named by `axis_names` (default "i0",
// "i1", ...); these names are the stage's loop names in a schedule. A reduction must be the
// whole body (TVM's rule); compute_multi builds one stage with several outputs of one
// shape, all reductions over the same axes or none.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "te/operation.h"

namespace tessel::te {

/// An input tensor of the given shape and element type.
Tensor placeholder(std::vector<Expr> shape, DataType dtype, std::string name);

/// A reduction axis over [0, extent).
IterVar reduce_axis(Expr extent, std::string name);
/// A reduction axis over [min, min + extent).
IterVar reduce_axis(Expr min, Expr extent, std::string name);

/// Reductions of `source` over `axes`; iterations where `condition` is false are skipped.
Expr sum(Expr source, std::vector<IterVar> axes, Expr condition = nullptr);
Expr prod(Expr source, std::vector<IterVar> axes, Expr condition = nullptr);
Expr min_reduce(Expr source, std::vector<IterVar> axes, Expr condition = nullptr);
Expr max_reduce(Expr source, std::vector<IterVar> axes, Expr condition = nullptr);

/// A body over the index variables, as a vector.
using ComputeBody = std::function<Expr(const std::vector<Var>&)>;
using MultiComputeBody = std::function<std::vector<Expr>(const std::vector<Var>&)>;

/// The compute over `shape` whose body is `body(index vars)`.
Tensor compute_body(std::vector<Expr> shape, const ComputeBody& body, std::string name,
                    std::vector<std::string> axis_names = {});
/// One stage with several outputs (named "<name>.v0", "<name>.v1", ...).
std::vector<Tensor> compute_multi_body(std::vector<Expr> shape, const MultiComputeBody& body,
                                       std::string name, std::vector<std::string> axis_names = {});

namespace detail {

template <class F, class Seq>
struct InvocableWithVars;
template <class F, std::size_t... I>
struct InvocableWithVars<F, std::index_sequence<I...>>
    : std::is_invocable<F, decltype((void)I, Var())...> {};

/// The number of Var arguments F takes one by one (0..8), or -1.
template <class F, std::size_t N = 0>
constexpr int var_arity() {
  if constexpr (N > 8) {
    return -1;
  } else if constexpr (InvocableWithVars<F, std::make_index_sequence<N>>::value) {
    return static_cast<int>(N);
  } else {
    return var_arity<F, N + 1>();
  }
}

/// Throws a CompileError: `name`'s body takes `arity` index variables for `ndim` dims.
[[noreturn]] void arity_mismatch(const std::string& name, int arity, size_t ndim);

/// Adapts a body taking Vars one by one (or a vector of them) to the vector form.
template <class Result, class F>
std::function<Result(const std::vector<Var>&)> adapt_body(F body, const std::string& name,
                                                          size_t ndim) {
  if constexpr (std::is_invocable_v<F&, const std::vector<Var>&>) {
    return [body](const std::vector<Var>& v) mutable { return Result(body(v)); };
  } else {
    constexpr int arity = var_arity<F&>();
    static_assert(arity >= 0, "a compute body takes index Vars one by one or as a vector");
    if (static_cast<size_t>(arity) != ndim) arity_mismatch(name, arity, ndim);
    return [body](const std::vector<Var>& v) mutable {
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return Result(body(v[I]...));
      }
      (std::make_index_sequence<static_cast<std::size_t>(arity)>{});
    };
  }
}

}  // namespace detail

/// The compute over `shape` whose body is `body(i, j, ...)` or `body(std::vector<Var>)`.
template <class F>
Tensor compute(std::vector<Expr> shape, F&& body, std::string name,
               std::vector<std::string> axis_names = {}) {
  auto adapted = detail::adapt_body<Expr>(std::forward<F>(body), name, shape.size());
  return compute_body(std::move(shape), adapted, std::move(name), std::move(axis_names));
}

/// One stage with several outputs; `body` returns one expression per output.
template <class F>
std::vector<Tensor> compute_multi(std::vector<Expr> shape, F&& body, std::string name,
                                  std::vector<std::string> axis_names = {}) {
  auto adapted = detail::adapt_body<std::vector<Expr>>(std::forward<F>(body), name, shape.size());
  return compute_multi_body(std::move(shape), adapted, std::move(name), std::move(axis_names));
}

}  // namespace tessel::te
