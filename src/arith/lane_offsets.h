// Vector indices as one scalar plus a constant offset per lane. A vectorized load whose
// index is `base + offsets[l]` with every lane inside one aligned run of the buffer reads
// that run whole and permutes it (codegen), instead of gathering lane by lane: the lanes of
// a grouped convolution reading their own group's channels, (kk / 4) * 4 + j, are such an
// index.
#pragma once

#include <optional>
#include <vector>

#include "arith/linear_form.h"
#include "ir/expr.h"

namespace tessel::arith {

/// index[l] == base + offsets[l] for every lane l; base.constant is always 0 (constants
/// are in the offsets).
struct LaneOffsets {
  LinearForm base;
  std::vector<int64_t> offsets;
};

/// The lanes of an integer vector index made of ramps of constant stride, broadcasts and
/// scalars by +, -, * by a constant, and floor / and % by a positive constant whose
/// dividend's scalar part is a multiple of it; nullopt for any other index.
std::optional<LaneOffsets> lane_offsets(const ir::Expr& index);

}  // namespace tessel::arith
