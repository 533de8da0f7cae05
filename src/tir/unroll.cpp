// unroll_loops: Unrolled loops with a constant extent become a sequence of body copies.
#include "tir/unroll.h"

#include "ir/functor.h"

namespace tessel::tir {
namespace {

using ir::Expr;
using ir::Stmt;

/// Counts IR nodes (statements and expressions) to bound the size of unrolled code.
class NodeCounter : public ir::IRVisitor {
 public:
  void visit(const Expr& e) override {
    ++count;
    IRVisitor::visit(e);
  }
  void visit(const Stmt& s) override {
    ++count;
    IRVisitor::visit(s);
  }
  int64_t count = 0;
};

class Unroller : public ir::IRMutator {
 public:
  explicit Unroller(const UnrollOptions& options) : options_(options) {}

  Stmt mutate_For(const ir::ForNode* op, const Stmt& self) override {
    Stmt body = mutate(op->body);
    if (op->for_kind != ir::ForKind::Unrolled) {
      if (body.same_as(op->body)) return self;
      return ir::make_For(op->var, op->min, op->extent, op->for_kind, body, op->thread_tag);
    }
    const int64_t* extent = ir::as_const_int(op->extent);
    if (!extent || *extent > options_.max_nodes / size_of(body))
      return ir::make_For(op->var, op->min, op->extent, ir::ForKind::Serial, body);
    if (*extent <= 0) return ir::make_Evaluate(ir::make_int(0));
    std::vector<Stmt> copies;
    for (int64_t k = 0; k < *extent; ++k) {
      Expr value = offset(op->min, k);
      copies.push_back(ir::substitute(body, {{op->var, value}}));
    }
    return ir::make_Seq(std::move(copies));
  }

 private:
  /// min + k, folded when min is a constant.
  static Expr offset(const Expr& min, int64_t k) {
    if (const int64_t* c = ir::as_const_int(min)) return ir::make_int(*c + k, min.dtype());
    return k == 0 ? min : min + ir::make_int(k, min.dtype());
  }

  static int64_t size_of(const Stmt& s) {
    NodeCounter counter;
    counter.visit(s);
    return counter.count;
  }

  const UnrollOptions& options_;
};

}  // namespace

ir::PrimFunc unroll_loops(const ir::PrimFunc& f, const UnrollOptions& options) {
  return ir::PrimFunc{f.name, f.params, Unroller(options).mutate(f.body)};
}

}  // namespace tessel::tir
