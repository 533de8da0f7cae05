// verify_func: a scoped walk over the IR checking definitions, buffers and types.
#include "tir/verify.h"

#include <algorithm>
#include <unordered_map>

#include "ir/functor.h"
#include "ir/printer.h"
#include "support/error.h"

namespace tessel::tir {
namespace {

using ir::Buffer;
using ir::Expr;
using ir::Stmt;
using ir::Var;

/// At most this many characters of a statement go into an error message.
constexpr size_t kMaxContext = 400;

class Verifier : public ir::IRVisitor {
 public:
  explicit Verifier(const ir::PrimFunc& f) : func_(f) {}

  void run() {
    for (const Buffer& b : func_.params) {
      define(b->data);
      declare(b);
    }
    // Variables in parameter shapes are the function's symbolic dimensions.
    for (const Buffer& b : func_.params)
      for (const Expr& e : b->shape) define_free_vars(e);
    visit(func_.body);
  }

  using IRVisitor::visit;
  void visit(const Stmt& s) override {
    const Stmt* outer = current_;
    current_ = &s;
    IRVisitor::visit(s);
    current_ = outer;
  }

  void visit_Var(const ir::VarNode* op) override {
    if (!defined_.count(op)) fail("variable '", op->name, "' is used before its definition");
  }

  void visit_Let(const ir::LetNode* op) override {
    visit(op->value);
    scoped(op->var, [&] { visit(op->body); });
  }

  void visit_LetStmt(const ir::LetStmtNode* op) override {
    visit(op->value);
    scoped(op->var, [&] { visit(op->body); });
  }

  void visit_For(const ir::ForNode* op) override {
    visit(op->min);
    visit(op->extent);
    scoped(op->var, [&] { visit(op->body); });
  }

  void visit_Allocate(const ir::AllocateNode* op) override {
    for (const Expr& e : op->buffer->shape) visit(e);
    const Buffer* outer = find_decl(op->buffer);
    Buffer saved = outer ? *outer : Buffer();  // a copy: declare() overwrites the entry
    declare(op->buffer);
    visit(op->body);
    if (saved.defined())
      declare(saved);
    else
      decls_.erase(op->buffer->data.get());
  }

  void visit_Load(const ir::LoadNode* op) override {
    check_access(op->buffer, op->indices.size(), "load from");
    if (op->dtype.element() != op->buffer->dtype.element())
      fail("load from '", op->buffer->name, "' has type ", op->dtype.to_string());
    IRVisitor::visit_Load(op);
  }

  void visit_Store(const ir::StoreNode* op) override {
    check_access(op->buffer, op->indices.size(), "store to");
    int lanes = 1;
    for (const Expr& i : op->indices) lanes = std::max<int>(lanes, i.dtype().lanes);
    ir::DataType expected = op->buffer->dtype.with_lanes(lanes);
    if (op->value.dtype() != expected)
      fail("store to '", op->buffer->name, "' of a ", op->value.dtype().to_string(),
           " value where ", expected.to_string(), " is expected");
    IRVisitor::visit_Store(op);
  }

  void visit_Reduce(const ir::ReduceNode*) override { fail("a Reduce remains in loop IR"); }

 private:
  template <class... Parts>
  [[noreturn]] void fail(const Parts&... parts) {
    std::string context = current_ ? ir::to_string(*current_) : std::string();
    if (context.size() > kMaxContext) context = context.substr(0, kMaxContext) + "...\n";
    TESSEL_INTERNAL_ERROR("verify '", func_.name, "': ", parts..., " in:\n", context);
  }

  template <class Body>
  void scoped(const Var& var, Body&& body) {
    define(var);
    body();
    if (--defined_[var.get()] == 0) defined_.erase(var.get());
  }

  void define(const Var& var) { ++defined_[var.get()]; }

  void define_free_vars(const Expr& e) {
    struct Collector : ir::IRVisitor {
      explicit Collector(Verifier& v) : self(v) {}
      void visit_Var(const ir::VarNode* op) override { self.define(Var(op)); }
      Verifier& self;
    } collector(*this);
    collector.visit(e);
  }

  void declare(const Buffer& b) { decls_[b->data.get()] = b; }

  const Buffer* find_decl(const Buffer& b) const {
    auto it = decls_.find(b->data.get());
    return it == decls_.end() ? nullptr : &it->second;
  }

  void check_access(const Buffer& b, size_t num_indices, const char* access) {
    const Buffer* decl = find_decl(b);
    if (!decl)
      fail(access, " buffer '", b->name, "', which is neither a parameter nor allocated here");
    if (static_cast<int>(num_indices) != decl->ndim())
      fail(access, " buffer '", b->name, "' with ", num_indices, " indices; it is declared with ",
           decl->ndim(), " dimensions");
    if ((*decl)->dtype != b->dtype)
      fail(access, " buffer '", b->name, "' as ", b->dtype.to_string(), "; it is declared as ",
           (*decl)->dtype.to_string());
  }

  const ir::PrimFunc& func_;
  const Stmt* current_ = nullptr;
  std::unordered_map<const ir::VarNode*, int> defined_;
  // The declaring buffer (parameter or allocation) of each live data variable.
  std::unordered_map<const ir::VarNode*, Buffer> decls_;
};

}  // namespace

void verify_func(const ir::PrimFunc& f) {
  Verifier(f).run();
}

}  // namespace tessel::tir
