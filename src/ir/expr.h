// Loop IR expressions (tessel::ir), shared by the tensor-expression layer and lowering.
//
// Semantics, fixed here once for every pass and backend:
//  - Index type: loop variables, extents and buffer indices are int64 (DataType::Index()).
//  - Integer Div and Mod are *floor* division and modulo: (-7)/2 == -4, (-7)%2 == 1; the
//    result of Mod has the sign of the divisor. Dividing by zero is undefined: passes may
//    assume it never happens; the simplifier never folds it.
//  - Integer arithmetic wraps in two's complement at the type's width (no undefined
//    overflow); passes must not rely on wrap-around to prove facts (the simplifier assumes
//    index arithmetic does not overflow int64).
//  - Float arithmetic is IEEE; codegen may contract a*b+c into an FMA and may reassociate
//    reductions, but never assumes finite or non-NaN values. Float Div is true division.
//    Float Min and Max propagate NaN (a NaN operand gives NaN); min(-0, +0) may be either
//    zero.
//  - Cast: float to integer truncates toward zero (undefined when the result does not fit);
//    integer to float rounds to nearest even; float or integer to bool is (x != 0) (NaN is
//    true); bool to a number is 0 or 1; integer to integer keeps the low bits (wraps) and
//    extends by the source's signedness; float narrowing rounds to nearest even.
//  - bool (uint1) is one byte in memory holding 0 or 1.
//  - Evaluation order of operands is unspecified; expressions have no side effects (Load
//    reads memory, Call intrinsics are pure).
//  - Comparison and logic produce bool (uint1); Select evaluates both arms.
//  - A vector of `lanes` elements comes from Ramp(base, stride, lanes) (base + i*stride)
//    or Broadcast(value, lanes); element-wise ops apply lane by lane.
//  - Load/Store take one index per buffer dimension; after storage_flatten every buffer
//    has one dimension. Buffer dimensions are row-major (last index fastest).
//
// Nodes are immutable; build them with the `make` functions, which check types and derive
// the result type. Each node lists its fields once in `fields()`: structural equality,
// hashing and the generic visitor/mutator all derive from that list.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "ir/object.h"
#include "ir/type.h"

namespace tessel::ir {

#define TESSEL_BINARY_EXPR_KINDS(X) \
  X(Add) X(Sub) X(Mul) X(Div) X(Mod) X(Min) X(Max) X(EQ) X(NE) X(LT) X(LE) X(GT) X(GE) X(And) X(Or)

#define TESSEL_EXPR_KINDS(X)                                                             \
  X(IntImm) X(FloatImm) X(Var) TESSEL_BINARY_EXPR_KINDS(X) X(Not) X(Select) X(Cast) X(Call) \
  X(Load) X(Ramp) X(Broadcast) X(Let) X(Reduce)

enum class ExprKind : uint8_t {
#define TESSEL_KIND_ENUM(name) name,
  TESSEL_EXPR_KINDS(TESSEL_KIND_ENUM)
#undef TESSEL_KIND_ENUM
};

/// Name of an expression kind, e.g. "Add".
const char* kind_name(ExprKind kind);

/// Base of expression nodes: a kind tag (for `as<T>()`, no RTTI) and a type.
class ExprNode : public Object {
 public:
  ExprNode(ExprKind kind, DataType dtype) : kind(kind), dtype(dtype) {}
  const ExprKind kind;
  const DataType dtype;
};

/// Handle to an expression. Converts implicitly from integers (int64 immediates) and
/// floats (float32 immediates) so that tensor expressions read like formulas.
class Expr : public Ref<ExprNode> {
 public:
  Expr() = default;
  Expr(std::nullptr_t) {}
  explicit Expr(const ExprNode* node) : Ref<ExprNode>(node) {}
  template <class T>
  Expr(const Ref<T>& node) : Ref<ExprNode>(node) {}
  Expr(int value);
  Expr(int64_t value);
  Expr(float value);
  Expr(double value);

  DataType dtype() const { return get()->dtype; }
  ExprKind kind() const { return get()->kind; }
  /// The node as T when its kind matches, else nullptr.
  template <class T>
  const T* as() const {
    return defined() && get()->kind == T::kKind ? static_cast<const T*>(get()) : nullptr;
  }
};

struct IntImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::IntImm;
  IntImmNode(DataType t, int64_t v) : ExprNode(kKind, t), value(v) {}
  const int64_t value;
  auto fields() const { return std::tie(value); }
};

struct FloatImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::FloatImm;
  FloatImmNode(DataType t, double v) : ExprNode(kKind, t), value(v) {}
  const double value;
  auto fields() const { return std::tie(value); }
};

