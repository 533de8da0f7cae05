// The element-wise operator family, internal interface: the records that describe unary and
// binary operators (one table entry per operator), the generic registration of each kind,
// and the type rules and broadcast compute they share.
//
// Element types: every operator lists the kinds of element type it accepts (TypeSet);
// bodies are written over the *compute type* of their operands: 16-bit floats (float16,
// bfloat16) are widened to float32 and the result is narrowed back, and operators marked
// `integers_as_float` compute integers in float64.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ops/op_util.h"
#include "ops/registry.h"

namespace tessel::ops::elementwise {

/// Kinds of element types, combined as a bit set.
enum TypeSet : unsigned {
  kFloat = 1,     ///< float16, bfloat16, float32, float64
  kSigned = 2,    ///< int8 .. int64
  kUnsigned = 4,  ///< uint8 .. uint64
  kBool = 8,
  kString = 16,  ///< only Cast and CastLike take strings
  kInteger = kSigned | kUnsigned,
  kSignedNumeric = kFloat | kSigned,
  kNumeric = kFloat | kInteger,
  kAnyType = kNumeric | kBool,
};

/// Fails unless the node has between `min_inputs` and `max_inputs` input slots.
void check_input_count(const OpContext& ctx, size_t min_inputs, size_t max_inputs);
/// Fails unless input `i` has one of `types`, naming the input, its type and the set.
void check_input_type(const OpContext& ctx, size_t i, unsigned types);
/// Fails unless inputs `i` and `j` have the same element type.
void check_same_type(const OpContext& ctx, size_t i, size_t j);

/// `value` cast to its compute type: float32 for 16-bit floats, float64 for integers when
/// `integers_as_float`, else unchanged.
ir::Expr widen(const ir::Expr& value, bool integers_as_float = false);

/// The numpy broadcast of the shapes of the given (present) inputs.
std::vector<int64_t> broadcast_input_shapes(const OpContext& ctx,
                                            const std::vector<size_t>& inputs);

/// The compute over the broadcast shape of `inputs` whose element is `body(loaded values)`,
/// one value per input, read at the broadcast position.
te::Tensor broadcast_compute(const OpContext& ctx, const std::vector<te::Tensor>& inputs,
                             const std::function<ir::Expr(const std::vector<ir::Expr>&)>& body,
                             const std::string& name);

/// A float attribute with a default, for operator schemas.
AttrSpec float_attr(const std::string& name, double default_value);
/// The float attribute `name` as an immediate of `like`'s type.
ir::Expr attr_const(const OpContext& ctx, const std::string& name, const ir::Expr& like);
/// `value` limited to [lo, hi]; NaN stays NaN.
ir::Expr clamp(const ir::Expr& value, const ir::Expr& lo, const ir::Expr& hi);

/// The lower-case form of an operator name, for compute stage names.
std::string stage_name(const std::string& op_name);

/// A unary operator: y = body(x), element by element.
struct UnaryOp {
  std::string name;
  int since_version = 1;
  /// Accepted element types of the input.
  unsigned types = kFloat;
  std::vector<AttrSpec> attributes;
  /// The result for one element `x` given in its compute type; the result is cast to the
  /// output type.
  std::function<ir::Expr(const OpContext& ctx, const ir::Expr& x)> body;
  /// The output is bool (IsNaN, IsInf) instead of the input's type.
  bool bool_result = false;
  /// Integer inputs are computed in float64 and the result cast back.
  bool integers_as_float = false;
};

/// A binary operator with numpy broadcasting: c = body(a, b).
struct BinaryOp {
  std::string name;
  int since_version = 7;
  /// Accepted element types of input A (and of B unless `b_types` is set).
  unsigned types = kNumeric;
  /// When non-zero, B may have any type of this set, independently of A (Pow); otherwise A
  /// and B must have the same type.
  unsigned b_types = 0;
  std::vector<AttrSpec> attributes;
  /// Optional: checks the attributes (and input types) beyond the schema.
  std::function<void(const OpContext& ctx)> validate;
  /// The result for one element pair, each given in its compute type; the result is cast
  /// to the output type.
  std::function<ir::Expr(const OpContext& ctx, const ir::Expr& a, const ir::Expr& b)> body;
  /// The output is bool (comparisons, logic) instead of A's type.
  bool bool_result = false;
  /// B broadcasts to A's shape only (PRelu's slope); the output has A's shape.
  bool unidirectional = false;
};

/// Registers `op` as an Elementwise operator.
void register_unary(OpRegistry& registry, const UnaryOp& op);
/// Registers `op` as a Broadcast operator.
void register_binary(OpRegistry& registry, const BinaryOp& op);

/// The tables of the family.
std::vector<UnaryOp> unary_math_ops();
std::vector<UnaryOp> unary_activation_ops();
std::vector<BinaryOp> binary_activation_ops();
std::vector<BinaryOp> arithmetic_ops();
std::vector<BinaryOp> logic_ops();

/// Operators with a registration of their own.
void register_variadic_ops(OpRegistry& registry);  // Sum Mean Max Min
void register_cast_ops(OpRegistry& registry);      // Cast CastLike
void register_where(OpRegistry& registry);
void register_clip(OpRegistry& registry);
void register_passthrough_ops(OpRegistry& registry);  // Identity Dropout
void register_random_ops(
    OpRegistry& registry);  // RandomUniform(Like) RandomNormal(Like) Bernoulli Multinomial
/// Gelu (a unary operator with a registration of its own file).
UnaryOp gelu_op();

}  // namespace tessel::ops::elementwise
