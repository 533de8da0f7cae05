// .npy reading and writing. The header is a Python dict literal, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and a newline so that the data starts on a 64-byte boundary.
#include "npy.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <limits>
#include <vector>

#include "frontend/onnx_importer.h"
#include "support/error.h"

namespace tessel::cli {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

struct Header {
  runtime::DType dtype;
  std::vector<int64_t> shape;
};

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  TESSEL_USER_ERROR("'", path, "': ", problem);
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open the file");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) fail(path, "cannot read the file");
  return bytes;
}

/// A tiny reader for the header's dict literal.
class DictParser {
 public:
  DictParser(const std::string& text, const std::string& path) : text_(text), path_(path) {}

  /// The text following `'key':`, with spaces skipped.
  void seek_value(const char* key) {
    size_t at = find_key(key);
    if (at == std::string::npos)
      fail(path_, std::string("bad .npy header: no '") + key + "' in " + text_);
    pos_ = at;
    skip_spaces();
    expect(':');
    skip_spaces();
  }

  std::string quoted() {
    char quote = peek();
    if (quote != '\'' && quote != '"') bad("a quoted string");
    size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string::npos) bad("a closing quote");
    std::string s = text_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return s;
  }

  bool boolean() {
    if (text_.compare(pos_, 4, "True") == 0) return true;
    if (text_.compare(pos_, 5, "False") == 0) return false;
    bad("True or False");
  }

  std::vector<int64_t> tuple() {
    std::vector<int64_t> values;
    expect('(');
    skip_spaces();
    while (peek() != ')') {
      if (!std::isdigit(static_cast<unsigned char>(peek()))) bad("a dimension");
      int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (v > (std::numeric_limits<int64_t>::max() - 9) / 10) bad("a dimension below 2^63");
        v = v * 10 + (text_[pos_++] - '0');
      }
      values.push_back(v);
      skip_spaces();
      if (peek() == ',') ++pos_;
      skip_spaces();
    }
    return values;
  }

 private:
  size_t find_key(const char* key) const {
    for (const char* quote : {"'", "\""}) {
      std::string k = quote + std::string(key) + quote;
      size_t at = text_.find(k);
      if (at != std::string::npos) return at + k.size();
    }
    return std::string::npos;
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_spaces() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  void expect(char c) {
    if (peek() != c) bad(std::string("'") + c + "'");
    ++pos_;
  }
  [[noreturn]] void bad(const std::string& expected) const {
    fail(path_, "bad .npy header: expected " + expected + " at column " + std::to_string(pos_) +
                    " of " + text_);
  }

  const std::string& text_;
  const std::string& path_;
  size_t pos_ = 0;
};

runtime::DType dtype_of_descr(const std::string& descr, const std::string& path) {
  std::string unsupported = "unsupported dtype '" + descr +
                            "' (supported: f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1, little-endian)";
  if (descr.size() < 3) fail(path, unsupported);
  char order = descr[0], kind = descr[1];
  std::string size = descr.substr(2);
  if (size.size() != 1 || !std::isdigit(static_cast<unsigned char>(size[0])))
    fail(path, unsupported);
  int bytes = size[0] - '0';
  if (order == '>' && bytes > 1)
    fail(path, "big-endian data ('" + descr + "') is not supported: save it little-endian");
  if (order != '<' && order != '|' && order != '=' && order != '>') fail(path, unsupported);
  bool sized = bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8;
  if (kind == 'b' && bytes == 1) return runtime::DType::Bool();
  if (kind == 'f' && sized && bytes >= 2) return runtime::DType::Float(8 * bytes);
  if (kind == 'i' && sized) return runtime::DType::Int(8 * bytes);
  if (kind == 'u' && sized) return runtime::DType::UInt(8 * bytes);
  fail(path, unsupported);
}

std::string descr_of(runtime::DType t) {
  if (t == runtime::DType::Bool()) return "|b1";
  const char* kinds = "iuf";
  if (t.code == runtime::DTypeCode::BFloat || t.is_string())
    TESSEL_USER_ERROR("write_npy: ", t.to_string(), " arrays cannot be written as .npy");
  return std::string(t.bytes() == 1 ? "|" : "<") + kinds[static_cast<int>(t.code)] +
         std::to_string(t.bytes());
}

