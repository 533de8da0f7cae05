// JSON writer and recursive-descent reader.
#include "support/json.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "support/error.h"

namespace tessel::json {

// ---- Value ----------------------------------------------------------------------------

#define TESSEL_JSON_ACCESS(ret, name, type, label)                    \
  ret Value::name() const {                                           \
    const auto* p = std::get_if<type>(&data_);                        \
    TESSEL_ICHECK(p, "json value is ", kind_name(), ", not ", label); \
    return *p;                                                        \
  }
TESSEL_JSON_ACCESS(bool, as_bool, bool, "bool")
TESSEL_JSON_ACCESS(int64_t, as_int, int64_t, "integer")
TESSEL_JSON_ACCESS(const std::string&, as_string, std::string, "string")
TESSEL_JSON_ACCESS(const Array&, as_array, Array, "array")
TESSEL_JSON_ACCESS(const Object&, as_object, Object, "object")
#undef TESSEL_JSON_ACCESS

double Value::as_double() const {
  if (is_int()) return static_cast<double>(as_int());
  const auto* p = std::get_if<double>(&data_);
  TESSEL_ICHECK(p, "json value is ", kind_name(), ", not a number");
  return *p;
}

const Value* Value::find(const std::string& key) const {
  for (const auto& [k, v] : as_object())
    if (k == key) return &v;
  return nullptr;
}

const char* Value::kind_name() const {
  switch (data_.index()) {
    case 0:
      return "null";
    case 1:
      return "bool";
    case 2:
      return "integer";
    case 3:
      return "number";
    case 4:
      return "string";
    case 5:
      return "array";
    default:
      return "object";
  }
}

// ---- writer ---------------------------------------------------------------------------

namespace {

void write_string(std::ostringstream& os, const std::string& s) {
  os << '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        os << "\\\"";
        break;
      case '\\':
        os << "\\\\";
        break;
      case '\n':
        os << "\\n";
        break;
      case '\t':
        os << "\\t";
        break;
      case '\r':
        os << "\\r";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          os << buf;
        } else {
          os << c;
        }
    }
  }
  os << '"';
}

void write_value(std::ostringstream& os, const Value& v) {
  if (v.is_null()) {
    os << "null";
  } else if (v.is_bool()) {
    os << (v.as_bool() ? "true" : "false");
  } else if (v.is_int()) {
    os << v.as_int();
  } else if (v.is_double()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v.as_double());
    std::string text = buf;
    if (text.find_first_of(".eE") == std::string::npos) text += ".0";
    os << text;
  } else if (v.is_string()) {
    write_string(os, v.as_string());
  } else if (v.is_array()) {
    os << '[';
    const Array& a = v.as_array();
    for (size_t i = 0; i < a.size(); ++i) {
      if (i) os << ',';
      write_value(os, a[i]);
    }
    os << ']';
  } else {
    os << '{';
    const Object& o = v.as_object();
    for (size_t i = 0; i < o.size(); ++i) {
      if (i) os << ',';
      write_string(os, o[i].first);
      os << ':';
      write_value(os, o[i].second);
    }
    os << '}';
  }
}

// ---- reader ---------------------------------------------------------------------------

class Reader {
 public:
  explicit Reader(const std::string& text) : text_(text) {}

  Value document() {
    Value v = value();
    skip_space();
    if (pos_ != text_.size()) fail("end of input");
    return v;
  }

 private:
  [[noreturn]] void fail(const char* expected) {
    std::string found = pos_ < text_.size() ? std::string("'") + text_[pos_] + "'" : "end of input";
    TESSEL_USER_ERROR("malformed JSON at offset ", pos_, ": expected ", expected, ", found ",
                      found);
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool consume(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c, const char* what) {
    if (!consume(c)) fail(what);
  }
  bool consume_word(const char* word) {
    size_t n = std::char_traits<char>::length(word);
    if (text_.compare(pos_, n, word) != 0) return false;
    pos_ += n;
    return true;
  }

  Value value() {
    if (++depth_ > kMaxDepth) fail("less nesting");
    skip_space();
    if (pos_ >= text_.size()) fail("a value");
    Value v;
    char c = text_[pos_];
    if (c == '{')
      v = object();
    else if (c == '[')
      v = array();
    else if (c == '"')
      v = string();
    else if (c == '-' || std::isdigit(static_cast<unsigned char>(c)))
      v = number();
    else if (consume_word("true"))
      v = true;
    else if (consume_word("false"))
      v = false;
    else if (consume_word("null"))
      v = Value();
    else
      fail("a value");
    --depth_;
    return v;
  }

  Value object() {
    expect('{', "'{'");
    Object members;
    if (consume('}')) return members;
    do {
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != '"') fail("a member name");
      std::string key = string();
      expect(':', "':'");
      members.emplace_back(std::move(key), value());
    } while (consume(','));
    expect('}', "',' or '}'");
    return members;
  }

  Value array() {
    expect('[', "'['");
    Array items;
    if (consume(']')) return items;
    do {
      items.push_back(value());
    } while (consume(','));
    expect(']', "',' or ']'");
    return items;
  }

  std::string string() {
    ++pos_;  // opening quote
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (static_cast<unsigned char>(c) < 0x20) fail("an escaped control character");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) fail("an escape");
      char e = text_[pos_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'u':
          out += unicode_escape();
          break;
        default:
          --pos_;
          fail("a valid escape");
      }
    }
    if (pos_ >= text_.size()) fail("'\"'");
    ++pos_;
    return out;
  }

  /// \uXXXX for code points below 0x80 (traces hold ASCII names); others are rejected.
  char unicode_escape() {
    if (pos_ + 4 > text_.size()) fail("four hex digits");
    std::string hex = text_.substr(pos_, 4);
    for (char h : hex)
      if (!std::isxdigit(static_cast<unsigned char>(h))) fail("four hex digits");
    long code = std::strtol(hex.c_str(), nullptr, 16);
    if (code >= 0x80) fail("an ASCII \\u escape");
    pos_ += 4;
    return static_cast<char>(code);
  }

  Value number() {
    size_t start = pos_;
    if (text_[pos_] == '-') ++pos_;
    bool is_float = false;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '.' || c == 'e' || c == 'E' || c == '+' || (c == '-' && pos_ > start)) {
        is_float = true;
      } else if (!std::isdigit(static_cast<unsigned char>(c))) {
        break;
      }
      ++pos_;
    }
    std::string token = text_.substr(start, pos_ - start);
    char* end = nullptr;
    errno = 0;
    if (!is_float) {
      long long v = std::strtoll(token.c_str(), &end, 10);
      if (end != token.c_str() + token.size() || errno == ERANGE) {
        pos_ = start;
        fail("an integer in range");
      }
      return int64_t{v};
    }
    double d = std::strtod(token.c_str(), &end);
    if (end != token.c_str() + token.size()) {
      pos_ = start;
      fail("a number");
    }
    return d;
  }

  static constexpr int kMaxDepth = 256;
  const std::string& text_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

std::string write(const Value& value) {
  std::ostringstream os;
  write_value(os, value);
  return os.str();
}

Value parse(const std::string& text) {
  return Reader(text).document();
}

}  // namespace tessel::json
