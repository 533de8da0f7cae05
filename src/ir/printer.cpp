// Printer for loop IR. Expressions print infix with the fewest parentheses that keep the
// meaning; statements print one per line, nested blocks indented by two spaces.
#include "ir/printer.h"

#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "ir/functor.h"

namespace tessel::ir {
namespace {

int precedence(ExprKind k) {
  switch (k) {
    case ExprKind::Or: return 1;
    case ExprKind::And: return 2;
    case ExprKind::EQ:
    case ExprKind::NE: return 3;
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE: return 4;
    case ExprKind::Add:
    case ExprKind::Sub: return 5;
    case ExprKind::Mul:
    case ExprKind::Div:
    case ExprKind::Mod: return 6;
    case ExprKind::Not: return 7;
    default: return 8;  // atoms and calls
  }
}

const char* infix(ExprKind k) {
  switch (k) {
    case ExprKind::Add: return " + ";
    case ExprKind::Sub: return " - ";
    case ExprKind::Mul: return " * ";
    case ExprKind::Div: return " / ";
    case ExprKind::Mod: return " % ";
    case ExprKind::EQ: return " == ";
    case ExprKind::NE: return " != ";
    case ExprKind::LT: return " < ";
    case ExprKind::LE: return " <= ";
    case ExprKind::GT: return " > ";
    case ExprKind::GE: return " >= ";
    case ExprKind::And: return " && ";
    case ExprKind::Or: return " || ";
    default: return nullptr;
  }
}

class Printer : public IRVisitor {
 public:
  explicit Printer(std::ostream& os) : os_(os) {}

  void print_func(const PrimFunc& f) {
    os_ << "func " << f.name << "(";
    for (size_t i = 0; i < f.params.size(); ++i) {
      if (i) os_ << ", ";
      print_buffer_decl(f.params[i]);
    }
    os_ << ") {\n";
    indent_ += 2;
    visit(f.body);
    indent_ -= 2;
    os_ << "}\n";
  }

  void print_expr(const Expr& e, int parent_prec = 0) {
    int p = precedence(e.kind());
    bool paren = p <= parent_prec && infix(e.kind());
    if (paren) os_ << "(";
    visit(e);
    if (paren) os_ << ")";
  }

  void visit(const Expr& e) override { IRVisitor::visit(e); }
  void visit(const Stmt& s) override { IRVisitor::visit(s); }

  // ---- expressions ----
  void visit_IntImm(const IntImmNode* op) override {
    if (op->dtype.is_bool()) {
      os_ << (op->value ? "true" : "false");
    } else if (op->dtype == DataType::Index()) {
      os_ << op->value;
    } else {
      os_ << op->dtype.to_string() << "(" << op->value << ")";
    }
  }
  void visit_FloatImm(const FloatImmNode* op) override {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", op->value);
    std::string text = buf;
    if (std::isfinite(op->value) && text.find_first_of(".en") == std::string::npos) text += ".0";
    if (op->dtype == DataType::Float(32)) {
      os_ << text << "f";
    } else {
      os_ << op->dtype.to_string() << "(" << text << ")";
    }
  }
  void visit_Var(const VarNode* op) override { os_ << name_of(op); }
#define TESSEL_PRINT_BINARY(name) \
  void visit_##name(const name##Node* op) override { print_binary(op); }
  TESSEL_PRINT_BINARY(Add)
  TESSEL_PRINT_BINARY(Sub)
  TESSEL_PRINT_BINARY(Mul)
  TESSEL_PRINT_BINARY(Div)
  TESSEL_PRINT_BINARY(Mod)
  TESSEL_PRINT_BINARY(EQ)
  TESSEL_PRINT_BINARY(NE)
  TESSEL_PRINT_BINARY(LT)
  TESSEL_PRINT_BINARY(LE)
  TESSEL_PRINT_BINARY(GT)
  TESSEL_PRINT_BINARY(GE)
  TESSEL_PRINT_BINARY(And)
  TESSEL_PRINT_BINARY(Or)
#undef TESSEL_PRINT_BINARY
  void visit_Min(const MinNode* op) override { print_call("min", {op->a, op->b}); }
  void visit_Max(const MaxNode* op) override { print_call("max", {op->a, op->b}); }
  void visit_Not(const NotNode* op) override {
    os_ << "!";
    print_expr(op->a, precedence(ExprKind::Not));
  }
  void visit_Select(const SelectNode* op) override {
    print_call("select", {op->condition, op->true_value, op->false_value});
  }
  void visit_Cast(const CastNode* op) override { print_call(op->dtype.to_string(), {op->value}); }
  void visit_Call(const CallNode* op) override { print_call(intrinsic_name(op->op), op->args); }
  void visit_Load(const LoadNode* op) override {
    os_ << name_of(op->buffer.get()) << "[";
    print_list(op->indices);
    os_ << "]";
  }
  void visit_Ramp(const RampNode* op) override {
    os_ << "ramp(";
    print_expr(op->base);
    os_ << ", ";
    print_expr(op->stride);
    os_ << ", " << op->lanes << ")";
  }
  void visit_Broadcast(const BroadcastNode* op) override {
    os_ << "broadcast(";
    print_expr(op->value);
    os_ << ", " << op->lanes << ")";
  }
  void visit_Let(const LetNode* op) override {
    os_ << "(let " << name_of(op->var.get()) << " = ";
    print_expr(op->value);
    os_ << " in ";
    print_expr(op->body);
    os_ << ")";
  }
  void visit_Reduce(const ReduceNode* op) override {
    os_ << reduce_op_name(op->op) << "(";
    print_expr(op->source);
    os_ << ", axis=[";
    for (size_t i = 0; i < op->axes.size(); ++i) {
      if (i) os_ << ", ";
      print_range(op->axes[i].var, op->axes[i].min, op->axes[i].extent);
    }
    os_ << "]";
    if (!is_one(op->condition)) {
      os_ << ", where ";
      print_expr(op->condition);
    }
    os_ << ")";
  }

