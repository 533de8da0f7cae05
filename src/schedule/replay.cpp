// Trace replay: typed reading of step arguments and dispatch to the primitives.
#include "schedule/replay.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>

#include "support/error.h"

namespace tessel::schedule {
namespace {

/// Reads the arguments of one step; every mistake is a CompileError naming the step.
class StepArgs {
 public:
  StepArgs(const TraceStep& step, size_t index) : step_(step), index_(index) {}

  [[noreturn]] void fail(const std::string& what) const {
    TESSEL_USER_ERROR("trace step ", index_, " (", step_.primitive, "): ", what);
  }

  const json::Value& get(const std::string& key) const {
    for (const auto& [k, v] : step_.args)
      if (k == key) return v;
    fail("missing argument '" + key + "'");
  }
  const json::Value* find(const std::string& key) const {
    for (const auto& [k, v] : step_.args)
      if (k == key) return &v;
    return nullptr;
  }
  std::string str(const std::string& key) const {
    const json::Value& v = get(key);
    if (!v.is_string()) wrong(key, "a string", v);
    return v.as_string();
  }
  int64_t integer(const std::string& key) const {
    const json::Value& v = get(key);
    if (!v.is_int()) wrong(key, "an integer", v);
    return v.as_int();
  }
  std::vector<std::string> strings(const std::string& key) const {
    const json::Value& v = get(key);
    if (!v.is_array()) wrong(key, "an array of strings", v);
    std::vector<std::string> out;
    for (const json::Value& item : v.as_array()) {
      if (!item.is_string()) wrong(key, "an array of strings", item);
      out.push_back(item.as_string());
    }
    return out;
  }
  Layout layout(const std::string& key) const {
    const json::Value* v = find(key);
    if (!v) return {};
    if (!v->is_object()) wrong(key, "a layout object", *v);
    Layout layout;
    if (const json::Value* splits = v->find("splits")) {
      if (!splits->is_array()) wrong(key + ".splits", "an array of [dim, factor]", *splits);
      for (const json::Value& s : splits->as_array()) {
        if (!s.is_array() || s.as_array().size() != 2 || !s.as_array()[0].is_int() ||
            !s.as_array()[1].is_int())
          wrong(key + ".splits", "an array of [dim, factor]", s);
        layout.split(static_cast<int>(s.as_array()[0].as_int()), s.as_array()[1].as_int());
      }
    }
    if (const json::Value* order = v->find("order")) {
      if (!order->is_array()) wrong(key + ".order", "an array of integers", *order);
      for (const json::Value& i : order->as_array()) {
        if (!i.is_int()) wrong(key + ".order", "an array of integers", i);
        layout.order.push_back(static_cast<int>(i.as_int()));
      }
    }
    return layout;
  }
  std::vector<StageRef> stage_refs(const std::string& key) const {
    std::vector<StageRef> refs;
    for (std::string& name : strings(key)) refs.emplace_back(std::move(name));
    return refs;
  }

 private:
  [[noreturn]] void wrong(const std::string& key, const char* expected,
                          const json::Value& found) const {
    fail(detail::concat("argument '", key, "' must be ", expected, ", found ", found.kind_name()));
  }

  const TraceStep& step_;
  size_t index_;
};

using Apply = std::function<void(Schedule&, const StepArgs&)>;

/// A primitive: the argument keys it takes and how to apply it.
struct Primitive {
  std::vector<std::string> keys;
  Apply apply;
};

const std::map<std::string, Primitive>& primitives() {
  static const std::map<std::string, Primitive> table{
      {"split",
       {{"stage", "loop", "factor"},
        [](Schedule& s, const StepArgs& a) {
          s.split(a.str("stage"), a.str("loop"), a.integer("factor"));
        }}},
      {"split_nparts",
       {{"stage", "loop", "nparts"},
        [](Schedule& s, const StepArgs& a) {
          s.split_nparts(a.str("stage"), a.str("loop"), a.integer("nparts"));
        }}},
      {"tile",
       {{"stage", "x", "y", "x_factor", "y_factor"},
        [](Schedule& s, const StepArgs& a) {
          s.tile(a.str("stage"), a.str("x"), a.str("y"), a.integer("x_factor"),
                 a.integer("y_factor"));
        }}},
      {"fuse",
       {{"stage", "outer", "inner"},
        [](Schedule& s, const StepArgs& a) {
          s.fuse(a.str("stage"), a.str("outer"), a.str("inner"));
        }}},
      {"reorder",
       {{"stage", "loops"},
        [](Schedule& s, const StepArgs& a) { s.reorder(a.str("stage"), a.strings("loops")); }}},
      {"parallel",
       {{"stage", "loop"},
        [](Schedule& s, const StepArgs& a) { s.parallel(a.str("stage"), a.str("loop")); }}},
      {"vectorize",
       {{"stage", "loop"},
        [](Schedule& s, const StepArgs& a) { s.vectorize(a.str("stage"), a.str("loop")); }}},
      {"unroll",
       {{"stage", "loop"},
        [](Schedule& s, const StepArgs& a) { s.unroll(a.str("stage"), a.str("loop")); }}},
      {"prefetch",
       {{"stage", "loop", "tensor"},
        [](Schedule& s, const StepArgs& a) {
          s.prefetch(a.str("stage"), a.str("loop"), s.tensor(a.str("tensor")));
        }}},
      {"compute_at",
       {{"stage", "target", "loop"},
        [](Schedule& s, const StepArgs& a) {
          s.compute_at(a.str("stage"), a.str("target"), a.str("loop"));
        }}},
      {"compute_inline",
       {{"stage"}, [](Schedule& s, const StepArgs& a) { s.compute_inline(a.str("stage")); }}},
      {"compute_root",
       {{"stage"}, [](Schedule& s, const StepArgs& a) { s.compute_root(a.str("stage")); }}},
      {"cache_read",
       {{"tensor", "scope", "readers", "layout"},
        [](Schedule& s, const StepArgs& a) {
          s.cache_read(s.tensor(a.str("tensor")), a.str("scope"), a.stage_refs("readers"),
                       a.layout("layout"));
        }}},
      {"cache_write",
       {{"tensor", "scope", "layout"},
        [](Schedule& s, const StepArgs& a) {
          s.cache_write(s.tensor(a.str("tensor")), a.str("scope"), a.layout("layout"));
        }}},
      {"rfactor",
       {{"tensor", "loop", "factor_axis"},
        [](Schedule& s, const StepArgs& a) {
          int64_t axis = a.integer("factor_axis");
          if (axis < 0 || axis > std::numeric_limits<int>::max())
            a.fail(detail::concat("factor_axis ", axis, " is out of range"));
          s.rfactor(s.tensor(a.str("tensor")), a.str("loop"), static_cast<int>(axis));
        }}},
  };
  return table;
}

}  // namespace

void apply_step(Schedule& schedule, const TraceStep& step, size_t index) {
  StepArgs args(step, index);
  auto it = primitives().find(step.primitive);
  if (it == primitives().end()) args.fail("unknown primitive");
  const Primitive& primitive = it->second;
  for (const auto& [key, value] : step.args)
    if (std::find(primitive.keys.begin(), primitive.keys.end(), key) == primitive.keys.end())
      args.fail("unexpected argument '" + key + "'");
  primitive.apply(schedule, args);
}

Schedule replay(const std::vector<te::Tensor>& outputs, const Trace& trace) {
  Schedule schedule(outputs);
  for (size_t i = 0; i < trace.steps().size(); ++i) apply_step(schedule, trace.steps()[i], i);
  return schedule;
}

}  // namespace tessel::schedule
