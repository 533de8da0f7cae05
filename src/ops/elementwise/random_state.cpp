// RandomState: NumPy's legacy generator on the host (random_state.h).
#include "ops/elementwise/random_state.h"

#include <cmath>

namespace tessel::ops::elementwise {

double RandomState::uniform() {
  double high = static_cast<double>(engine_() >> 5);  // 27 bits
  double low = static_cast<double>(engine_() >> 6);   // 26 bits
  return (high * 67108864.0 + low) / 9007199254740992.0;
}

double RandomState::standard_normal() {
  if (pending_normal_) {
    double kept = *pending_normal_;
    pending_normal_.reset();
    return kept;
  }
  // A point drawn uniformly in the unit disc (not its centre) gives two normals.
  double x1, x2, r2;
  do {
    x1 = 2.0 * uniform() - 1.0;
    x2 = 2.0 * uniform() - 1.0;
    r2 = x1 * x1 + x2 * x2;
  } while (r2 >= 1.0 || r2 == 0.0);
  double f = std::sqrt(-2.0 * std::log(r2) / r2);
  pending_normal_ = f * x1;
  return f * x2;
}

uint32_t random_seed(const graph::Node& node) {
  if (const graph::Attribute* given = node.attribute("seed"))
    return static_cast<uint32_t>(
        given->kind == graph::AttrKind::Int ? given->i : static_cast<int64_t>(given->f));
  uint32_t seed = 2166136261u;  // FNV-1a of the first output's name
  const graph::Value* out = node.outputs.empty() ? nullptr : node.outputs[0];
  for (char c : out ? out->name : node.name) seed = (seed ^ static_cast<uint8_t>(c)) * 16777619u;
  return seed;
}

}  // namespace tessel::ops::elementwise
