// The reasons behind the operators tessel does not compile yet.
#include "ops/unsupported.h"

#include <map>

namespace tessel::ops {

std::string unsupported_reason(const std::string& op_type) {
  static const std::map<std::string, std::string> reasons = [] {
    std::map<std::string, std::string> r;
    auto add = [&r](std::initializer_list<const char*> ops, const char* why) {
      for (const char* op : ops) r[op] = why;
    };
    add({"StringSplit"},
        "its output shape depends on input values, and kernels are compiled for static shapes");
    add({"RegexFullMatch"},
        "tessel's string tensors serve StringNormalizer, Cast and CastLike; it has no regular "
        "expressions");
    return r;
  }();
  auto it = reasons.find(op_type);
  return it != reasons.end() ? it->second : "no compute is registered for it yet";
}

}  // namespace tessel::ops
