// StringNormalizer and CastString on host memory (see string_ops.h).
#include "runtime/string_ops.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <locale>
#include <optional>
#include <string_view>

#include "runtime/error.h"
#include "runtime/ndarray_element.h"

namespace tessel::runtime {
namespace {

// ---- StringNormalizer ------------------------------------------------------------------

enum class CaseAction : int64_t { None = 0, Lower = 1, Upper = 2 };

/// Unicode's default case mapping, from the C.UTF-8 locale's wide-character table (the
/// same in every locale but Turkish, Azeri and Lithuanian, which the compiler refuses).
const std::ctype<wchar_t>& unicode_case() {
  static const std::locale locale = [] {
    try {
      return std::locale("C.UTF-8");
    } catch (const std::runtime_error&) {
      throw Error("StringNormalizer: the C.UTF-8 locale, whose case table it uses, is missing");
    }
  }();
  return std::use_facet<std::ctype<wchar_t>>(locale);
}

/// Appends code point `c` to `out` as UTF-8.
void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

/// `text` with every code point mapped to lower (or upper) case. Bytes that are not valid
/// UTF-8 are kept as they are.
std::string change_case(std::string_view text, CaseAction action) {
  if (action == CaseAction::None) return std::string(text);
  const std::ctype<wchar_t>& table = unicode_case();
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    auto byte = static_cast<unsigned char>(text[i]);
    size_t length = byte < 0x80         ? 1
                    : (byte >> 5) == 6  ? 2
                    : (byte >> 4) == 14 ? 3
                    : (byte >> 3) == 30 ? 4
                                        : 0;
    char32_t c = length == 1   ? byte
                 : length == 2 ? byte & 0x1F
                 : length == 3 ? byte & 0x0F
                               : byte & 0x07;
    bool valid = length > 0 && i + length <= text.size();
    for (size_t k = 1; valid && k < length; ++k) {
      auto next = static_cast<unsigned char>(text[i + k]);
      valid = (next >> 6) == 2;
      c = (c << 6) | (next & 0x3F);
    }
    if (!valid) {
      out += text[i++];
      continue;
    }
    auto wide = static_cast<wchar_t>(c);
    append_utf8(out, static_cast<char32_t>(action == CaseAction::Lower ? table.tolower(wide)
                                                                       : table.toupper(wide)));
    i += length;
  }
  return out;
}

std::vector<int64_t> string_normalizer(const std::vector<int64_t>& params,
                                       const std::vector<std::string>& stop_words,
                                       const ConstView& in, const OutputAllocator& allocate,
                                       StringStore& store) {
  auto action = static_cast<CaseAction>(params[0]);
  bool case_sensitive = params[1] != 0;
  auto key = [&](std::string_view text) {
    return case_sensitive ? std::string(text) : change_case(text, CaseAction::Lower);
  };
  std::vector<std::string> stops;
  for (const std::string& word : stop_words) stops.push_back(key(word));
  int64_t n = shape_product(in.shape);
  std::vector<const char*> kept;
  for (int64_t k = 0; k < n; ++k) {
    std::string_view text = string_element(in.data, k);
    if (std::find(stops.begin(), stops.end(), key(text)) != stops.end()) continue;
    kept.push_back(store.add(change_case(text, action)));
  }
  if (kept.empty()) kept.push_back(store.add(""));
  std::vector<int64_t> shape = in.shape;
  shape.back() = static_cast<int64_t>(kept.size());
  std::memcpy(allocate(0, shape), kept.data(), kept.size() * sizeof(const char*));
  return shape;
}

// ---- CastString: numbers to text ---------------------------------------------------------

/// The shortest plain decimal that reads back as `value` (as a T: float or double).
template <class T>
std::string plain_decimal(T value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "INF" : "-INF";
  char text[400];  // a double's longest plain form is 327 digits and a sign
  std::to_chars_result r = std::to_chars(text, text + sizeof text, value, std::chars_format::fixed);
  return std::string(text, r.ptr);
}

std::string number_text(const void* data, DType t, int64_t k) {
  if (t == DType::Float(64)) return plain_decimal(static_cast<const double*>(data)[k]);
  if (t.code == DTypeCode::Float || t.code == DTypeCode::BFloat)
    return plain_decimal(static_cast<float>(element_as_long_double(data, t, k)));
  if (t == DType::Bool()) return static_cast<const uint8_t*>(data)[k] ? "1" : "0";
  // Integers of up to 64 bits are exact in a long double.
  long double v = element_as_long_double(data, t, k);
  return t.code == DTypeCode::UInt ? std::to_string(static_cast<uint64_t>(v))
                                   : std::to_string(static_cast<int64_t>(v));
}

// ---- CastString: text to numbers ---------------------------------------------------------

[[noreturn]] void not_a_number(int64_t k, std::string_view text, const std::string& why) {
  throw Error("Cast: element " + std::to_string(k) + " ('" + std::string(text) + "') " + why);
}

/// Whether `text` equals `word` ignoring ASCII case.
bool equals_ignoring_case(std::string_view text, std::string_view word) {
  if (text.size() != word.size()) return false;
  for (size_t i = 0; i < text.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) !=
        std::tolower(static_cast<unsigned char>(word[i])))
      return false;
  return true;
}