/// Parses the header; `data_offset` receives where the array data starts.
Header parse_header(const std::string& bytes, const std::string& path, size_t& data_offset) {
  if (bytes.size() < kMagicSize || bytes.compare(0, kMagicSize, kMagic, kMagicSize) != 0)
    fail(path, "not a .npy file (no \\x93NUMPY magic)");
  if (bytes.size() < 10) fail(path, "truncated .npy header");
  int major = static_cast<uint8_t>(bytes[6]);
  if (major < 1 || major > 3)
    fail(path, "unsupported .npy format version " + std::to_string(major));
  size_t length_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_bytes) fail(path, "truncated .npy header");
  size_t header_length = 0;
  for (size_t i = 0; i < length_bytes; ++i)
    header_length |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + i])) << (8 * i);
  size_t start = 8 + length_bytes;
  if (header_length > bytes.size() - start)
    fail(path, "truncated .npy header: " + std::to_string(header_length) + " bytes announced, " +
                   std::to_string(bytes.size() - start) + " in the file");
  std::string text = bytes.substr(start, header_length);
  data_offset = start + header_length;

  Header header;
  DictParser dict(text, path);
  dict.seek_value("descr");
  header.dtype = dtype_of_descr(dict.quoted(), path);
  dict.seek_value("fortran_order");
  if (dict.boolean()) fail(path, "Fortran-order arrays are not supported: save it in C order");
  dict.seek_value("shape");
  header.shape = dict.tuple();
  return header;
}

}  // namespace

runtime::NDArray parse_npy(const std::string& bytes, const std::string& path) {
  size_t offset = 0;
  Header header = parse_header(bytes, path, offset);
  size_t available = bytes.size() - offset;
  // The expected size, bounded by what the file holds before anything is allocated.
  size_t expected = static_cast<size_t>(header.dtype.bytes());
  bool overflow = false;
  for (int64_t d : header.shape)
    overflow |= __builtin_mul_overflow(expected, static_cast<size_t>(d), &expected);
  bool empty = std::find(header.shape.begin(), header.shape.end(), 0) != header.shape.end();
  if (overflow && !empty)
    fail(path, "truncated: the shape needs more than the file's " + std::to_string(available) +
                   " data bytes");
  if (expected != available)
    fail(path, (expected > available ? "truncated: " : "unexpected trailing data: ") +
                   std::to_string(available) + " data bytes for " + std::to_string(expected) +
                   " expected");
  runtime::NDArray array(header.shape, header.dtype);
  if (expected > 0) std::memcpy(array.data(), bytes.data() + offset, expected);
  return array;
}

runtime::NDArray read_npy(const std::string& path) {
  return parse_npy(read_all(path), path);
}

void write_npy(const runtime::NDArray& array, const std::string& path) {
  std::string shape = "(";
  for (int64_t d : array.shape()) shape += std::to_string(d) + ", ";
  if (array.ndim() > 0) shape.resize(shape.size() - 2);
  if (array.ndim() == 1) shape += ",";
  shape += ")";
  std::string dict = "{'descr': '" + descr_of(array.dtype()) +
                     "', 'fortran_order': False, 'shape': " + shape + ", }";
  bool v1 = dict.size() + 1 + 10 <= 65535;
  size_t prefix = v1 ? 10 : 12;
  size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string bytes(kMagic, kMagicSize);
  bytes += static_cast<char>(v1 ? 1 : 2);
  bytes += '\0';
  for (size_t i = 0; i < prefix - 8; ++i)
    bytes += static_cast<char>((dict.size() >> (8 * i)) & 0xff);
  bytes += dict;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.write(static_cast<const char*>(array.data()), static_cast<std::streamsize>(array.nbytes()));
  out.close();
  if (!out) TESSEL_USER_ERROR("write_npy: cannot write '", path, "'");
}

runtime::NDArray load_tensor_any(const std::string& path) {
  char magic[kMagicSize] = {};
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open the file");
  in.read(magic, kMagicSize);
  if (in.gcount() == static_cast<std::streamsize>(kMagicSize) &&
      std::memcmp(magic, kMagic, kMagicSize) == 0)
    return read_npy(path);
  return frontend::load_tensor_file(path);
}

}  // namespace tessel::cli