struct VarNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Var;
  VarNode(DataType t, std::string name) : ExprNode(kKind, t), name(std::move(name)) {}
  /// A hint for printing; variables compare by identity, never by name.
  const std::string name;
  auto fields() const { return std::tuple<>(); }
};

/// A variable: compares by identity.
class Var : public Expr {
 public:
  Var() = default;
  explicit Var(std::string name, DataType dtype = DataType::Index());
  explicit Var(const VarNode* node) : Expr(node) {}
  const VarNode* get() const { return static_cast<const VarNode*>(Expr::get()); }
  const VarNode* operator->() const { return get(); }
  const std::string& name() const { return get()->name; }
};

/// Where a buffer lives.
enum class MemoryScope : uint8_t {
  Global,  ///< Heap / device global memory; function arguments live here.
  Local,   ///< Private to the executing thread (stack or registers).
  Shared,  ///< Shared by the threads of a GPU block.
};
const char* scope_name(MemoryScope scope);

/// A named multi-dimensional array: its data pointer variable, element type, shape.
struct BufferNode : Object {
  BufferNode(std::string name, Var data, DataType dtype, std::vector<Expr> shape,
             MemoryScope scope)
      : name(std::move(name)), data(std::move(data)), dtype(dtype), shape(std::move(shape)),
        scope(scope) {}
  const std::string name;
  const Var data;
  const DataType dtype;
  const std::vector<Expr> shape;
  const MemoryScope scope;
};

class Buffer : public Ref<BufferNode> {
 public:
  Buffer() = default;
  Buffer(std::nullptr_t) {}
  explicit Buffer(const BufferNode* node) : Ref<BufferNode>(node) {}
  /// A new buffer with a fresh data variable.
  static Buffer make(std::string name, DataType dtype, std::vector<Expr> shape,
                     MemoryScope scope = MemoryScope::Global);
  /// The same buffer object seen with another shape (used by storage_flatten).
  Buffer with_shape(std::vector<Expr> shape) const;
  int ndim() const { return static_cast<int>(get()->shape.size()); }
  /// Number of elements when every dimension is constant, else -1.
  int64_t const_size() const;
};

template <ExprKind K>
struct BinaryNode : ExprNode {
  static constexpr ExprKind kKind = K;
  BinaryNode(DataType t, Expr a, Expr b) : ExprNode(kKind, t), a(std::move(a)), b(std::move(b)) {}
  const Expr a, b;
  auto fields() const { return std::tie(a, b); }
};
#define TESSEL_BINARY_ALIAS(name) using name##Node = BinaryNode<ExprKind::name>;
TESSEL_BINARY_EXPR_KINDS(TESSEL_BINARY_ALIAS)
#undef TESSEL_BINARY_ALIAS

struct NotNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Not;
  NotNode(DataType t, Expr a) : ExprNode(kKind, t), a(std::move(a)) {}
  const Expr a;
  auto fields() const { return std::tie(a); }
};

struct SelectNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Select;
  SelectNode(DataType t, Expr c, Expr tv, Expr fv)
      : ExprNode(kKind, t), condition(std::move(c)), true_value(std::move(tv)),
        false_value(std::move(fv)) {}
  const Expr condition, true_value, false_value;
  auto fields() const { return std::tie(condition, true_value, false_value); }
};

struct CastNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Cast;
  CastNode(DataType t, Expr v) : ExprNode(kKind, t), value(std::move(v)) {}
  const Expr value;
  auto fields() const { return std::tie(value); }
};

/// How an intrinsic types its arguments and result (every argument has the same type).
enum class IntrinsicClass : uint8_t {
  Float,        ///< float arguments, same type out
  Numeric,      ///< float or integer arguments (abs also takes bool), same type out
  FloatTest,    ///< float argument, bool out
  Bitwise,      ///< integer or bool arguments, same type out
  Shift,        ///< integer arguments, same type out
  Reinterpret,  ///< a float or integer of 16, 32 or 64 bits; the other kind of that width out
};

