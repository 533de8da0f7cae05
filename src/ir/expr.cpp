// Expression construction: type checks, derived result types and formula operators.
#include "ir/expr.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "support/error.h"

namespace tessel::ir {

const char* kind_name(ExprKind kind) {
  switch (kind) {
#define TESSEL_KIND_NAME(name) \
  case ExprKind::name: return #name;
    TESSEL_EXPR_KINDS(TESSEL_KIND_NAME)
#undef TESSEL_KIND_NAME
  }
  return "?";
}

const char* scope_name(MemoryScope scope) {
  switch (scope) {
    case MemoryScope::Global: return "global";
    case MemoryScope::Local: return "local";
    case MemoryScope::Shared: return "shared";
  }
  return "?";
}

const char* intrinsic_name(Intrinsic op) {
  switch (op) {
#define TESSEL_INTRINSIC_NAME(name, arity, cls) \
  case Intrinsic::name: return #name;
    TESSEL_INTRINSICS(TESSEL_INTRINSIC_NAME)
#undef TESSEL_INTRINSIC_NAME
  }
  return "?";
}

int intrinsic_arity(Intrinsic op) {
  switch (op) {
#define TESSEL_INTRINSIC_ARITY(name, arity, cls) \
  case Intrinsic::name: return arity;
    TESSEL_INTRINSICS(TESSEL_INTRINSIC_ARITY)
#undef TESSEL_INTRINSIC_ARITY
  }
  return 0;
}

IntrinsicClass intrinsic_class(Intrinsic op) {
  switch (op) {
#define TESSEL_INTRINSIC_CLASS(name, arity, cls) \
  case Intrinsic::name: return IntrinsicClass::cls;
    TESSEL_INTRINSICS(TESSEL_INTRINSIC_CLASS)
#undef TESSEL_INTRINSIC_CLASS
  }
  return IntrinsicClass::Float;
}

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Prod: return "prod";
    case ReduceOp::Min: return "min";
    case ReduceOp::Max: return "max";
  }
  return "?";
}

Expr::Expr(int value) : Expr(make_int(value)) {}
Expr::Expr(int64_t value) : Expr(make_int(value)) {}
Expr::Expr(float value) : Expr(make_float(value)) {}
Expr::Expr(double value) : Expr(make_float(value)) {}

Var::Var(std::string name, DataType dtype) : Expr(make_ref<VarNode>(dtype, std::move(name))) {}

Buffer Buffer::make(std::string name, DataType dtype, std::vector<Expr> shape, MemoryScope scope) {
  Var data(name, DataType::Handle());
  return Buffer(new BufferNode(std::move(name), data, dtype, std::move(shape), scope));
}

Buffer Buffer::with_shape(std::vector<Expr> shape) const {
  return Buffer(new BufferNode(get()->name, get()->data, get()->dtype, std::move(shape),
                               get()->scope));
}

int64_t Buffer::const_size() const {
  int64_t n = 1;
  for (const Expr& e : get()->shape) {
    const int64_t* v = as_const_int(e);
    if (!v) return -1;
    n *= *v;
  }
  return n;
}

// ---- immediates -----------------------------------------------------------------------

Expr make_int(int64_t value, DataType dtype) {
  if (!dtype.is_integer() && !dtype.is_bool())
    TESSEL_USER_ERROR("integer immediate ", value, " cannot have type ", dtype.to_string());
  Expr imm = make_ref<IntImmNode>(dtype.element(), value);
  return dtype.lanes == 1 ? imm : make_Broadcast(imm, dtype.lanes);
}

Expr make_float(double value, DataType dtype) {
  if (!dtype.is_float())
    TESSEL_USER_ERROR("float immediate ", value, " cannot have type ", dtype.to_string());
  Expr imm = make_ref<FloatImmNode>(dtype.element(), value);
  return dtype.lanes == 1 ? imm : make_Broadcast(imm, dtype.lanes);
}

Expr make_const(DataType dtype, double value) {
  if (dtype.is_float()) return make_float(value, dtype);
  return make_int(static_cast<int64_t>(value), dtype);
}

Expr make_bool(bool value) { return make_int(value ? 1 : 0, DataType::Bool()); }

const int64_t* as_const_int(const Expr& e) {
  if (const auto* b = e.as<BroadcastNode>()) return as_const_int(b->value);
  if (const auto* i = e.as<IntImmNode>()) return &i->value;
  return nullptr;
}

