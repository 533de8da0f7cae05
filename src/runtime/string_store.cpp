// StringStore and string element access.
#include "runtime/string_store.h"

#include "runtime/error.h"

namespace tessel::runtime {

const char* StringStore::add(std::string_view text) {
  if (text.find('\0') != std::string_view::npos)
    throw Error("a string element holds a NUL character at byte " +
                std::to_string(text.find('\0')) + "; string tensors hold NUL-terminated text");
  return strings_.emplace_back(text).c_str();
}

std::string_view string_element(const void* data, int64_t k) {
  const char* text = static_cast<const char* const*>(data)[k];
  return text ? std::string_view(text) : std::string_view();
}

}  // namespace tessel::runtime
