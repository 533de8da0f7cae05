// Statement construction with checks.
#include "ir/stmt.h"

#include "support/error.h"

namespace tessel::ir {

const char* kind_name(StmtKind kind) {
  switch (kind) {
#define TESSEL_KIND_NAME(name) \
  case StmtKind::name: return #name;
    TESSEL_STMT_KINDS(TESSEL_KIND_NAME)
#undef TESSEL_KIND_NAME
  }
  return "?";
}

const char* for_kind_name(ForKind kind) {
  switch (kind) {
    case ForKind::Serial: return "for";
    case ForKind::Parallel: return "parallel";
    case ForKind::Vectorized: return "vectorized";
    case ForKind::Unrolled: return "unrolled";
    case ForKind::ThreadBinding: return "bind";
  }
  return "?";
}

Stmt make_For(Var var, Expr min, Expr extent, ForKind kind, Stmt body, std::string thread_tag) {
  if (!var.defined() || !min.defined() || !extent.defined() || !body.defined())
    TESSEL_USER_ERROR("For: undefined loop variable, bound or body");
  if (!var.dtype().is_integer() || min.dtype() != var.dtype() || extent.dtype() != var.dtype())
    TESSEL_USER_ERROR("For '", var.name(), "': loop variable, min and extent must share one integer type, got ",
                      var.dtype().to_string(), ", ", min.dtype().to_string(), ", ",
                      extent.dtype().to_string());
  if ((kind == ForKind::ThreadBinding) != !thread_tag.empty())
    TESSEL_USER_ERROR("For '", var.name(), "': a thread tag goes with a thread-bound loop only");
  return make_ref<ForNode>(std::move(var), std::move(min), std::move(extent), kind, std::move(body),
                           std::move(thread_tag));
}

Stmt make_Store(Buffer buffer, Expr value, std::vector<Expr> indices) {
  if (!buffer.defined() || !value.defined()) TESSEL_USER_ERROR("Store: undefined buffer or value");
  if (static_cast<int>(indices.size()) != buffer.ndim())
    TESSEL_USER_ERROR("Store to '", buffer->name, "': ", indices.size(), " indices for a ",
                      buffer.ndim(), "-d buffer");
  int lanes = 1;
  for (const Expr& i : indices) {
    if (!i.defined() || !i.dtype().is_integer())
      TESSEL_USER_ERROR("Store to '", buffer->name, "': index must be an integer");
    if (i.dtype().lanes > 1) lanes = i.dtype().lanes;
  }
  if (value.dtype() != buffer->dtype.with_lanes(lanes))
    TESSEL_USER_ERROR("Store to '", buffer->name, "': value of type ", value.dtype().to_string(),
                      ", buffer holds ", buffer->dtype.to_string(), " and index has ", lanes,
                      " lanes");
  return make_ref<StoreNode>(std::move(buffer), std::move(value), std::move(indices));
}

Stmt make_Allocate(Buffer buffer, Stmt body) {
  if (!buffer.defined() || !body.defined()) TESSEL_USER_ERROR("Allocate: undefined buffer or body");
  return make_ref<AllocateNode>(std::move(buffer), std::move(body));
}

Stmt make_IfThenElse(Expr condition, Stmt then_case, Stmt else_case) {
  if (!condition.defined() || !condition.dtype().is_bool() || !condition.dtype().is_scalar())
    TESSEL_USER_ERROR("IfThenElse: condition must be a scalar bool");
  if (!then_case.defined()) TESSEL_USER_ERROR("IfThenElse: undefined then branch");
  return make_ref<IfThenElseNode>(std::move(condition), std::move(then_case), std::move(else_case));
}

Stmt make_LetStmt(Var var, Expr value, Stmt body) {
  if (!var.defined() || !value.defined() || !body.defined())
    TESSEL_USER_ERROR("LetStmt: undefined variable, value or body");
  if (var.dtype() != value.dtype())
    TESSEL_USER_ERROR("LetStmt '", var.name(), "': variable is ", var.dtype().to_string(),
                      ", value is ", value.dtype().to_string());
  return make_ref<LetStmtNode>(std::move(var), std::move(value), std::move(body));
}

Stmt make_Seq(std::vector<Stmt> seq) {
  std::vector<Stmt> flat;
  for (Stmt& s : seq) {
    if (!s.defined()) continue;
    if (const auto* inner = s.as<SeqNode>()) {
      flat.insert(flat.end(), inner->seq.begin(), inner->seq.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1) return flat[0];
  return make_ref<SeqNode>(std::move(flat));
}

Stmt make_Evaluate(Expr value) {
  if (!value.defined()) TESSEL_USER_ERROR("Evaluate: undefined value");
  return make_ref<EvaluateNode>(std::move(value));
}

Stmt make_Prefetch(Buffer buffer, Expr offset) {
  if (!buffer.defined() || !offset.defined()) TESSEL_USER_ERROR("Prefetch: undefined buffer or offset");
  if (!offset.dtype().is_integer() || !offset.dtype().is_scalar())
    TESSEL_USER_ERROR("Prefetch of '", buffer->name, "': the offset must be a scalar integer, got ",
                      offset.dtype().to_string());
  return make_ref<PrefetchNode>(std::move(buffer), std::move(offset));
}

}  // namespace tessel::ir