  // ---- statements ----
  void visit_For(const ForNode* op) override {
    line() << for_kind_name(op->for_kind);
    if (op->for_kind == ForKind::ThreadBinding) os_ << "[" << op->thread_tag << "]";
    os_ << " (";
    print_range(op->var, op->min, op->extent);
    os_ << ") {\n";
    block(op->body);
    line() << "}\n";
  }
  void visit_Store(const StoreNode* op) override {
    line() << name_of(op->buffer.get()) << "[";
    print_list(op->indices);
    os_ << "] = ";
    print_expr(op->value);
    os_ << "\n";
  }
  void visit_Allocate(const AllocateNode* op) override {
    line() << "allocate ";
    print_buffer_decl(op->buffer);
    os_ << " " << scope_name(op->buffer->scope) << " {\n";
    block(op->body);
    line() << "}\n";
  }
  void visit_IfThenElse(const IfThenElseNode* op) override {
    line() << "if (";
    print_expr(op->condition);
    os_ << ") {\n";
    block(op->then_case);
    if (op->else_case.defined()) {
      line() << "} else {\n";
      block(op->else_case);
    }
    line() << "}\n";
  }
  void visit_LetStmt(const LetStmtNode* op) override {
    line() << "let " << name_of(op->var.get()) << " = ";
    print_expr(op->value);
    os_ << "\n";
    visit(op->body);
  }
  void visit_Seq(const SeqNode* op) override {
    for (const Stmt& s : op->seq) visit(s);
  }
  void visit_Evaluate(const EvaluateNode* op) override {
    line();
    print_expr(op->value);
    os_ << "\n";
  }
  void visit_Prefetch(const PrefetchNode* op) override {
    line() << "prefetch " << name_of(op->buffer.get()) << " + ";
    print_expr(op->offset);
    os_ << "\n";
  }

 private:
  template <class Node>
  void print_binary(const Node* op) {
    int p = precedence(op->kind);
    print_expr(op->a, p - 1);  // left-associative: same precedence on the left needs none
    os_ << infix(op->kind);
    print_expr(op->b, p);
  }
  void print_call(const std::string& name, const std::vector<Expr>& args) {
    os_ << name << "(";
    print_list(args);
    os_ << ")";
  }
  void print_list(const std::vector<Expr>& items) {
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) os_ << ", ";
      print_expr(items[i]);
    }
  }
  void print_range(const Var& v, const Expr& min, const Expr& extent) {
    os_ << name_of(v.get()) << ", ";
    print_expr(min);
    os_ << ", ";
    print_expr(extent);
  }
  void print_buffer_decl(const Buffer& b) {
    os_ << name_of(b.get()) << ": " << b->dtype.to_string() << "[";
    print_list(b->shape);
    os_ << "]";
  }
  std::ostream& line() {
    for (int i = 0; i < indent_; ++i) os_ << ' ';
    return os_;
  }
  void block(const Stmt& s) {
    indent_ += 2;
    visit(s);
    indent_ -= 2;
  }
  template <class Key>
  const std::string& unique_name(const Key* key, const std::string& hint,
                                 std::unordered_map<const Key*, std::string>& names) {
    auto it = names.find(key);
    if (it != names.end()) return it->second;
    std::string name = hint.empty() ? "v" : hint;
    for (int n = 1; used_.count(name); ++n) name = hint + "_" + std::to_string(n);
    used_.insert(name);
    return names.emplace(key, name).first->second;
  }
  const std::string& name_of(const VarNode* v) { return unique_name(v, v->name, var_names_); }
  const std::string& name_of(const BufferNode* b) {
    // A buffer and its flattened view share the data variable: name by that.
    return unique_name(b->data.get(), b->name, var_names_);
  }

  std::ostream& os_;
  int indent_ = 0;
  std::unordered_set<std::string> used_;
  std::unordered_map<const VarNode*, std::string> var_names_;
};

}  // namespace

std::string to_string(const Expr& e) {
  std::ostringstream os;
  os << e;
  return os.str();
}
std::string to_string(const Stmt& s) {
  std::ostringstream os;
  os << s;
  return os.str();
}
std::string to_string(const PrimFunc& f) {
  std::ostringstream os;
  os << f;
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Expr& e) {
  if (!e.defined()) return os << "<undefined>";
  Printer(os).print_expr(e);
  return os;
}
std::ostream& operator<<(std::ostream& os, const Stmt& s) {
  if (!s.defined()) return os << "<undefined>\n";
  Printer(os).visit(s);
  return os;
}
std::ostream& operator<<(std::ostream& os, const PrimFunc& f) {
  Printer(os).print_func(f);
  return os;
}

}  // namespace tessel::ir
