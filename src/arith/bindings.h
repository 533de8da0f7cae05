// What the Analyzer knows about variables: constant ranges (from loops) and let values.
// Internal to tessel::arith; every sub-analyzer (bounds, simplifier, intervals) reads it.
#pragma once

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "arith/analyzer.h"

namespace tessel::arith {

/// Facts about one variable. The Var handle keeps the node (the map key) alive.
struct VarInfo {
  Var var;
  bool has_bound = false;
  ConstBound bound;
  IntervalSet range;        ///< The symbolic range, when a loop bound it with non-constant ends.
  int64_t range_order = 0;  ///< When the range was recorded (later: deeper in a loop nest).
  Expr value;               ///< Defined when the variable is let-bound to this value.
};

/// Variable facts keyed by variable identity.
class Bindings {
 public:
  /// The facts about var, or null.
  const VarInfo* find(const ir::VarNode* var) const {
    auto it = vars_.find(var);
    return it == vars_.end() ? nullptr : &it->second;
  }
  /// Records var's constant range (keeps a let value already recorded).
  void set_bound(const Var& var, ConstBound bound) {
    VarInfo& info = vars_[var.get()];
    info.var = var;
    info.has_bound = true;
    info.bound = bound;
  }
  /// Records that var equals value.
  void set_value(const Var& var, const Expr& value) {
    VarInfo& info = vars_[var.get()];
    info.var = var;
    info.value = value;
  }
  /// Records var's symbolic range (next to its constant bounds).
  void set_range(const Var& var, const IntervalSet& range) {
    VarInfo& info = vars_[var.get()];
    info.var = var;
    info.range = range;
    info.range_order = ++range_count_;
  }
  /// The variables with a symbolic range, most recently bound first (an inner loop's range
  /// may mention outer loop variables, not the reverse).
  std::vector<const VarInfo*> symbolic_ranges() const {
    std::vector<const VarInfo*> out;
    for (const auto& [node, info] : vars_)
      if (info.range.bounded()) out.push_back(&info);
    std::sort(out.begin(), out.end(),
              [](const VarInfo* a, const VarInfo* b) { return a->range_order > b->range_order; });
    return out;
  }
  /// Forgets every fact about var.
  void erase(const ir::VarNode* var) { vars_.erase(var); }
  /// Replaces the facts of var by `info` (or erases them when info is null): scoped updates.
  void restore(const Var& var, const VarInfo* info) {
    if (info)
      vars_[var.get()] = *info;
    else
      vars_.erase(var.get());
  }

 private:
  std::unordered_map<const ir::VarNode*, VarInfo> vars_;
  int64_t range_count_ = 0;
};

}  // namespace tessel::arith
