// Schedule knobs: the tunable parameters an operator's schedule reads, and chosen values.
//
// An operator whose schedule has parameters worth searching declares them per node
// (OpDef::tuning_space): a template name, shared by the nodes whose tuning records can
// inform each other, and the knobs with their candidate values for this node's shapes.
// The schedule reads each knob through OpContext::knob(name, default): its default
// schedule is the template at the defaults, and a tuner's point is the same schedule at
// other values (recorded, like every schedule, as a Trace).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tessel::schedules {

/// One tunable parameter and its candidate values.
struct KnobSpec {
  std::string name;
  std::vector<int64_t> values;
};

/// The search space of one node's schedule; no knobs: not tunable.
struct TuningSpace {
  std::string template_name;
  std::vector<KnobSpec> knobs;
};

/// Values chosen for some knobs; the others take the schedule's defaults.
class KnobValues {
 public:
  void set(const std::string& name, int64_t value) { values_[name] = value; }
  /// The chosen value of `name`, or `default_value` when none was chosen.
  int64_t get(const std::string& name, int64_t default_value) const {
    auto found = values_.find(name);
    return found == values_.end() ? default_value : found->second;
  }
  /// A switch knob's chosen value (non-zero: on), or nullopt when none was chosen: the
  /// schedule then decides.
  std::optional<bool> flag(const std::string& name) const {
    auto found = values_.find(name);
    return found == values_.end() ? std::nullopt : std::optional<bool>(found->second != 0);
  }
  bool empty() const { return values_.empty(); }

 private:
  std::map<std::string, int64_t> values_;
};

/// `values` without those above `limit` (the smallest is kept when all are above).
std::vector<int64_t> values_up_to(std::vector<int64_t> values, int64_t limit);

}  // namespace tessel::schedules