/// Pure intrinsics: name, number of arguments, class. Semantics (lane by lane):
///  - exp log sqrt rsqrt tanh sigmoid erf pow floor ceil trunc, sin cos tan asin acos atan
///    sinh cosh asinh acosh atanh: as C's <math.h> (IEEE special values included).
///  - round: to nearest, ties to even (C's nearbyint in the default rounding mode).
///  - fma(a, b, c): a*b + c rounded once (C's fma; 16-bit floats, like all their math, in
///    float32 and then rounded to their type); on a target without a fused multiply-add
///    instruction (x86-64 without FMA3) the product is rounded first. Codegen keeps it as
///    written, where plain arithmetic may be contracted and reassociated, also across an
///    fma that feeds it: a computation whose accuracy depends on its order of roundings
///    writes each such step as an fma (a plain sum a + b as fma(a, 1, b)).
///  - abs: |x|; on signed integers it wraps (abs(INT_MIN) == INT_MIN).
///  - fmod(a, b): C's fmod for floats; for integers the truncated remainder (sign of the
///    dividend, like C's %; INT_MIN fmod -1 is 0); b == 0 is undefined for integers.
///  - is_nan(x), is_inf(x): whether x is NaN / +-infinity.
///  - bitwise_and/or/xor/not: on the bits of the value (bool stays 0/1).
///  - shift_left(a, b), shift_right(a, b): shift by b bits; shift_right is logical for
///    unsigned and arithmetic for signed integers. Amounts of `bits` or more (negative
///    ones count as huge) shift every bit out: 0, or the sign fill for signed shift_right.
///  - reinterpret(x): the same bits seen as the other kind of the same width: a float
///    (float16, bfloat16, float32, float64) as the signed integer, an integer (signed or
///    not) as the IEEE float (int16 gives float16).
#define TESSEL_INTRINSICS(X)                                                                  \
  X(exp, 1, Float) X(log, 1, Float) X(sqrt, 1, Float) X(rsqrt, 1, Float) X(tanh, 1, Float)    \
  X(sigmoid, 1, Float) X(erf, 1, Float) X(pow, 2, Float) X(abs, 1, Numeric)                   \
  X(floor, 1, Float) X(ceil, 1, Float) X(round, 1, Float) X(trunc, 1, Float)                  \
  X(sin, 1, Float) X(cos, 1, Float) X(tan, 1, Float) X(asin, 1, Float) X(acos, 1, Float)      \
  X(atan, 1, Float) X(sinh, 1, Float) X(cosh, 1, Float) X(asinh, 1, Float) X(acosh, 1, Float) \
  X(atanh, 1, Float) X(fmod, 2, Numeric) X(is_nan, 1, FloatTest) X(is_inf, 1, FloatTest)     \
  X(bitwise_and, 2, Bitwise) X(bitwise_or, 2, Bitwise) X(bitwise_xor, 2, Bitwise)             \
  X(bitwise_not, 1, Bitwise) X(shift_left, 2, Shift) X(shift_right, 2, Shift)                 \
  X(fma, 3, Float) X(reinterpret, 1, Reinterpret)

enum class Intrinsic : uint8_t {
#define TESSEL_INTRINSIC_ENUM(name, arity, cls) name,
  TESSEL_INTRINSICS(TESSEL_INTRINSIC_ENUM)
#undef TESSEL_INTRINSIC_ENUM
};
/// Name ("sin"), number of arguments and typing class of an intrinsic.
const char* intrinsic_name(Intrinsic op);
int intrinsic_arity(Intrinsic op);
IntrinsicClass intrinsic_class(Intrinsic op);

struct CallNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Call;
  CallNode(DataType t, Intrinsic op, std::vector<Expr> args)
      : ExprNode(kKind, t), op(op), args(std::move(args)) {}
  const Intrinsic op;
  const std::vector<Expr> args;
  auto fields() const { return std::tie(op, args); }
};

struct LoadNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Load;
  LoadNode(DataType t, Buffer b, std::vector<Expr> idx)
      : ExprNode(kKind, t), buffer(std::move(b)), indices(std::move(idx)) {}
  const Buffer buffer;
  const std::vector<Expr> indices;
  auto fields() const { return std::tie(buffer, indices); }
};

struct RampNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Ramp;
  RampNode(DataType t, Expr base, Expr stride, int lanes)
      : ExprNode(kKind, t), base(std::move(base)), stride(std::move(stride)), lanes(lanes) {}
  const Expr base, stride;
  const int lanes;
  auto fields() const { return std::tie(base, stride, lanes); }
};

struct BroadcastNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Broadcast;
  BroadcastNode(DataType t, Expr v, int lanes) : ExprNode(kKind, t), value(std::move(v)), lanes(lanes) {}
  const Expr value;
  const int lanes;
  auto fields() const { return std::tie(value, lanes); }
};

struct LetNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Let;
  LetNode(DataType t, Var v, Expr value, Expr body)
      : ExprNode(kKind, t), var(std::move(v)), value(std::move(value)), body(std::move(body)) {}
  const Var var;
  const Expr value, body;
  auto fields() const { return std::tie(var, value, body); }
};

/// Whether an iteration variable spans data-parallel or reduction iterations.
enum class IterKind : uint8_t { DataPar, Reduce };