/// `text` as a T (float or double, correctly rounded): a plain or scientific decimal with an
/// optional sign, or INF / NaN; beyond T's range, +-INF or +-0.
template <class T>
T parse_real(std::string_view text, int64_t k) {
  std::string_view digits = text;
  bool negative = !digits.empty() && digits[0] == '-';
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) digits.remove_prefix(1);
  T magnitude = 0;
  if (equals_ignoring_case(digits, "inf")) {
    magnitude = std::numeric_limits<T>::infinity();
  } else if (equals_ignoring_case(digits, "nan")) {
    magnitude = std::numeric_limits<T>::quiet_NaN();
  } else {
    // from_chars takes no sign here and no words ("infinity"): a number starts with a digit
    // or a point.
    bool starts_well = !digits.empty() &&
                       (std::isdigit(static_cast<unsigned char>(digits[0])) || digits[0] == '.');
    std::from_chars_result r =
        std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
    if (!starts_well || r.ptr != digits.data() + digits.size() ||
        r.ec == std::errc::invalid_argument)
      not_a_number(k, text, "is not a number");
    if (r.ec == std::errc::result_out_of_range)
      magnitude = static_cast<T>(std::strtod(std::string(digits).c_str(), nullptr));
  }
  return negative ? -magnitude : magnitude;
}

