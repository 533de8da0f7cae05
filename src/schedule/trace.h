// The Trace: the list of schedule primitives applied, replayable on a fresh DAG.
//
// Each step is a primitive name and its named arguments (stage names, loop names, ints,
// a layout), exactly what is needed to apply it again. JSON form:
//   {"version": 1, "steps": [
//     {"primitive": "split", "stage": "C", "loop": "i", "factor": 4},
//     {"primitive": "cache_read", "tensor": "B", "scope": "global", "readers": ["C"],
//      "layout": {"splits": [[1, 16]], "order": [1, 0, 2]}}, ...]}
// The arguments of every primitive are listed in schedule.h (and replay.cpp).
#pragma once

#include <string>
#include <vector>

#include "support/json.h"

namespace tessel::schedule {

/// One applied primitive.
struct TraceStep {
  std::string primitive;
  /// Named arguments, in a fixed order per primitive.
  json::Object args;

  bool operator==(const TraceStep& o) const { return primitive == o.primitive && args == o.args; }
};

class Trace {
 public:
  void append(TraceStep step) { steps_.push_back(std::move(step)); }
  const std::vector<TraceStep>& steps() const { return steps_; }
  bool empty() const { return steps_.empty(); }

  /// JSON text (see the top of this file).
  std::string to_json() const;
  /// Parses JSON text written by to_json; CompileError naming the step when malformed.
  /// Arguments are checked when the trace is replayed.
  static Trace from_json(const std::string& text);

  bool operator==(const Trace& o) const { return steps_ == o.steps_; }

 private:
  std::vector<TraceStep> steps_;
};

}  // namespace tessel::schedule
