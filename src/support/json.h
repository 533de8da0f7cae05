// A small JSON value with a writer and a reader, for schedule traces and records.
//
// Objects keep their keys in insertion order so that written text is deterministic.
// Numbers are integers (int64) or doubles; the reader keeps a number without '.', 'e' or
// 'E' as an integer. Malformed text is a CompileError giving the offset and what was
// expected.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace tessel::json {

class Value;
using Array = std::vector<Value>;
/// Key/value pairs in insertion order.
using Object = std::vector<std::pair<std::string, Value>>;

/// A JSON value.
class Value {
 public:
  Value() = default;  ///< null
  Value(bool b) : data_(b) {}
  Value(int v) : data_(int64_t{v}) {}
  Value(int64_t v) : data_(v) {}
  Value(double v) : data_(v) {}
  Value(const char* s) : data_(std::string(s)) {}
  Value(std::string s) : data_(std::move(s)) {}
  Value(Array a) : data_(std::move(a)) {}
  Value(Object o) : data_(std::move(o)) {}

  bool is_null() const { return std::holds_alternative<std::monostate>(data_); }
  bool is_bool() const { return std::holds_alternative<bool>(data_); }
  bool is_int() const { return std::holds_alternative<int64_t>(data_); }
  bool is_double() const { return std::holds_alternative<double>(data_); }
  bool is_string() const { return std::holds_alternative<std::string>(data_); }
  bool is_array() const { return std::holds_alternative<Array>(data_); }
  bool is_object() const { return std::holds_alternative<Object>(data_); }

  /// Accessors; an InternalError when the value holds another kind (check first).
  bool as_bool() const;
  int64_t as_int() const;
  double as_double() const;
  const std::string& as_string() const;
  const Array& as_array() const;
  const Object& as_object() const;

  /// The member named `key` of an object, or nullptr.
  const Value* find(const std::string& key) const;

  /// "null", "bool", "integer", "number", "string", "array" or "object".
  const char* kind_name() const;

  bool operator==(const Value& other) const { return data_ == other.data_; }

 private:
  std::variant<std::monostate, bool, int64_t, double, std::string, Array, Object> data_;
};

/// Compact JSON text.
std::string write(const Value& value);
/// Parses JSON text; CompileError on malformed input.
Value parse(const std::string& text);

}  // namespace tessel::json