/// Writes the number `text` names to element k of a floating-point output (bfloat16 rounds
/// the float to nearest even).
void write_float(void* out, DType t, int64_t k, std::string_view text) {
  if (t == DType::Float(64)) {
    static_cast<double*>(out)[k] = parse_real<double>(text, k);
  } else if (t == DType::Float(32)) {
    static_cast<float*>(out)[k] = parse_real<float>(text, k);
  } else if (t == DType::Float(16)) {
    static_cast<_Float16*>(out)[k] = static_cast<_Float16>(parse_real<double>(text, k));
  } else {  // bfloat16: the float's high half, rounded to nearest even; NaN stays quiet NaN
    float f = parse_real<float>(text, k);
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    static_cast<uint16_t*>(out)[k] =
        std::isnan(f) ? static_cast<uint16_t>((bits >> 16) | 0x40)
                      : static_cast<uint16_t>((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
  }
}

/// Reads all of `text` as an integer of type I; nothing when it is not one.
template <class I>
std::optional<I> parse_whole(std::string_view text) {
  I value;
  std::from_chars_result r = std::from_chars(text.data(), text.data() + text.size(), value);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

/// The integer `text` names: an integer (with an optional sign), or a decimal's integral part.
__int128 parse_integer(std::string_view text, int64_t k) {
  std::string_view digits = text;
  if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
  if (std::optional<int64_t> v = parse_whole<int64_t>(digits)) return *v;
  if (std::optional<uint64_t> v = parse_whole<uint64_t>(digits)) return *v;
  double v = std::trunc(parse_real<double>(text, k));
  if (!std::isfinite(v) || std::fabs(v) >= 0x1p64)
    not_a_number(k, text, "is no integer of 64 bits");
  return static_cast<__int128>(v);
}

/// Writes the integer `text` names to element k of an integer or bool output.
void write_integer(void* out, DType t, int64_t k, std::string_view text) {
  __int128 value = parse_integer(text, k);
  if (t == DType::Bool()) {
    static_cast<uint8_t*>(out)[k] = value != 0;
    return;
  }
  bool is_unsigned = t.code == DTypeCode::UInt;
  __int128 low = is_unsigned ? 0 : -(__int128{1} << (t.bits - 1));
  __int128 high = (__int128{1} << (is_unsigned ? t.bits : t.bits - 1)) - 1;
  if (value < low || value > high) not_a_number(k, text, "is out of range for " + t.to_string());
  auto bits = static_cast<uint64_t>(value);
  std::memcpy(static_cast<uint8_t*>(out) + k * t.bytes(), &bits, static_cast<size_t>(t.bytes()));
}

DType cast_target(const std::vector<int64_t>& params) {
  if (params.size() != 2) throw Error("CastString takes 2 parameters (the target's code and bits)");
  DType to{static_cast<DTypeCode>(params[0]), static_cast<uint8_t>(params[1])};
  bool valid = to == DType::String() || to == DType::Bool() ||
               (to.code == DTypeCode::Float && (to.bits == 16 || to.bits == 32 || to.bits == 64)) ||
               (to.code == DTypeCode::BFloat && to.bits == 16) ||
               ((to.code == DTypeCode::Int || to.code == DTypeCode::UInt) &&
                (to.bits == 8 || to.bits == 16 || to.bits == 32 || to.bits == 64));
  if (!valid || params[0] < 0 || params[0] > 255 || params[1] < 0 || params[1] > 64)
    throw Error("CastString: the target type (code " + std::to_string(params[0]) + ", " +
                std::to_string(params[1]) + " bits) is not an element type");
  return to;
}

}  // namespace

bool is_string_step(StepKind kind) {
  return kind == StepKind::StringNormalizer || kind == StepKind::CastString;
}

DataDependentOutputs string_step_outputs(StepKind kind, const std::vector<int64_t>& params,
                                         const std::vector<DType>& types,
                                         const std::vector<std::vector<int64_t>>& shapes) {
  // CastLike passes its 'like' input too, which only names the target type.
  size_t most = kind == StepKind::CastString ? 2 : 1;
  if (shapes.empty() || shapes.size() > most)
    throw Error(std::string(step_kind_name(kind)) + " takes " +
                (most == 2 ? "1 or 2 inputs" : "1 input") + ", got " +
                std::to_string(shapes.size()));
  DataDependentOutputs out;
  if (kind == StepKind::StringNormalizer) {
    if (params.size() != 2 || params[0] < 0 || params[0] > 2)
      throw Error("StringNormalizer takes 2 parameters (case action 0 to 2, case-sensitive)");
    const std::vector<int64_t>& shape = shapes[0];
    if (types[0] != DType::String() || shape.empty() || shape.size() > 2 ||
        (shape.size() == 2 && shape[0] != 1))
      throw Error("StringNormalizer: the input must be a string tensor of shape [C] or [1, C]");
    std::vector<int64_t> capacity = shape;
    capacity.back() = std::max<int64_t>(capacity.back(), 1);
    out.dtypes = {DType::String()};
    out.capacities = {capacity};
    out.dynamic_dims = {static_cast<int32_t>(shape.size() - 1)};
    return out;
  }
  DType to = cast_target(params);
  if ((types[0] == DType::String()) == (to == DType::String()))
    throw Error("CastString: casts " + types[0].to_string() + " to " + to.to_string() +
                "; one side must be a string");
  out.dtypes = {to};
  out.capacities = {shapes[0]};
  out.dynamic_dims = {-1};
  return out;
}

std::vector<int64_t> run_string_step(StepKind kind, const std::vector<int64_t>& params,
                                     const std::vector<std::string>& strings, const ConstView& in,
                                     const OutputAllocator& allocate, StringStore& store) {
  if (kind == StepKind::StringNormalizer)
    return string_normalizer(params, strings, in, allocate, store);
  DType to = cast_target(params);
  int64_t n = shape_product(in.shape);
  void* output = allocate(0, in.shape);
  for (int64_t k = 0; k < n; ++k) {
    if (to == DType::String()) {
      static_cast<const char**>(output)[k] = store.add(number_text(in.data, in.dtype, k));
      continue;
    }
    std::string_view text = string_element(in.data, k);
    if (to.code == DTypeCode::Float || to.code == DTypeCode::BFloat)
      write_float(output, to, k, text);
    else
      write_integer(output, to, k, text);
  }
  return in.shape;
}

}  // namespace tessel::runtime
