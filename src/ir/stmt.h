// Loop IR statements (tessel::ir): loop nests, stores, allocations, conditionals.
//
// See expr.h for the semantics of expressions. Statements:
//  - For runs `body` for var = min .. min+extent-1; its kind says how (serial, parallel
//    across threads, vectorized into one vector op, unrolled, bound to a GPU axis).
//  - Store writes `value` (scalar or vector) at `indices` of `buffer`.
//  - Allocate makes `buffer` (its scope says where) live within `body`.
//  - Seq runs its statements in order.
//  - Prefetch is a hint, with no effect on results: the cache line holding element `offset`
//    of `buffer` (counted in row-major order over the whole buffer, whatever its rank) will
//    be read soon; codegen asks the CPU to bring it into the L2 cache. The offset must lie
//    inside the buffer.
// A PrimFunc is the unit of code generation: named buffer parameters and a body.
#pragma once

#include <string>
#include <vector>

#include "ir/expr.h"

namespace tessel::ir {

#define TESSEL_STMT_KINDS(X) X(For) X(Store) X(Allocate) X(IfThenElse) X(LetStmt) X(Seq) X(Evaluate) X(Prefetch)

enum class StmtKind : uint8_t {
#define TESSEL_KIND_ENUM(name) name,
  TESSEL_STMT_KINDS(TESSEL_KIND_ENUM)
#undef TESSEL_KIND_ENUM
};
const char* kind_name(StmtKind kind);

class StmtNode : public Object {
 public:
  explicit StmtNode(StmtKind kind) : kind(kind) {}
  const StmtKind kind;
};

class Stmt : public Ref<StmtNode> {
 public:
  Stmt() = default;
  Stmt(std::nullptr_t) {}
  explicit Stmt(const StmtNode* node) : Ref<StmtNode>(node) {}
  template <class T>
  Stmt(const Ref<T>& node) : Ref<StmtNode>(node) {}
  StmtKind kind() const { return get()->kind; }
  template <class T>
  const T* as() const {
    return defined() && get()->kind == T::kKind ? static_cast<const T*>(get()) : nullptr;
  }
};

enum class ForKind : uint8_t { Serial, Parallel, Vectorized, Unrolled, ThreadBinding };
const char* for_kind_name(ForKind kind);

struct ForNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::For;
  ForNode(Var v, Expr min, Expr extent, ForKind k, Stmt body, std::string thread_tag)
      : StmtNode(kKind), var(std::move(v)), min(std::move(min)), extent(std::move(extent)),
        for_kind(k), body(std::move(body)), thread_tag(std::move(thread_tag)) {}
  const Var var;
  const Expr min, extent;
  const ForKind for_kind;
  const Stmt body;
  /// For ThreadBinding: the GPU axis ("blockIdx.x", "threadIdx.y", ...).
  const std::string thread_tag;
  auto fields() const { return std::tie(var, min, extent, for_kind, body, thread_tag); }
};

struct StoreNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Store;
  StoreNode(Buffer b, Expr v, std::vector<Expr> idx)
      : StmtNode(kKind), buffer(std::move(b)), value(std::move(v)), indices(std::move(idx)) {}
  const Buffer buffer;
  const Expr value;
  const std::vector<Expr> indices;
  auto fields() const { return std::tie(buffer, value, indices); }
};

struct AllocateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Allocate;
  AllocateNode(Buffer b, Stmt body) : StmtNode(kKind), buffer(std::move(b)), body(std::move(body)) {}
  const Buffer buffer;
  const Stmt body;
  auto fields() const { return std::tie(buffer, body); }
};

struct IfThenElseNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::IfThenElse;
  IfThenElseNode(Expr c, Stmt t, Stmt e)
      : StmtNode(kKind), condition(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
  const Expr condition;
  const Stmt then_case;
  const Stmt else_case;  ///< May be undefined.
  auto fields() const { return std::tie(condition, then_case, else_case); }
};

struct LetStmtNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::LetStmt;
  LetStmtNode(Var v, Expr value, Stmt body)
      : StmtNode(kKind), var(std::move(v)), value(std::move(value)), body(std::move(body)) {}
  const Var var;
  const Expr value;
  const Stmt body;
  auto fields() const { return std::tie(var, value, body); }
};

struct SeqNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Seq;
  explicit SeqNode(std::vector<Stmt> s) : StmtNode(kKind), seq(std::move(s)) {}
  const std::vector<Stmt> seq;
  auto fields() const { return std::tie(seq); }
};

struct EvaluateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Evaluate;
  explicit EvaluateNode(Expr v) : StmtNode(kKind), value(std::move(v)) {}
  const Expr value;
  auto fields() const { return std::tie(value); }
};

struct PrefetchNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Prefetch;
  PrefetchNode(Buffer b, Expr offset) : StmtNode(kKind), buffer(std::move(b)), offset(std::move(offset)) {}
  const Buffer buffer;
  /// Element offset into the buffer's row-major storage (a scalar integer).
  const Expr offset;
  auto fields() const { return std::tie(buffer, offset); }
};

Stmt make_For(Var var, Expr min, Expr extent, ForKind kind, Stmt body, std::string thread_tag = "");
Stmt make_Store(Buffer buffer, Expr value, std::vector<Expr> indices);
Stmt make_Allocate(Buffer buffer, Stmt body);
Stmt make_IfThenElse(Expr condition, Stmt then_case, Stmt else_case = nullptr);
Stmt make_LetStmt(Var var, Expr value, Stmt body);
/// A sequence; nested Seqs are flattened, undefined entries dropped; one entry is returned as is.
Stmt make_Seq(std::vector<Stmt> seq);
Stmt make_Evaluate(Expr value);
Stmt make_Prefetch(Buffer buffer, Expr offset);

/// The unit of code generation: `void name(params...)` over buffers.
struct PrimFunc {
  std::string name;
  std::vector<Buffer> params;
  Stmt body;
};

}  // namespace tessel::ir
