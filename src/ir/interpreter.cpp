// The loop IR interpreter: expression evaluation lane by lane, statement execution on host
// memory, with every memory access bounds-checked.
#include "ir/interpreter.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <string>

#include "ir/printer.h"
#include "support/error.h"

namespace tessel::ir {
namespace {

using Lane = Value::Lane;

// ---- scalar semantics -------------------------------------------------------------------

/// Wraps an integer to `t`'s width: two's complement for Int, modulo 2^bits for UInt.
int64_t wrap_int(DataType t, int64_t v) {
  if (t.is_bool()) return v != 0;
  if (t.bits >= 64) return v;
  int shift = 64 - t.bits;
  if (t.is_int()) return static_cast<int64_t>(static_cast<uint64_t>(v) << shift) >> shift;
  return static_cast<int64_t>(static_cast<uint64_t>(v) & ((uint64_t{1} << t.bits) - 1));
}

float bf16_to_float(uint16_t bits) {
  uint32_t word = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &word, sizeof f);
  return f;
}

uint16_t float_to_bf16(float f) {
  uint32_t word;
  std::memcpy(&word, &f, sizeof word);
  if (std::isnan(f)) return static_cast<uint16_t>((word >> 16) | 0x40);
  word += 0x7fff + ((word >> 16) & 1);  // round to nearest even
  return static_cast<uint16_t>(word >> 16);
}

/// Rounds `v` to the precision of float type `t`.
double round_float(DataType t, double v) {
  if (t.code == TypeCode::BFloat) return bf16_to_float(float_to_bf16(static_cast<float>(v)));
  switch (t.bits) {
    case 16:
      return static_cast<double>(static_cast<_Float16>(v));
    case 32:
      return static_cast<double>(static_cast<float>(v));
    case 64:
      return v;
    default:
      TESSEL_USER_ERROR("interpreter: unsupported float type ", t.to_string());
  }
}

bool is_float_value(DataType t) {
  return t.is_float();
}

std::string describe(const Expr& e) {
  return to_string(e);
}

int64_t floor_div(int64_t a, int64_t b) {
  if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));  // INT64_MIN / -1 wraps
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t floor_mod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

int64_t int_binary(ExprKind k, DataType t, int64_t a, int64_t b, const Expr& e) {
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  bool is_unsigned = !t.is_int();
  switch (k) {
    case ExprKind::Add:
      return wrap_int(t, static_cast<int64_t>(ua + ub));
    case ExprKind::Sub:
      return wrap_int(t, static_cast<int64_t>(ua - ub));
    case ExprKind::Mul:
      return wrap_int(t, static_cast<int64_t>(ua * ub));
    case ExprKind::Div:
    case ExprKind::Mod: {
      if (b == 0) TESSEL_USER_ERROR("interpreter: division by zero in '", describe(e), "'");
      bool div = k == ExprKind::Div;
      if (is_unsigned) return wrap_int(t, static_cast<int64_t>(div ? ua / ub : ua % ub));
      return wrap_int(t, div ? floor_div(a, b) : floor_mod(a, b));
    }
    case ExprKind::Min:
      return (is_unsigned ? ua < ub : a < b) ? a : b;
    case ExprKind::Max:
      return (is_unsigned ? ua > ub : a > b) ? a : b;
    case ExprKind::And:
      return a && b;
    case ExprKind::Or:
      return a || b;
    default:
      break;
  }
  bool lt = is_unsigned ? ua < ub : a < b;
  switch (k) {
    case ExprKind::EQ:
      return a == b;
    case ExprKind::NE:
      return a != b;
    case ExprKind::LT:
      return lt;
    case ExprKind::LE:
      return lt || a == b;
    case ExprKind::GT:
      return !lt && a != b;
    case ExprKind::GE:
      return !lt;
    default:
      TESSEL_INTERNAL_ERROR("not an integer binary operator: ", kind_name(k));
  }
}

