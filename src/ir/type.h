// DataType: the scalar or vector type of a value in tessel's IRs.
//
// A type is {code, bits, lanes}: float32 is {Float, 32, 1}; an 8-wide float32 vector is
// {Float, 32, 8}; bool is {UInt, 1, 1}; a buffer's base address is {Handle, 64, 1}; a
// string element is {String, 64, 1}: a pointer to NUL-terminated UTF-8 text, which only
// the runtime's host steps read and write (runtime/string_ops.h), never a kernel.
// fp32 is the main type today; fp16, bf16 and int8 fit the same description.
#pragma once

#include <cstdint>
#include <string>

namespace tessel::ir {

enum class TypeCode : uint8_t { Int, UInt, Float, BFloat, Handle, String };

/// The type of an expression: element kind, element width in bits, vector lanes.
struct DataType {
  TypeCode code = TypeCode::Int;
  uint8_t bits = 32;
  uint16_t lanes = 1;

  static constexpr DataType make(TypeCode c, int b, int l = 1) {
    return DataType{c, static_cast<uint8_t>(b), static_cast<uint16_t>(l)};
  }
  static constexpr DataType Int(int b, int l = 1) { return make(TypeCode::Int, b, l); }
  static constexpr DataType UInt(int b, int l = 1) { return make(TypeCode::UInt, b, l); }
  static constexpr DataType Float(int b, int l = 1) { return make(TypeCode::Float, b, l); }
  static constexpr DataType BFloat(int b, int l = 1) { return make(TypeCode::BFloat, b, l); }
  static constexpr DataType Bool(int l = 1) { return UInt(1, l); }
  static constexpr DataType Handle() { return make(TypeCode::Handle, 64, 1); }
  static constexpr DataType String() { return make(TypeCode::String, 64, 1); }
  /// The type of every loop variable, extent and buffer index.
  static constexpr DataType Index() { return Int(64); }

  constexpr bool is_int() const { return code == TypeCode::Int; }
  constexpr bool is_uint() const { return code == TypeCode::UInt && bits != 1; }
  constexpr bool is_bool() const { return code == TypeCode::UInt && bits == 1; }
  constexpr bool is_float() const { return code == TypeCode::Float || code == TypeCode::BFloat; }
  constexpr bool is_handle() const { return code == TypeCode::Handle; }
  constexpr bool is_string() const { return code == TypeCode::String; }
  /// Integer of either signedness (bool excluded).
  constexpr bool is_integer() const { return is_int() || is_uint(); }
  constexpr bool is_scalar() const { return lanes == 1; }
  constexpr bool is_vector() const { return lanes > 1; }
  constexpr DataType with_lanes(int l) const { return make(code, bits, l); }
  constexpr DataType element() const { return with_lanes(1); }
  /// Size in bytes of one element (bool takes a byte in memory).
  constexpr int bytes() const { return bits == 1 ? 1 : bits / 8; }

  constexpr bool operator==(const DataType& o) const {
    return code == o.code && bits == o.bits && lanes == o.lanes;
  }
  constexpr bool operator!=(const DataType& o) const { return !(*this == o); }

  /// "float32", "int64x8", "bool", "handle", "string".
  std::string to_string() const;
  /// Parses the text written by to_string; throws CompileError on anything else.
  static DataType parse(const std::string& text);
};

}  // namespace tessel::ir