bool is_const_int(const Expr& e, int64_t value) {
  const int64_t* v = as_const_int(e);
  return v && *v == value;
}
bool is_zero(const Expr& e) { return is_const_int(e, 0); }
bool is_one(const Expr& e) { return is_const_int(e, 1); }

// ---- checked builders -----------------------------------------------------------------

namespace {

void check_defined(const char* what, const Expr& e) {
  if (!e.defined()) TESSEL_USER_ERROR(what, ": operand is undefined");
}

DataType check_same(const char* what, const Expr& a, const Expr& b) {
  check_defined(what, a);
  check_defined(what, b);
  if (a.dtype() != b.dtype())
    TESSEL_USER_ERROR(what, ": operand types differ: ", a.dtype().to_string(), " vs ",
                      b.dtype().to_string());
  return a.dtype();
}

}  // namespace

#define TESSEL_ARITH_MAKE(name)                                          \
  Expr make_##name(Expr a, Expr b) {                                     \
    DataType t = check_same(#name, a, b);                                \
    if (t.is_handle()) TESSEL_USER_ERROR(#name ": handles have no arithmetic"); \
    return make_ref<name##Node>(t, std::move(a), std::move(b));          \
  }
TESSEL_ARITH_MAKE(Add)
TESSEL_ARITH_MAKE(Sub)
TESSEL_ARITH_MAKE(Mul)
TESSEL_ARITH_MAKE(Div)
TESSEL_ARITH_MAKE(Mod)
TESSEL_ARITH_MAKE(Min)
TESSEL_ARITH_MAKE(Max)
#undef TESSEL_ARITH_MAKE

#define TESSEL_CMP_MAKE(name)                                                      \
  Expr make_##name(Expr a, Expr b) {                                               \
    DataType t = check_same(#name, a, b);                                          \
    return make_ref<name##Node>(DataType::Bool(t.lanes), std::move(a), std::move(b)); \
  }
TESSEL_CMP_MAKE(EQ)
TESSEL_CMP_MAKE(NE)
TESSEL_CMP_MAKE(LT)
TESSEL_CMP_MAKE(LE)
TESSEL_CMP_MAKE(GT)
TESSEL_CMP_MAKE(GE)
#undef TESSEL_CMP_MAKE

#define TESSEL_LOGIC_MAKE(name)                                                       \
  Expr make_##name(Expr a, Expr b) {                                                  \
    DataType t = check_same(#name, a, b);                                             \
    if (!t.is_bool()) TESSEL_USER_ERROR(#name ": operands must be bool, got ", t.to_string()); \
    return make_ref<name##Node>(t, std::move(a), std::move(b));                       \
  }
TESSEL_LOGIC_MAKE(And)
TESSEL_LOGIC_MAKE(Or)
#undef TESSEL_LOGIC_MAKE

Expr make_Not(Expr a) {
  check_defined("Not", a);
  if (!a.dtype().is_bool()) TESSEL_USER_ERROR("Not: operand must be bool, got ", a.dtype().to_string());
  DataType t = a.dtype();
  return make_ref<NotNode>(t, std::move(a));
}

Expr make_Select(Expr condition, Expr true_value, Expr false_value) {
  check_defined("Select", condition);
  DataType t = check_same("Select", true_value, false_value);
  DataType c = condition.dtype();
  if (!c.is_bool() || (c.lanes != 1 && c.lanes != t.lanes))
    TESSEL_USER_ERROR("Select: condition must be bool with 1 or ", t.lanes, " lanes, got ",
                      c.to_string());
  return make_ref<SelectNode>(t, std::move(condition), std::move(true_value), std::move(false_value));
}

Expr make_Cast(DataType dtype, Expr value) {
  check_defined("Cast", value);
  if (value.dtype().lanes != dtype.lanes)
    TESSEL_USER_ERROR("Cast: lanes differ: ", value.dtype().to_string(), " to ", dtype.to_string());
  return make_ref<CastNode>(dtype, std::move(value));
}

namespace {

/// The type of a call of `op` on arguments of type `t` (already checked).
DataType call_result_type(Intrinsic op, DataType t) {
  switch (intrinsic_class(op)) {
    case IntrinsicClass::FloatTest:
      return DataType::Bool(t.lanes);
    case IntrinsicClass::Reinterpret:
      return t.is_float() ? DataType::Int(t.bits, t.lanes) : DataType::Float(t.bits, t.lanes);
    case IntrinsicClass::Float:
    case IntrinsicClass::Numeric:
    case IntrinsicClass::Bitwise:
    case IntrinsicClass::Shift:
      break;
  }
  return t;
}

}  // namespace

Expr make_Call(Intrinsic op, std::vector<Expr> args) {
  const char* name = intrinsic_name(op);
  if (static_cast<int>(args.size()) != intrinsic_arity(op))
    TESSEL_USER_ERROR("intrinsic ", name, " takes ", intrinsic_arity(op), " arguments, got ",
                      args.size());
  for (const Expr& a : args) check_same(name, a, args[0]);
  DataType t = args[0].dtype();
  bool ok = false;
  const char* expected = "";
  switch (intrinsic_class(op)) {
    case IntrinsicClass::Float:
    case IntrinsicClass::FloatTest:
      ok = t.is_float();
      expected = "a float";
      break;
    case IntrinsicClass::Numeric:
      ok = t.is_float() || t.is_integer() || (op == Intrinsic::abs && t.is_bool());
      expected = "a float or integer";
      break;
    case IntrinsicClass::Bitwise:
      ok = t.is_integer() || t.is_bool();
      expected = "an integer or bool";
      break;
    case IntrinsicClass::Shift:
      ok = t.is_integer();
      expected = "an integer";
      break;
    case IntrinsicClass::Reinterpret:
      ok = (t.is_float() || t.is_integer()) && (t.bits == 16 || t.bits == 32 || t.bits == 64);
      expected = "a 16-, 32- or 64-bit float or integer";
      break;
  }
  if (!ok)
    TESSEL_USER_ERROR("intrinsic ", name, " needs ", expected, " argument, got ", t.to_string());
  return make_ref<CallNode>(call_result_type(op, t), op, std::move(args));
}

Expr make_Load(Buffer buffer, std::vector<Expr> indices) {
  if (!buffer.defined()) TESSEL_USER_ERROR("Load: undefined buffer");
  if (static_cast<int>(indices.size()) != buffer.ndim())
    TESSEL_USER_ERROR("Load from '", buffer->name, "': ", indices.size(), " indices for a ",
                      buffer.ndim(), "-d buffer");
  int lanes = 1;
  for (const Expr& i : indices) {
    check_defined("Load index", i);
    if (!i.dtype().is_integer())
      TESSEL_USER_ERROR("Load from '", buffer->name, "': index of type ", i.dtype().to_string());
    lanes = std::max<int>(lanes, i.dtype().lanes);
  }
  DataType t = buffer->dtype.with_lanes(lanes);
  return make_ref<LoadNode>(t, std::move(buffer), std::move(indices));
}

Expr make_Ramp(Expr base, Expr stride, int lanes) {
  DataType t = check_same("Ramp", base, stride);
  if (!t.is_integer() || !t.is_scalar() || lanes < 2)
    TESSEL_USER_ERROR("Ramp: needs scalar integer base and stride and lanes >= 2, got ",
                      t.to_string(), " and ", lanes, " lanes");
  return make_ref<RampNode>(t.with_lanes(lanes), std::move(base), std::move(stride), lanes);
}

Expr make_Broadcast(Expr value, int lanes) {
  check_defined("Broadcast", value);
  if (!value.dtype().is_scalar() || lanes < 2)
    TESSEL_USER_ERROR("Broadcast: needs a scalar value and lanes >= 2, got ",
                      value.dtype().to_string(), " and ", lanes, " lanes");
  DataType t = value.dtype().with_lanes(lanes);
  return make_ref<BroadcastNode>(t, std::move(value), lanes);
}

Expr make_Let(Var var, Expr value, Expr body) {
  DataType t = check_same("Let", var, value);
  (void)t;
  check_defined("Let body", body);
  DataType bt = body.dtype();
  return make_ref<LetNode>(bt, std::move(var), std::move(value), std::move(body));
}

Expr make_Reduce(ReduceOp op, Expr source, std::vector<IterVar> axes, Expr condition) {
  check_defined("Reduce", source);
  if (axes.empty()) TESSEL_USER_ERROR("Reduce: no reduction axes");
  for (const IterVar& iv : axes)
    if (iv.kind != IterKind::Reduce)
      TESSEL_USER_ERROR("Reduce: axis '", iv.var.name(), "' is not a reduction axis");
  if (!condition.defined()) condition = make_bool(true);
  DataType t = source.dtype();
  return make_ref<ReduceNode>(t, op, std::move(source), std::move(axes), std::move(condition));
}

Expr reduce_identity(ReduceOp op, DataType dtype) {
  switch (op) {
    case ReduceOp::Sum: return make_const(dtype, 0);
    case ReduceOp::Prod: return make_const(dtype, 1);
    case ReduceOp::Min:
    case ReduceOp::Max: {
      bool is_min = op == ReduceOp::Min;
      if (dtype.is_float())
        return make_float(is_min ? std::numeric_limits<double>::infinity()
                                 : -std::numeric_limits<double>::infinity(),
                          dtype);
      int bits = dtype.bits;
      int64_t hi = dtype.is_int() ? (bits == 64 ? std::numeric_limits<int64_t>::max()
                                                : (int64_t{1} << (bits - 1)) - 1)
                                  : (bits >= 63 ? std::numeric_limits<int64_t>::max()
                                                : (int64_t{1} << bits) - 1);
      int64_t lo = dtype.is_int() ? (bits == 64 ? std::numeric_limits<int64_t>::min()
                                                : -(int64_t{1} << (bits - 1)))
                                  : 0;
      return make_int(is_min ? hi : lo, dtype);
    }
  }
  TESSEL_INTERNAL_ERROR("unknown reduce op");
}

Expr reduce_combine(ReduceOp op, Expr a, Expr b) {
  switch (op) {
    case ReduceOp::Sum: return make_Add(std::move(a), std::move(b));
    case ReduceOp::Prod: return make_Mul(std::move(a), std::move(b));
    case ReduceOp::Min: return make_Min(std::move(a), std::move(b));
    case ReduceOp::Max: return make_Max(std::move(a), std::move(b));
  }
  TESSEL_INTERNAL_ERROR("unknown reduce op");
}

// ---- formula operators ----------------------------------------------------------------

namespace {

bool is_immediate(const Expr& e) {
  return e.as<IntImmNode>() || e.as<FloatImmNode>();
}

Expr convert_immediate(const Expr& imm, DataType to) {
  if (const auto* i = imm.as<IntImmNode>()) return make_const(to, static_cast<double>(i->value));
  const auto* f = imm.as<FloatImmNode>();
  if (to.is_float()) return make_float(f->value, to);
  TESSEL_USER_ERROR("float constant ", f->value, " used where ", to.to_string(), " is expected");
}

/// Brings a and b to one type: immediates adopt the other side's type, narrower integers
/// widen, scalars broadcast to the other side's lanes.
void match_types(const char* op, Expr& a, Expr& b) {
  check_defined(op, a);
  check_defined(op, b);
  if (a.dtype() == b.dtype()) return;
  if (is_immediate(a) && !is_immediate(b)) {
    a = convert_immediate(a, b.dtype());
  } else if (is_immediate(b) && !is_immediate(a)) {
    b = convert_immediate(b, a.dtype());
  } else if (a.dtype().element() != b.dtype().element()) {
    DataType ta = a.dtype(), tb = b.dtype();
    if (ta.code == tb.code && ta.is_integer()) {
      DataType wide = ta.bits > tb.bits ? ta.element() : tb.element();
      if (ta.bits < wide.bits) a = make_Cast(wide.with_lanes(ta.lanes), a);
      if (tb.bits < wide.bits) b = make_Cast(wide.with_lanes(tb.lanes), b);
    } else if (is_immediate(a) && is_immediate(b) && (ta.is_float() || tb.is_float())) {
      DataType f = ta.is_float() ? ta : tb;
      a = convert_immediate(a, f);
      b = convert_immediate(b, f);
    } else {
      TESSEL_USER_ERROR(op, ": operand types differ: ", ta.to_string(), " vs ", tb.to_string(),
                        " (add an explicit cast)");
    }
  }
  if (a.dtype().lanes != b.dtype().lanes) {
    if (a.dtype().lanes == 1) a = make_Broadcast(a, b.dtype().lanes);
    else if (b.dtype().lanes == 1) b = make_Broadcast(b, a.dtype().lanes);
    else TESSEL_USER_ERROR(op, ": lanes differ: ", a.dtype().to_string(), " vs ", b.dtype().to_string());
  }
}

template <Expr (*Make)(Expr, Expr)>
Expr matched(const char* op, Expr a, Expr b) {
  match_types(op, a, b);
  return Make(std::move(a), std::move(b));
}

}  // namespace

Expr operator+(Expr a, Expr b) { return matched<make_Add>("+", std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return matched<make_Sub>("-", std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return matched<make_Mul>("*", std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) { return matched<make_Div>("/", std::move(a), std::move(b)); }
Expr operator%(Expr a, Expr b) { return matched<make_Mod>("%", std::move(a), std::move(b)); }
Expr operator-(Expr a) {
  DataType t = a.dtype();
  return make_Sub(make_const(t, 0), std::move(a));
}
Expr operator==(Expr a, Expr b) { return matched<make_EQ>("==", std::move(a), std::move(b)); }
Expr operator!=(Expr a, Expr b) { return matched<make_NE>("!=", std::move(a), std::move(b)); }
Expr operator<(Expr a, Expr b) { return matched<make_LT>("<", std::move(a), std::move(b)); }
Expr operator<=(Expr a, Expr b) { return matched<make_LE>("<=", std::move(a), std::move(b)); }
Expr operator>(Expr a, Expr b) { return matched<make_GT>(">", std::move(a), std::move(b)); }
Expr operator>=(Expr a, Expr b) { return matched<make_GE>(">=", std::move(a), std::move(b)); }
Expr operator&&(Expr a, Expr b) { return matched<make_And>("&&", std::move(a), std::move(b)); }
Expr operator||(Expr a, Expr b) { return matched<make_Or>("||", std::move(a), std::move(b)); }
Expr operator!(Expr a) { return make_Not(std::move(a)); }
Expr min(Expr a, Expr b) { return matched<make_Min>("min", std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return matched<make_Max>("max", std::move(a), std::move(b)); }
Expr select(Expr condition, Expr true_value, Expr false_value) {
  match_types("select", true_value, false_value);
  return make_Select(std::move(condition), std::move(true_value), std::move(false_value));
}
Expr cast(DataType dtype, Expr value) {
  check_defined("cast", value);
  if (value.dtype() == dtype) return value;
  DataType to = dtype.with_lanes(value.dtype().lanes);
  return make_Cast(to, std::move(value));
}
#define TESSEL_UNARY_INTRINSIC(name) \
  Expr name(Expr a) { return make_Call(Intrinsic::name, {std::move(a)}); }
TESSEL_UNARY_INTRINSIC(exp)
TESSEL_UNARY_INTRINSIC(log)
TESSEL_UNARY_INTRINSIC(sqrt)
TESSEL_UNARY_INTRINSIC(rsqrt)
TESSEL_UNARY_INTRINSIC(tanh)
TESSEL_UNARY_INTRINSIC(sigmoid)
TESSEL_UNARY_INTRINSIC(erf)
TESSEL_UNARY_INTRINSIC(abs)
TESSEL_UNARY_INTRINSIC(floor)
TESSEL_UNARY_INTRINSIC(ceil)
TESSEL_UNARY_INTRINSIC(round)
TESSEL_UNARY_INTRINSIC(trunc)
TESSEL_UNARY_INTRINSIC(sin)
TESSEL_UNARY_INTRINSIC(cos)
TESSEL_UNARY_INTRINSIC(tan)
TESSEL_UNARY_INTRINSIC(asin)
TESSEL_UNARY_INTRINSIC(acos)
TESSEL_UNARY_INTRINSIC(atan)
TESSEL_UNARY_INTRINSIC(sinh)
TESSEL_UNARY_INTRINSIC(cosh)
TESSEL_UNARY_INTRINSIC(asinh)
TESSEL_UNARY_INTRINSIC(acosh)
TESSEL_UNARY_INTRINSIC(atanh)
TESSEL_UNARY_INTRINSIC(is_nan)
TESSEL_UNARY_INTRINSIC(is_inf)
TESSEL_UNARY_INTRINSIC(bitwise_not)
TESSEL_UNARY_INTRINSIC(reinterpret)
#undef TESSEL_UNARY_INTRINSIC
#define TESSEL_BINARY_INTRINSIC(name)                                \
  Expr name(Expr a, Expr b) {                                        \
    match_types(#name, a, b);                                        \
    return make_Call(Intrinsic::name, {std::move(a), std::move(b)}); \
  }
TESSEL_BINARY_INTRINSIC(pow)
TESSEL_BINARY_INTRINSIC(fmod)
TESSEL_BINARY_INTRINSIC(bitwise_and)
TESSEL_BINARY_INTRINSIC(bitwise_or)
TESSEL_BINARY_INTRINSIC(bitwise_xor)
TESSEL_BINARY_INTRINSIC(shift_left)
TESSEL_BINARY_INTRINSIC(shift_right)
#undef TESSEL_BINARY_INTRINSIC
Expr fma(Expr a, Expr b, Expr c) {
  match_types("fma", a, b);
  match_types("fma", a, c);
  match_types("fma", b, c);
  return make_Call(Intrinsic::fma, {std::move(a), std::move(b), std::move(c)});
}

}  // namespace tessel::ir
