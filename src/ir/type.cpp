// DataType text form.
#include "ir/type.h"

#include "support/error.h"

namespace tessel::ir {

std::string DataType::to_string() const {
  std::string base;
  switch (code) {
    case TypeCode::Int:
      base = "int" + std::to_string(bits);
      break;
    case TypeCode::UInt:
      base = bits == 1 ? "bool" : "uint" + std::to_string(bits);
      break;
    case TypeCode::Float:
      base = "float" + std::to_string(bits);
      break;
    case TypeCode::BFloat:
      base = "bfloat" + std::to_string(bits);
      break;
    case TypeCode::Handle:
      base = "handle";
      break;
    case TypeCode::String:
      base = "string";
      break;
  }
  return lanes == 1 ? base : base + "x" + std::to_string(lanes);
}

DataType DataType::parse(const std::string& text) {
  std::string head = text;
  int lanes = 1;
  if (auto x = text.find('x'); x != std::string::npos) {
    head = text.substr(0, x);
    lanes = std::stoi(text.substr(x + 1));
  }
  auto bits_after = [&](size_t n) { return std::stoi(head.substr(n)); };
  try {
    if (head == "bool") return Bool(lanes);
    if (head == "handle") return Handle();
    if (head == "string") return String();
    if (head.rfind("bfloat", 0) == 0) return BFloat(bits_after(6), lanes);
    if (head.rfind("float", 0) == 0) return Float(bits_after(5), lanes);
    if (head.rfind("uint", 0) == 0) return UInt(bits_after(4), lanes);
    if (head.rfind("int", 0) == 0) return Int(bits_after(3), lanes);
  } catch (const std::exception&) {
  }
  TESSEL_USER_ERROR("unknown data type '", text, "'");
}

}  // namespace tessel::ir