/// A float binary operator; comparisons return 0/1 in the int lane.
Lane float_binary(ExprKind k, DataType t, double a, double b) {
  auto real = [&](double v) { return Lane{.f = round_float(t, v)}; };
  auto truth = [](bool v) { return Lane{.i = v}; };
  switch (k) {
    case ExprKind::Add:
      return real(a + b);
    case ExprKind::Sub:
      return real(a - b);
    case ExprKind::Mul:
      return real(a * b);
    case ExprKind::Div:
      return real(a / b);
    case ExprKind::Mod:
      return real(a - std::floor(a / b) * b);
    case ExprKind::Min:  // NaN-propagating
      return real(std::isnan(a) || std::isnan(b) ? a + b : std::fmin(a, b));
    case ExprKind::Max:
      return real(std::isnan(a) || std::isnan(b) ? a + b : std::fmax(a, b));
    case ExprKind::EQ:
      return truth(a == b);
    case ExprKind::NE:
      return truth(a != b);
    case ExprKind::LT:
      return truth(a < b);
    case ExprKind::LE:
      return truth(a <= b);
    case ExprKind::GT:
      return truth(a > b);
    case ExprKind::GE:
      return truth(a >= b);
    default:
      TESSEL_INTERNAL_ERROR("not a float binary operator: ", kind_name(k));
  }
}

/// A float intrinsic, computed in float for types up to 32 bits, in double for float64.
double float_call(Intrinsic op, DataType t, double x, double y, double z) {
  auto apply = [op](auto a, auto b, auto c) -> decltype(a) {
    using F = decltype(a);
    switch (op) {
      case Intrinsic::exp: return std::exp(a);
      case Intrinsic::log: return std::log(a);
      case Intrinsic::sqrt: return std::sqrt(a);
      case Intrinsic::rsqrt: return F(1) / std::sqrt(a);
      case Intrinsic::tanh: return std::tanh(a);
      case Intrinsic::sigmoid: return F(1) / (F(1) + std::exp(-a));
      case Intrinsic::erf: return std::erf(a);
      case Intrinsic::pow: return std::pow(a, b);
      case Intrinsic::abs: return std::fabs(a);
      case Intrinsic::floor: return std::floor(a);
      case Intrinsic::ceil: return std::ceil(a);
      case Intrinsic::round: return std::nearbyint(a);
      case Intrinsic::trunc: return std::trunc(a);
      case Intrinsic::sin: return std::sin(a);
      case Intrinsic::cos: return std::cos(a);
      case Intrinsic::tan: return std::tan(a);
      case Intrinsic::asin: return std::asin(a);
      case Intrinsic::acos: return std::acos(a);
      case Intrinsic::atan: return std::atan(a);
      case Intrinsic::sinh: return std::sinh(a);
      case Intrinsic::cosh: return std::cosh(a);
      case Intrinsic::asinh: return std::asinh(a);
      case Intrinsic::acosh: return std::acosh(a);
      case Intrinsic::atanh: return std::atanh(a);
      case Intrinsic::fmod: return std::fmod(a, b);
      case Intrinsic::fma: return std::fma(a, b, c);
      default: break;
    }
    TESSEL_INTERNAL_ERROR("not a float intrinsic: ", intrinsic_name(op));
  };
  if (t.bits == 64) return apply(x, y, z);
  return round_float(t, apply(static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)));
}

/// An intrinsic on integer (or bool) lanes of type `t`; `e` is for error messages.
int64_t int_call(Intrinsic op, DataType t, int64_t a, int64_t b, const Expr& e) {
  uint64_t ua = static_cast<uint64_t>(a);
  switch (op) {
    case Intrinsic::abs:  // wraps like 0 - x
      return t.is_int() && a < 0 ? wrap_int(t, static_cast<int64_t>(0 - ua)) : a;
    case Intrinsic::fmod:  // truncated remainder
      if (b == 0) TESSEL_USER_ERROR("interpreter: fmod by zero in '", describe(e), "'");
      if (!t.is_int()) return static_cast<int64_t>(ua % static_cast<uint64_t>(b));
      return b == -1 ? 0 : a % b;
    case Intrinsic::bitwise_and: return a & b;
    case Intrinsic::bitwise_or: return a | b;
    case Intrinsic::bitwise_xor: return a ^ b;
    case Intrinsic::bitwise_not: return wrap_int(t, t.is_bool() ? !a : ~a);
    case Intrinsic::shift_left:
    case Intrinsic::shift_right: {
      // Shifting by `bits` or more (or by a negative amount, seen as unsigned) moves every
      // bit out.
      bool out = static_cast<uint64_t>(b) >= t.bits;
      if (op == Intrinsic::shift_left) return out ? 0 : wrap_int(t, static_cast<int64_t>(ua << b));
      if (t.is_int()) return a >> (out ? t.bits - 1 : b);
      return out ? 0 : static_cast<int64_t>(ua >> b);
    }
    default: break;
  }
  TESSEL_INTERNAL_ERROR("not an integer intrinsic: ", intrinsic_name(op));
}

