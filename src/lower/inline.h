// Inlining for lowering: the bodies of a stage with the bodies of inlined stages
// substituted for their loads (transitively).
#pragma once

#include <unordered_map>
#include <vector>

#include "schedule/schedule.h"

namespace tessel::lower {

class Inliner {
 public:
  explicit Inliner(const schedule::Schedule& schedule) : schedule_(schedule) {}
  /// The bodies of `stage` with every load of an inlined stage replaced by its body.
  std::vector<ir::Expr> bodies(const schedule::Stage& stage);

 private:
  ir::Expr expand(const ir::Expr& e);
  /// The body of inlined `stage`, itself expanded.
  const ir::Expr& inlined_body(const schedule::Stage& stage);

  const schedule::Schedule& schedule_;
  std::unordered_map<const schedule::Stage*, ir::Expr> expanded_;
};

}  // namespace tessel::lower
