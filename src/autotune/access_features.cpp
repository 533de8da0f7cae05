// Memory-access features of a statement: which loops each index uses, its innermost stride
// through the buffer's shape, and the loop that carries its reuse.
#include "autotune/access_features.h"

#include <cmath>
#include <optional>

#include "arith/linear_form.h"
#include "ir/functor.h"

namespace tessel::autotune {
namespace {

struct Access {
  const ir::BufferNode* buffer;
  const std::vector<ir::Expr>* indices;
  double element_bytes;
  bool is_store;
};

class AccessCollector : public ir::IRVisitor {
 public:
  std::vector<Access> accesses;

 private:
  void visit_Load(const ir::LoadNode* op) override {
    accesses.push_back(
        {op->buffer.get(), &op->indices, static_cast<double>(op->dtype.element().bytes()), false});
    visit_children(op);
  }
};

bool uses(const std::vector<ir::Expr>& indices, const ir::Var& var) {
  for (const ir::Expr& index : indices)
    if (ir::uses_var(index, var)) return true;
  return false;
}

/// The coefficient of `var` in `index` when `var` appears only as a linear term; nullopt when
/// it sits in a non-linear one.
std::optional<int64_t> linear_coefficient(const ir::Expr& index, const ir::Var& var) {
  std::optional<arith::LinearForm> form = arith::to_linear(index);
  if (!form) return std::nullopt;
  int64_t coef = 0;
  for (const arith::LinearTerm& term : form->terms) {
    if (term.atom.same_as(var)) {
      coef = term.coef;
    } else if (ir::uses_var(term.atom, var)) {
      return std::nullopt;
    }
  }
  return coef;
}

/// Elements between the accesses of consecutive iterations of `var`, through the buffer's
/// row-major shape.
double innermost_stride(const Access& a, const ir::Var& var) {
  double stride = 0, row = 1;
  for (size_t d = a.indices->size(); d-- > 0;) {
    std::optional<int64_t> coef = linear_coefficient((*a.indices)[d], var);
    if (!coef) return kUnknownStride;
    stride += static_cast<double>(*coef) * row;
    const int64_t* extent =
        d < a.buffer->shape.size() ? ir::as_const_int(a.buffer->shape[d]) : nullptr;
    if (!extent && d > 0) return kUnknownStride;
    row *= extent ? static_cast<double>(*extent) : 1.0;
  }
  return std::fabs(stride);
}

}  // namespace

std::vector<AccessFeatures> access_features(const ir::StoreNode* store,
                                            const std::vector<NestLoop>& loops) {
  AccessCollector collector;
  collector.accesses.push_back({store->buffer.get(), &store->indices,
                                static_cast<double>(store->value.dtype().element().bytes()), true});
  collector.visit(store->value);
  const std::vector<Access>& accesses = collector.accesses;

  // unique[a][level]: distinct bytes access a touches over the loops from `level` inward.
  size_t depth = loops.size();
  std::vector<std::vector<double>> unique(accesses.size(), std::vector<double>(depth + 1));
  // used[a][level]: whether access a's index uses the loop at `level`.
  std::vector<std::vector<bool>> used(accesses.size(), std::vector<bool>(depth));
  for (size_t a = 0; a < accesses.size(); ++a) {
    unique[a][depth] = accesses[a].element_bytes;
    for (size_t level = depth; level-- > 0;) {
      used[a][level] = uses(*accesses[a].indices, loops[level].var);
      unique[a][level] = unique[a][level + 1] * (used[a][level] ? loops[level].extent : 1.0);
    }
  }

  std::vector<AccessFeatures> features;
  for (size_t a = 0; a < accesses.size(); ++a) {
    AccessFeatures f;
    f.is_store = accesses[a].is_store;
    f.unique_bytes = unique[a][0];
    f.inner_bytes = depth > 0 ? unique[a][depth - 1] : unique[a][0];
    f.stride = depth > 0 ? innermost_stride(accesses[a], loops.back().var) : 0;
    for (size_t level = depth; level-- > 0;) {
      if (used[a][level] || loops[level].extent <= 1) continue;
      f.reuse_count = loops[level].extent;
      for (size_t b = 0; b < accesses.size(); ++b) f.reuse_bytes += unique[b][level + 1];
      break;
    }
    features.push_back(f);
  }
  return features;
}

}  // namespace tessel::autotune
