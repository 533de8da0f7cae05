// StringStore: owns the text that string tensors' elements point to.
//
// A string element is a `const char*` to NUL-terminated UTF-8 text (DType::String), so
// that a string tensor has a fixed element size like every other tensor: the arena, the
// plan's copies and slices move the pointers, and the text stays where a store put it.
// An NDArray of strings owns one store; a model run owns another for the strings its host
// steps make, which live until the next run.
#pragma once

#include <deque>
#include <string>
#include <string_view>

namespace tessel::runtime {

class StringStore {
 public:
  /// Keeps a copy of `text` and returns its NUL-terminated address, valid until clear()
  /// or the store's end. Throws Error when `text` holds a NUL character (it would end the
  /// element early).
  const char* add(std::string_view text);
  /// Forgets every string added.
  void clear() { strings_.clear(); }

 private:
  std::deque<std::string> strings_;  // a deque never moves its elements
};

/// The text of string element `k` of `data` (an array of `const char*`); a null element
/// reads as empty.
std::string_view string_element(const void* data, int64_t k);

}  // namespace tessel::runtime