/// An iteration variable over [min, min + extent).
struct IterVar {
  Var var;
  Expr min;
  Expr extent;
  IterKind kind = IterKind::DataPar;
  auto fields() const { return std::tie(var, min, extent, kind); }
};

/// The combining operation of a reduction; each has an identity element.
enum class ReduceOp : uint8_t { Sum, Prod, Min, Max };
const char* reduce_op_name(ReduceOp op);

/// A reduction of `source` over `axes` (only inside tensor-expression bodies; lowering
/// turns it into an initialisation and an update loop). `condition` filters iterations.
struct ReduceNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Reduce;
  ReduceNode(DataType t, ReduceOp op, Expr source, std::vector<IterVar> axes, Expr condition)
      : ExprNode(kKind, t), op(op), source(std::move(source)), axes(std::move(axes)),
        condition(std::move(condition)) {}
  const ReduceOp op;
  const Expr source;
  const std::vector<IterVar> axes;
  const Expr condition;
  auto fields() const { return std::tie(op, source, axes, condition); }
};

// ---- Construction: checked, type-deriving builders ------------------------------------

Expr make_int(int64_t value, DataType dtype = DataType::Index());
Expr make_float(double value, DataType dtype = DataType::Float(32));
/// An immediate of `dtype` holding `value` (int or float as dtype requires).
Expr make_const(DataType dtype, double value);
Expr make_bool(bool value);
#define TESSEL_BINARY_MAKE(name) Expr make_##name(Expr a, Expr b);
TESSEL_BINARY_EXPR_KINDS(TESSEL_BINARY_MAKE)
#undef TESSEL_BINARY_MAKE
Expr make_Not(Expr a);
Expr make_Select(Expr condition, Expr true_value, Expr false_value);
Expr make_Cast(DataType dtype, Expr value);
Expr make_Call(Intrinsic op, std::vector<Expr> args);
Expr make_Load(Buffer buffer, std::vector<Expr> indices);
Expr make_Ramp(Expr base, Expr stride, int lanes);
Expr make_Broadcast(Expr value, int lanes);
Expr make_Let(Var var, Expr value, Expr body);
Expr make_Reduce(ReduceOp op, Expr source, std::vector<IterVar> axes, Expr condition = nullptr);
/// The identity element of `op` for `dtype` (0 for Sum, 1 for Prod, +inf / max for Min...).
Expr reduce_identity(ReduceOp op, DataType dtype);
/// The combination of two values under `op`.
Expr reduce_combine(ReduceOp op, Expr a, Expr b);

/// The immediate's value when `e` is an IntImm (or Broadcast of one).
const int64_t* as_const_int(const Expr& e);
bool is_const_int(const Expr& e, int64_t value);
bool is_zero(const Expr& e);
bool is_one(const Expr& e);

// ---- Operators for writing formulas. Immediates adopt the other side's type; other
// mismatches are CompileErrors naming both types. ---------------------------------------
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
/// Floor division on integers, true division on floats.
Expr operator/(Expr a, Expr b);
/// Floor modulo.
Expr operator%(Expr a, Expr b);
Expr operator-(Expr a);
Expr operator==(Expr a, Expr b);
Expr operator!=(Expr a, Expr b);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator!(Expr a);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr select(Expr condition, Expr true_value, Expr false_value);
Expr cast(DataType dtype, Expr value);
// Intrinsics (see TESSEL_INTRINSICS for their semantics). Binary ones match their operand
// types like the arithmetic operators do.
Expr exp(Expr a);
Expr log(Expr a);
Expr sqrt(Expr a);
Expr rsqrt(Expr a);
Expr tanh(Expr a);
Expr sigmoid(Expr a);
Expr erf(Expr a);
Expr pow(Expr a, Expr b);
Expr abs(Expr a);
Expr floor(Expr a);
Expr ceil(Expr a);
Expr round(Expr a);
Expr trunc(Expr a);
Expr sin(Expr a);
Expr cos(Expr a);
Expr tan(Expr a);
Expr asin(Expr a);
Expr acos(Expr a);
Expr atan(Expr a);
Expr sinh(Expr a);
Expr cosh(Expr a);
Expr asinh(Expr a);
Expr acosh(Expr a);
Expr atanh(Expr a);
Expr fmod(Expr a, Expr b);
Expr is_nan(Expr a);
Expr is_inf(Expr a);
Expr bitwise_and(Expr a, Expr b);
Expr bitwise_or(Expr a, Expr b);
Expr bitwise_xor(Expr a, Expr b);
Expr bitwise_not(Expr a);
Expr shift_left(Expr a, Expr b);
Expr shift_right(Expr a, Expr b);
Expr fma(Expr a, Expr b, Expr c);
Expr reinterpret(Expr a);

}  // namespace tessel::ir
