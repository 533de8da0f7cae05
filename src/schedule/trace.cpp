// Trace serialisation to and from JSON.
#include "schedule/trace.h"

#include "support/error.h"

namespace tessel::schedule {

namespace {
constexpr int64_t kTraceVersion = 1;
}

std::string Trace::to_json() const {
  json::Array steps;
  for (const TraceStep& step : steps_) {
    json::Object obj{{"primitive", step.primitive}};
    obj.insert(obj.end(), step.args.begin(), step.args.end());
    steps.emplace_back(std::move(obj));
  }
  return json::write(json::Object{{"version", kTraceVersion}, {"steps", std::move(steps)}});
}

Trace Trace::from_json(const std::string& text) {
  json::Value doc = json::parse(text);
  if (!doc.is_object()) TESSEL_USER_ERROR("trace: expected a JSON object, found ", doc.kind_name());
  const json::Value* version = doc.find("version");
  if (!version || !version->is_int() || version->as_int() != kTraceVersion)
    TESSEL_USER_ERROR("trace: expected \"version\": ", kTraceVersion);
  const json::Value* steps = doc.find("steps");
  if (!steps || !steps->is_array()) TESSEL_USER_ERROR("trace: expected a \"steps\" array");
  Trace trace;
  const json::Array& items = steps->as_array();
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i].is_object())
      TESSEL_USER_ERROR("trace step ", i, ": expected an object, found ", items[i].kind_name());
    TraceStep step;
    bool named = false;
    for (const auto& [key, value] : items[i].as_object()) {
      if (key != "primitive") {
        step.args.emplace_back(key, value);
        continue;
      }
      if (!value.is_string())
        TESSEL_USER_ERROR("trace step ", i, ": \"primitive\" must be a string, found ",
                          value.kind_name());
      step.primitive = value.as_string();
      named = true;
    }
    if (!named) TESSEL_USER_ERROR("trace step ", i, ": missing \"primitive\"");
    trace.append(std::move(step));
  }
  return trace;
}

}  // namespace tessel::schedule
