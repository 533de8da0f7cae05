// Registers the element-wise operator family: the unary and binary tables through their
// generic registrations, then the operators with a registration of their own.
#include "ops/elementwise/elementwise.h"

namespace tessel::ops {

void register_elementwise_ops(OpRegistry& registry) {
  using namespace elementwise;
  for (const auto& table : {unary_math_ops(), unary_activation_ops()})
    for (const UnaryOp& op : table) register_unary(registry, op);
  for (const auto& table : {arithmetic_ops(), logic_ops(), binary_activation_ops()})
    for (const BinaryOp& op : table) register_binary(registry, op);
  register_variadic_ops(registry);
  register_cast_ops(registry);
  register_where(registry);
  register_clip(registry);
  register_passthrough_ops(registry);
  register_random_ops(registry);
  register_unary(registry, gelu_op());
}

}  // namespace tessel::ops
