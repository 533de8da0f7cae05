// storage_flatten: multi-dimensional buffers and accesses become one-dimensional.
#include "tir/storage_flatten.h"

#include <unordered_map>

#include "ir/functor.h"

namespace tessel::tir {
namespace {

using ir::Buffer;
using ir::Expr;
using ir::Stmt;

/// a * b, folded when both are constants.
Expr mul_extent(const Expr& a, const Expr& b) {
  const int64_t* ca = ir::as_const_int(a);
  const int64_t* cb = ir::as_const_int(b);
  if (ca && cb) return ir::make_int(*ca * *cb, a.dtype());
  return a * b;
}

class Flattener : public ir::IRMutator {
 public:
  Buffer mutate_buffer(const Buffer& b) override {
    if (b.ndim() == 1) return b;
    auto it = flat_.find(b.get());
    if (it != flat_.end()) return it->second;
    Expr size = b->shape.empty() ? ir::make_int(1) : b->shape[0];
    for (size_t d = 1; d < b->shape.size(); ++d) size = mul_extent(size, b->shape[d]);
    return flat_.emplace(b.get(), b.with_shape({size})).first->second;
  }

  Expr mutate_Load(const ir::LoadNode* op, const Expr& self) override {
    if (op->buffer.ndim() == 1) return mutate_children(op, self);
    return ir::make_Load(mutate_buffer(op->buffer), {flat_index(op->buffer, op->indices)});
  }

  Stmt mutate_Store(const ir::StoreNode* op, const Stmt& self) override {
    if (op->buffer.ndim() == 1) return mutate_children(op, self);
    return ir::make_Store(mutate_buffer(op->buffer), mutate(op->value),
                          {flat_index(op->buffer, op->indices)});
  }

 private:
  /// The row-major offset of `indices` in `b`: ((i0 * s1 + i1) * s2 + ...).
  Expr flat_index(const Buffer& b, const std::vector<Expr>& indices) {
    if (indices.empty()) return ir::make_int(0);
    Expr index = mutate(indices[0]);
    for (size_t d = 1; d < indices.size(); ++d) index = index * b->shape[d] + mutate(indices[d]);
    return index;
  }

  // Keyed by buffer object: every view of a buffer maps to one flattened view.
  std::unordered_map<const ir::BufferNode*, Buffer> flat_;
};

}  // namespace

ir::PrimFunc storage_flatten(const ir::PrimFunc& f) {
  Flattener flattener;
  ir::PrimFunc out{f.name, {}, flattener.mutate(f.body)};
  for (const Buffer& b : f.params) out.params.push_back(flattener.mutate_buffer(b));
  return out;
}

}  // namespace tessel::tir
