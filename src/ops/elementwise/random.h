// Random numbers in tensor expressions: each element a hash of its position and a key drawn
// from the node's seed (random.cpp), shared by the random operators and Dropout in training.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/op_context.h"
#include "te/compute.h"

namespace tessel::ops::elementwise {

/// The key of the node's stream `stream` (0, 1, ... for independent draws of one node):
/// from its attribute 'seed', or, without one, from its first output's name.
uint32_t random_key(const OpContext& ctx, uint32_t stream);

/// A float32 in [0, 1) for element `index` of a tensor of `shape`, 24 random bits.
ir::Expr random_uniform(const std::vector<te::Var>& index, const std::vector<int64_t>& shape,
                        uint32_t key);

/// A float32 of the standard normal distribution for element `index` (Box-Muller).
ir::Expr random_normal(const std::vector<te::Var>& index, const std::vector<int64_t>& shape,
                       uint32_t key);

}  // namespace tessel::ops::elementwise