/// The bits of float `v` of type `t` as a signed integer of its width.
int64_t float_bits(DataType t, double v) {
  uint64_t bits = 0;
  if (t.code == TypeCode::BFloat) {
    bits = float_to_bf16(static_cast<float>(v));
  } else if (t.bits == 16) {
    auto h = static_cast<_Float16>(v);
    std::memcpy(&bits, &h, sizeof h);
  } else if (t.bits == 32) {
    auto f = static_cast<float>(v);
    std::memcpy(&bits, &f, sizeof f);
  } else {
    std::memcpy(&bits, &v, sizeof v);
  }
  return wrap_int(DataType::Int(t.bits), static_cast<int64_t>(bits));
}

/// The float of type `t` whose bits are the low bits of `bits`.
double float_from_bits(DataType t, int64_t bits) {
  if (t.code == TypeCode::BFloat) return bf16_to_float(static_cast<uint16_t>(bits));
  if (t.bits == 16) {
    _Float16 h;
    std::memcpy(&h, &bits, sizeof h);
    return static_cast<double>(h);
  }
  if (t.bits == 32) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

Lane cast_lane(DataType to, DataType from, Lane v, const Expr& e) {
  if (to.is_float()) {
    if (from.is_float()) return Lane{.f = round_float(to, v.f)};
    if (from.is_uint() && from.bits == 64) {
      uint64_t u = static_cast<uint64_t>(v.i);
      return Lane{.f = to.bits == 64 ? static_cast<double>(u)
                                     : round_float(to, static_cast<float>(u))};
    }
    return Lane{.f = to.bits == 64 ? static_cast<double>(v.i)
                                   : round_float(to, static_cast<float>(v.i))};
  }
  if (!from.is_float()) return Lane{.i = wrap_int(to, v.i)};
  if (to.is_bool()) return Lane{.i = v.f != 0};
  double t = std::trunc(v.f);
  // The range of `to`, as doubles: [lo, hi) with hi a power of two (exact).
  double hi = std::ldexp(1.0, to.is_int() ? to.bits - 1 : to.bits);
  double lo = to.is_int() ? -hi : 0.0;
  if (!(t >= lo && t < hi))
    TESSEL_USER_ERROR("interpreter: cast of ", v.f, " to ", to.to_string(), " is out of range in '",
                      describe(e), "'");
  if (t >= std::ldexp(1.0, 63)) return Lane{.i = static_cast<int64_t>(static_cast<uint64_t>(t))};
  return Lane{.i = static_cast<int64_t>(t)};
}

// ---- memory -----------------------------------------------------------------------------

void* element_ptr(const Env::Memory& m, int64_t offset) {
  return static_cast<uint8_t*>(m.base) + offset * m.dtype.bytes();
}

// Integers are read and written through their low bytes (little-endian hosts), then
// wrapped to the type: sign extension for Int, zero extension for UInt and bool.
Lane read_element(const Env::Memory& m, int64_t offset) {
  DataType t = m.dtype;
  void* p = element_ptr(m, offset);
  if (!t.is_float()) {
    uint64_t raw = 0;
    std::memcpy(&raw, p, t.bytes());
    return Lane{.i = wrap_int(t, static_cast<int64_t>(raw))};
  }
  if (t.code == TypeCode::BFloat) return Lane{.f = bf16_to_float(*static_cast<uint16_t*>(p))};
  if (t.bits == 16) return Lane{.f = static_cast<double>(*static_cast<_Float16*>(p))};
  if (t.bits == 32) return Lane{.f = *static_cast<float*>(p)};
  return Lane{.f = *static_cast<double*>(p)};
}

void write_element(const Env::Memory& m, int64_t offset, Lane v) {
  DataType t = m.dtype;
  void* p = element_ptr(m, offset);
  if (!t.is_float()) {
    std::memcpy(p, &v.i, t.bytes());
  } else if (t.code == TypeCode::BFloat) {
    *static_cast<uint16_t*>(p) = float_to_bf16(static_cast<float>(v.f));
  } else if (t.bits == 16) {
    *static_cast<_Float16*>(p) = static_cast<_Float16>(v.f);
  } else if (t.bits == 32) {
    *static_cast<float*>(p) = static_cast<float>(v.f);
  } else {
    *static_cast<double*>(p) = v.f;
  }
}

/// Rejects element types the interpreter cannot hold in memory.
void check_memory_type(DataType t, const std::string& buffer) {
  bool ok = t.is_float()
                ? (t.code == TypeCode::BFloat ? t.bits == 16
                                              : t.bits == 16 || t.bits == 32 || t.bits == 64)
                : t.is_bool() || (t.is_integer() &&
                                  (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64));
  if (!ok)
    TESSEL_USER_ERROR("interpreter: buffer '", buffer, "' has unsupported element type ",
                      t.to_string());
}

// ---- expressions ------------------------------------------------------------------------

/// Evaluates expressions over an Env plus the variables bound by enclosing Let expressions.
class Evaluator {
 public:
  explicit Evaluator(const Env& env) : env_(env) {}

  Value eval(const Expr& e) {
    switch (e.kind()) {
      case ExprKind::IntImm:
        return Value::from_int(e.dtype(), e.as<IntImmNode>()->value);
      case ExprKind::FloatImm:
        return Value::from_float(e.dtype(), e.as<FloatImmNode>()->value);
      case ExprKind::Var:
        return lookup(e.as<VarNode>());
#define TESSEL_EVAL_BINARY(name) \
  case ExprKind::name:           \
    return binary(e, e.as<name##Node>()->a, e.as<name##Node>()->b);
        TESSEL_BINARY_EXPR_KINDS(TESSEL_EVAL_BINARY)
#undef TESSEL_EVAL_BINARY
      case ExprKind::Not: {
        Value v = eval(e.as<NotNode>()->a);
        for (Lane& l : v.lanes) l.i = !l.i;
        return v;
      }
      case ExprKind::Select:
        return select(e.as<SelectNode>());
      case ExprKind::Cast:
        return cast(e);
      case ExprKind::Call:
        return call(e);
      case ExprKind::Load:
        return load(e.as<LoadNode>(), e);
      case ExprKind::Ramp:
        return ramp(e.as<RampNode>());
      case ExprKind::Broadcast: {
        const auto* op = e.as<BroadcastNode>();
        Value v = eval(op->value);
        v.dtype = e.dtype();
        v.lanes.assign(op->lanes, v.lanes[0]);
        return v;
      }
      case ExprKind::Let: {
        const auto* op = e.as<LetNode>();
        Value value = eval(op->value);
        auto saved = let_values_.find(op->var.get());
        std::optional<Value> old;
        if (saved != let_values_.end()) old = saved->second;
        let_values_[op->var.get()] = std::move(value);
        Value result = eval(op->body);
        if (old)
          let_values_[op->var.get()] = std::move(*old);
        else
          let_values_.erase(op->var.get());
        return result;
      }
      case ExprKind::Reduce:
        TESSEL_INTERNAL_ERROR("interpreter: Reduce cannot be evaluated (lower it first): ",
                              describe(e));
    }
    TESSEL_INTERNAL_ERROR("unknown expression kind");
  }

  /// A scalar integer expression (loop bounds, shapes, conditions).
  int64_t eval_int(const Expr& e) {
    Value v = eval(e);
    TESSEL_ICHECK(v.lanes.size() == 1 && !v.dtype.is_float(),
                  "expected a scalar integer: ", describe(e));
    return v.lanes[0].i;
  }

  /// Evaluates the buffer's shape; every dimension must be non-negative.
  std::vector<int64_t> shape_of(const Buffer& b) {
    std::vector<int64_t> shape;
    for (const Expr& d : b->shape) {
      shape.push_back(eval_int(d));
      if (shape.back() < 0)
        TESSEL_USER_ERROR("interpreter: buffer '", b->name, "' has negative extent ", shape.back(),
                          " (", describe(d), ")");
    }
    return shape;
  }

  /// Row-major offsets, one per lane, of an access to `b` at `indices`, bounds-checked.
  std::vector<int64_t> offsets(const Buffer& b, const std::vector<Expr>& indices, int lanes,
                               const char* access) {
    std::vector<Value> idx;
    for (const Expr& i : indices) idx.push_back(eval(i));
    std::vector<int64_t> shape = shape_of(b);
    const Env::Memory& mem = env_.memory(b->data.get(), b->name);
    TESSEL_ICHECK(mem.dtype.element() == b->dtype.element(), "buffer '", b->name, "' is ",
                  b->dtype.to_string(), " but its memory holds ", mem.dtype.to_string());
    std::vector<int64_t> out(lanes);
    for (int lane = 0; lane < lanes; ++lane) {
      int64_t offset = 0;
      bool in_bounds = true;
      for (size_t d = 0; d < idx.size(); ++d) {
        int64_t i = idx[d].int_at(idx[d].lanes.size() == 1 ? 0 : lane);
        in_bounds = in_bounds && i >= 0 && i < shape[d];
        offset = offset * shape[d] + i;
      }
      if (!in_bounds || offset < 0 || offset >= mem.size)
        bounds_error(b, idx, shape, lane, lanes, mem.size, access);
      out[lane] = offset;
    }
    return out;
  }

 private:
  const Value& lookup(const VarNode* v) {
    auto it = let_values_.find(v);
    return it != let_values_.end() ? it->second : env_.lookup(v);
  }

  Value binary(const Expr& e, const Expr& a, const Expr& b) {
    Value va = eval(a), vb = eval(b);
    DataType t = a.dtype();
    Value out{e.dtype(), std::vector<Lane>(va.lanes.size())};
    for (size_t i = 0; i < va.lanes.size(); ++i) {
      out.lanes[i] = is_float_value(t)
                         ? float_binary(e.kind(), t, va.lanes[i].f, vb.lanes[i].f)
                         : Lane{.i = int_binary(e.kind(), t, va.lanes[i].i, vb.lanes[i].i, e)};
    }
    return out;
  }

  Value select(const SelectNode* op) {
    Value c = eval(op->condition);
    Value t = eval(op->true_value), f = eval(op->false_value);
    for (size_t i = 0; i < t.lanes.size(); ++i)
      if (!c.lanes[c.lanes.size() == 1 ? 0 : i].i) t.lanes[i] = f.lanes[i];
    return t;
  }

  Value cast(const Expr& e) {
    Value v = eval(e.as<CastNode>()->value);
    DataType from = v.dtype;
    for (Lane& l : v.lanes) l = cast_lane(e.dtype(), from, l, e);
    v.dtype = e.dtype();
    return v;
  }

  Value call(const Expr& e) {
    const auto* op = e.as<CallNode>();
    std::vector<Value> args;
    for (const Expr& a : op->args) args.push_back(eval(a));
    DataType t = op->args[0].dtype();
    Value out{e.dtype(), args[0].lanes};
    for (size_t i = 0; i < out.lanes.size(); ++i) {
      Lane x = args[0].lanes[i];
      Lane y = args.size() > 1 ? args[1].lanes[i] : x;
      Lane z = args.size() > 2 ? args[2].lanes[i] : x;
      if (op->op == Intrinsic::is_nan)
        out.lanes[i].i = std::isnan(x.f);
      else if (op->op == Intrinsic::is_inf)
        out.lanes[i].i = std::isinf(x.f);
      else if (op->op == Intrinsic::reinterpret && t.is_float())
        out.lanes[i].i = float_bits(t, x.f);
      else if (op->op == Intrinsic::reinterpret)
        out.lanes[i].f = float_from_bits(e.dtype(), x.i);
      else if (t.is_float())
        out.lanes[i].f = float_call(op->op, t, x.f, y.f, z.f);
      else
        out.lanes[i].i = int_call(op->op, t, x.i, y.i, e);
    }
    return out;
  }

  Value load(const LoadNode* op, const Expr& e) {
    int lanes = e.dtype().lanes;
    std::vector<int64_t> offs = offsets(op->buffer, op->indices, lanes, "load from");
    const Env::Memory& mem = env_.memory(op->buffer->data.get(), op->buffer->name);
    Value out{e.dtype(), std::vector<Lane>(lanes)};
    for (int lane = 0; lane < lanes; ++lane) out.lanes[lane] = read_element(mem, offs[lane]);
    return out;
  }

  Value ramp(const RampNode* op) {
    int64_t base = eval_int(op->base), stride = eval_int(op->stride);
    DataType t = op->dtype;
    Value out{t, std::vector<Lane>(op->lanes)};
    for (int i = 0; i < op->lanes; ++i)
      out.lanes[i].i = wrap_int(
          t, static_cast<int64_t>(static_cast<uint64_t>(base) + static_cast<uint64_t>(stride) * i));
    return out;
  }

  [[noreturn]] void bounds_error(const Buffer& b, const std::vector<Value>& idx,
                                 const std::vector<int64_t>& shape, int lane, int lanes,
                                 int64_t mem_size, const char* access) {
    std::ostringstream index, dims;
    for (size_t d = 0; d < idx.size(); ++d) {
      const char* sep = d ? ", " : "";
      index << sep << idx[d].int_at(idx[d].lanes.size() == 1 ? 0 : lane);
      dims << sep << shape[d];
    }
    if (lanes > 1)
      index << "] (lane " << lane << ")";
    else
      index << "]";
    TESSEL_USER_ERROR("interpreter: ", access, " buffer '", b->name, "': index [", index.str(),
                      " is out of bounds of shape [", dims.str(), "] (memory holds ", mem_size,
                      " elements)");
  }

  const Env& env_;
  std::unordered_map<const VarNode*, Value> let_values_;
};

// ---- statements -------------------------------------------------------------------------

class Executor {
 public:
  explicit Executor(Env& env) : env_(env) {}

  void exec(const Stmt& s) {
    switch (s.kind()) {
      case StmtKind::For:
        return exec_for(s.as<ForNode>());
      case StmtKind::Store:
        return exec_store(s.as<StoreNode>());
      case StmtKind::Allocate:
        return exec_allocate(s.as<AllocateNode>());
      case StmtKind::IfThenElse: {
        const auto* op = s.as<IfThenElseNode>();
        if (Evaluator(env_).eval_int(op->condition))
          exec(op->then_case);
        else if (op->else_case.defined())
          exec(op->else_case);
        return;
      }
      case StmtKind::LetStmt: {
        const auto* op = s.as<LetStmtNode>();
        Value v = evaluate(op->value, env_);
        scoped_bind(op->var.get(), std::move(v), [&] { exec(op->body); });
        return;
      }
      case StmtKind::Seq:
        for (const Stmt& child : s.as<SeqNode>()->seq) exec(child);
        return;
      case StmtKind::Evaluate:
        evaluate(s.as<EvaluateNode>()->value, env_);
        return;
      case StmtKind::Prefetch:
        return exec_prefetch(s.as<PrefetchNode>());
    }
    TESSEL_INTERNAL_ERROR("unknown statement kind");
  }

 private:
  template <class Body>
  void scoped_bind(const VarNode* var, Value v, Body&& body) {
    std::optional<Value> old;
    if (const Value* prev = env_.find(var)) old = *prev;
    env_.bind(var, std::move(v));
    body();
    if (old)
      env_.bind(var, std::move(*old));
    else
      env_.unbind(var);
  }

  void exec_for(const ForNode* op) {
    Evaluator ev(env_);
    int64_t min = ev.eval_int(op->min), extent = ev.eval_int(op->extent);
    DataType t = op->var.dtype();
    for (int64_t i = 0; i < extent; ++i)
      scoped_bind(op->var.get(), Value::from_int(t, min + i), [&] { exec(op->body); });
  }

  void exec_store(const StoreNode* op) {
    Evaluator ev(env_);
    Value v = ev.eval(op->value);
    int lanes = static_cast<int>(v.lanes.size());
    std::vector<int64_t> offs = ev.offsets(op->buffer, op->indices, lanes, "store to");
    const Env::Memory& mem = env_.memory(op->buffer->data.get(), op->buffer->name);
    for (int lane = 0; lane < lanes; ++lane) write_element(mem, offs[lane], v.lanes[lane]);
  }

  void exec_prefetch(const PrefetchNode* op) {
    int64_t offset = Evaluator(env_).eval_int(op->offset);
    const Env::Memory& mem = env_.memory(op->buffer->data.get(), op->buffer->name);
    if (offset < 0 || offset >= mem.size)
      TESSEL_USER_ERROR("interpreter: prefetch of buffer '", op->buffer->name, "' at offset ",
                        offset, " lies outside its ", mem.size, " elements");
    if (env_.on_prefetch) env_.on_prefetch(op->buffer->name, offset);
  }

  void exec_allocate(const AllocateNode* op) {
    const Buffer& b = op->buffer;
    int64_t size = 1;
    for (int64_t d : Evaluator(env_).shape_of(b)) size *= d;
    std::vector<uint8_t> storage(static_cast<size_t>(size) * b->dtype.bytes(), 0xff);
    const VarNode* data = b->data.get();
    std::optional<Env::Memory> old;
    if (const Env::Memory* prev = env_.find_memory(data)) old = *prev;
    check_memory_type(b->dtype.element(), b->name);
    env_.bind_memory(data, Env::Memory{storage.data(), size, b->dtype.element()});
    exec(op->body);
    if (old)
      env_.bind_memory(data, *old);
    else
      env_.unbind_memory(data);
  }

  Env& env_;
};

}  // namespace

// ---- public API ---------------------------------------------------------------------------

Value Value::from_int(DataType dtype, int64_t v) {
  TESSEL_ICHECK(!dtype.is_float() && !dtype.is_handle(), "from_int with ", dtype.to_string());
  return Value{dtype, std::vector<Lane>(dtype.lanes, Lane{.i = wrap_int(dtype, v)})};
}

Value Value::from_float(DataType dtype, double v) {
  TESSEL_ICHECK(dtype.is_float(), "from_float with ", dtype.to_string());
  return Value{dtype, std::vector<Lane>(dtype.lanes, Lane{.f = round_float(dtype, v)})};
}

int64_t Value::int_at(int lane) const {
  TESSEL_ICHECK(!dtype.is_float(), "int_at on a ", dtype.to_string(), " value");
  return lanes.at(lane).i;
}

double Value::float_at(int lane) const {
  TESSEL_ICHECK(dtype.is_float(), "float_at on a ", dtype.to_string(), " value");
  return lanes.at(lane).f;
}

void Env::bind(const Var& var, Value value) {
  bind(var.get(), std::move(value));
}
void Env::bind(const VarNode* var, Value value) {
  values_[var] = std::move(value);
}
void Env::unbind(const VarNode* var) {
  values_.erase(var);
}

const Value* Env::find(const VarNode* var) const {
  auto it = values_.find(var);
  return it == values_.end() ? nullptr : &it->second;
}

const Value& Env::lookup(const VarNode* var) const {
  if (const Value* v = find(var)) return *v;
  TESSEL_USER_ERROR("interpreter: variable '", var->name, "' is not bound");
}

void Env::bind_memory(const VarNode* data, Memory memory) {
  memories_[data] = memory;
}
void Env::unbind_memory(const VarNode* data) {
  memories_.erase(data);
}

const Env::Memory* Env::find_memory(const VarNode* data) const {
  auto it = memories_.find(data);
  return it == memories_.end() ? nullptr : &it->second;
}

const Env::Memory& Env::memory(const VarNode* data, const std::string& buffer_name) const {
  if (const Memory* m = find_memory(data)) return *m;
  TESSEL_USER_ERROR("interpreter: buffer '", buffer_name, "' has no memory (not a parameter ",
                    "and not allocated here)");
}

Value evaluate(const Expr& e, const Env& env) {
  return Evaluator(env).eval(e);
}

void run(const PrimFunc& f, const std::vector<void*>& args, Env env) {
  if (args.size() != f.params.size())
    TESSEL_USER_ERROR("interpreter: function '", f.name, "' takes ", f.params.size(),
                      " buffers, got ", args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const Buffer& b = f.params[i];
    int64_t size = 1;
    for (int64_t d : Evaluator(env).shape_of(b)) size *= d;
    check_memory_type(b->dtype.element(), b->name);
    env.bind_memory(b->data.get(), Env::Memory{args[i], size, b->dtype.element()});
  }
  Executor(env).exec(f.body);
}

}  // namespace tessel::ir
