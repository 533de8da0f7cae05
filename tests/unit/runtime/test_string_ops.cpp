// String tensors: NDArray's string elements, and StringNormalizer and CastString as the
// runtime runs them, against expectations written out by hand and, for the shortest
// decimals, against the C library reading the text back.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "runtime/data_dependent.h"
#include "runtime/error.h"
#include "runtime/ndarray.h"

namespace tessel::runtime {
namespace {

using Shape = std::vector<int64_t>;

/// A string array holding `texts` with `shape`.
NDArray strings(const Shape& shape, const std::vector<std::string>& texts) {
  NDArray a(shape, DType::String());
  for (size_t k = 0; k < texts.size(); ++k) a.set_string(static_cast<int64_t>(k), texts[k]);
  return a;
}

std::vector<std::string> texts_of(const void* data, const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<std::string> texts;
  for (int64_t k = 0; k < n; ++k) texts.emplace_back(string_element(data, k));
  return texts;
}

/// Runs a string step on one input, as the runtime does: output storage of the shape the
/// step finds, text in `store`. Returns the output shape; `output` receives the bytes.
Shape run_step(StepKind kind, const std::vector<int64_t>& params,
               const std::vector<std::string>& words, const NDArray& in,
               std::vector<uint8_t>& output, StringStore& store) {
  DataDependentOutputs out = data_dependent_outputs(kind, params, {in.dtype()}, {in.shape()});
  auto allocate = [&](size_t k, const Shape& shape) -> void* {
    EXPECT_EQ(k, 0u);
    int64_t n = out.dtypes[0].bytes();
    for (int64_t d : shape) n *= d;
    output.assign(static_cast<size_t>(n), 0);
    return output.data();
  };
  ConstView view{in.data(), in.dtype(), in.shape()};
  return run_data_dependent(kind, params, words, {view}, allocate, store)[0];
}

struct Normalized {
  Shape shape;
  std::vector<std::string> texts;
};

Normalized normalize(const NDArray& in, int64_t action, bool case_sensitive,
                     const std::vector<std::string>& stop_words) {
  std::vector<uint8_t> bytes;
  StringStore store;
  Shape shape = run_step(StepKind::StringNormalizer, {action, case_sensitive ? 1 : 0}, stop_words,
                         in, bytes, store);
  return {shape, texts_of(bytes.data(), shape)};
}

TEST(StringArray, HoldsCopiesAndCopiesDeeply) {
  std::string text = "monday";
  NDArray a(Shape{3}, DType::String());
  EXPECT_EQ(a.string_at(2), "");  // a new array's elements are empty
  a.set_string(0, text);
  text[0] = 'M';  // the array kept its own copy
  EXPECT_EQ(a.string_at(0), "monday");
  NDArray b = a.copy();
  a.set_string(0, "tuesday");
  EXPECT_EQ(b.string_at(0), "monday");
  EXPECT_NE(static_cast<const char* const*>(b.data())[0],
            static_cast<const char* const*>(a.data())[0]);
  EXPECT_EQ(DType::String().to_string(), "string");
}

TEST(StringArray, RefusesNulAndOtherTypes) {
  NDArray a(Shape{1}, DType::String());
  EXPECT_THROW(a.set_string(0, std::string("a\0b", 3)), Error);
  EXPECT_THROW(a.set_string(1, "x"), Error);
  NDArray f(Shape{1}, DType::Float(32));
  EXPECT_THROW(f.string_at(0), Error);
}

TEST(StringNormalizer, DropsStopWordsThenChangesCase) {
  NDArray in = strings({4}, {"monday", "tuesday", "Monday", "thursday"});
  Normalized sensitive = normalize(in, 2, true, {"monday"});
  EXPECT_EQ(sensitive.shape, Shape{3});
  EXPECT_EQ(sensitive.texts, (std::vector<std::string>{"TUESDAY", "MONDAY", "THURSDAY"}));
  Normalized insensitive = normalize(in, 1, false, {"MONDAY"});
  EXPECT_EQ(insensitive.shape, Shape{2});
  EXPECT_EQ(insensitive.texts, (std::vector<std::string>{"tuesday", "thursday"}));
  Normalized unchanged = normalize(in, 0, true, {});
  EXPECT_EQ(unchanged.texts, (std::vector<std::string>{"monday", "tuesday", "Monday", "thursday"}));
}

TEST(StringNormalizer, KeepsTheRowOfATwoDimensionalInput) {
  NDArray in = strings({1, 3}, {"a", "B", "c"});
  Normalized out = normalize(in, 1, false, {"b"});
  EXPECT_EQ(out.shape, (Shape{1, 2}));
  EXPECT_EQ(out.texts, (std::vector<std::string>{"a", "c"}));
}

TEST(StringNormalizer, AllDroppedGivesOneEmptyString) {
  Normalized one = normalize(strings({2}, {"x", "x"}), 0, true, {"x"});
  EXPECT_EQ(one.shape, Shape{1});
  EXPECT_EQ(one.texts, std::vector<std::string>{""});
  Normalized row = normalize(strings({1, 2}, {"x", "X"}), 0, false, {"x"});
  EXPECT_EQ(row.shape, (Shape{1, 1}));
}

TEST(StringNormalizer, MapsCaseBeyondAscii) {
  // UTF-8: Ä/ä, É/é, Σ/σ; the invalid byte 0xFF passes through.
  NDArray in = strings({2}, {"\xC3\x84rger \xC3\xA9t\xC3\xA9", "\xCE\xA3x\xFF"});
  EXPECT_EQ(normalize(in, 2, true, {}).texts,
            (std::vector<std::string>{"\xC3\x84RGER \xC3\x89T\xC3\x89", "\xCE\xA3X\xFF"}));
  EXPECT_EQ(normalize(in, 1, true, {}).texts,
            (std::vector<std::string>{"\xC3\xA4rger \xC3\xA9t\xC3\xA9", "\xCF\x83x\xFF"}));
  // Case-insensitive stop words compare beyond ASCII too.
  EXPECT_EQ(normalize(in, 0, false, {"\xC3\xA4RGER \xC3\x89T\xC3\x89"}).shape, Shape{1});
}

TEST(StringNormalizer, RefusesOtherShapesAndTypes) {
  EXPECT_THROW(
      data_dependent_outputs(StepKind::StringNormalizer, {0, 1}, {DType::String()}, {{2, 2}}),
      Error);
  EXPECT_THROW(
      data_dependent_outputs(StepKind::StringNormalizer, {0, 1}, {DType::Float(32)}, {{2}}), Error);
  EXPECT_THROW(data_dependent_outputs(StepKind::StringNormalizer, {3, 1}, {DType::String()}, {{2}}),
               Error);
}

std::vector<std::string> to_text(const NDArray& in) {
  std::vector<uint8_t> bytes;
  StringStore store;
  DType to = DType::String();
  Shape shape = run_step(StepKind::CastString, {static_cast<int64_t>(to.code), to.bits}, {}, in,
                         bytes, store);
  return texts_of(bytes.data(), shape);
}

NDArray from_text(const std::vector<std::string>& texts, DType to) {
  NDArray in = strings({static_cast<int64_t>(texts.size())}, texts);
  std::vector<uint8_t> bytes;
  StringStore store;
  run_step(StepKind::CastString, {static_cast<int64_t>(to.code), to.bits}, {}, in, bytes, store);
  NDArray out(in.shape(), to);
  std::memcpy(out.data(), bytes.data(), static_cast<size_t>(out.nbytes()));
  return out;
}

TEST(CastString, FloatsBecomeTheShortestPlainDecimal) {
  NDArray f(Shape{8}, DType::Float(32));
  float* v = f.data_as<float>();
  float values[] = {0.5f,
                    100.0f,
                    0.039187793f,
                    -2.25f,
                    1e-5f,
                    std::numeric_limits<float>::quiet_NaN(),
                    std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity()};
  std::copy(std::begin(values), std::end(values), v);
  EXPECT_EQ(to_text(f), (std::vector<std::string>{"0.5", "100", "0.039187793", "-2.25", "0.00001",
                                                  "NaN", "INF", "-INF"}));
}

TEST(CastString, RandomFloatsReadBackExactlyFromPlainText) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-20, 20);
  NDArray f(Shape{500}, DType::Float(32));
  for (int64_t k = 0; k < f.size(); ++k)
    f.data_as<float>()[k] = std::ldexp(mantissa(rng), exponent(rng));
  std::vector<std::string> texts = to_text(f);
  for (int64_t k = 0; k < f.size(); ++k) {
    const std::string& text = texts[static_cast<size_t>(k)];
    EXPECT_EQ(text.find_first_of("eE"), std::string::npos) << text;
    EXPECT_EQ(std::strtof(text.c_str(), nullptr), f.data_as<float>()[k]) << text;
    // Shortest: one digit fewer does not read back (unless the text is an integer).
    std::string shorter = text.substr(0, text.size() - 1);
    if (text.find('.') != std::string::npos && shorter.back() != '.') {
      EXPECT_NE(std::strtof(shorter.c_str(), nullptr), f.data_as<float>()[k]) << text;
    }
  }
}

TEST(CastString, IntegersAndBoolsBecomeDecimals) {
  NDArray i(Shape{3}, DType::Int(64));
  i.data_as<int64_t>()[0] = -9223372036854775807 - 1;
  i.data_as<int64_t>()[1] = 0;
  i.data_as<int64_t>()[2] = 42;
  EXPECT_EQ(to_text(i), (std::vector<std::string>{"-9223372036854775808", "0", "42"}));
  NDArray b(Shape{2}, DType::Bool());
  b.data_as<uint8_t>()[0] = 1;
  b.data_as<uint8_t>()[1] = 0;
  EXPECT_EQ(to_text(b), (std::vector<std::string>{"1", "0"}));
}

TEST(CastString, TextBecomesFloats) {
  NDArray f =
      from_text({"3.14", "1e-5", "1E8", "+INF", "-inf", "NaN", "-0.5", ".25"}, DType::Float(32));
  const float* v = f.data_as<float>();
  EXPECT_EQ(v[0], 3.14f);
  EXPECT_EQ(v[1], 1e-5f);
  EXPECT_EQ(v[2], 1e8f);
  EXPECT_EQ(v[3], std::numeric_limits<float>::infinity());
  EXPECT_EQ(v[4], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(v[5]));
  EXPECT_EQ(v[6], -0.5f);
  EXPECT_EQ(v[7], 0.25f);
  // float64 reads at double precision; bfloat16 rounds the float to nearest even.
  EXPECT_EQ(from_text({"0.1"}, DType::Float(64)).data_as<double>()[0], 0.1);
  NDArray bf = from_text({"1.00390625", "1.01171875"}, DType::BFloat(16));
  EXPECT_EQ(bf.data_as<uint16_t>()[0], 0x3F80);  // a tie: to the even 1.0
  EXPECT_EQ(bf.data_as<uint16_t>()[1], 0x3F82);  // a tie: to the even 1.015625
}

TEST(CastString, TextBecomesIntegers) {
  NDArray i = from_text({"100.5", "+12", "18446744073709551615"}, DType::UInt(64));
  EXPECT_EQ(i.data_as<uint64_t>()[0], 100u);
  EXPECT_EQ(i.data_as<uint64_t>()[1], 12u);
  EXPECT_EQ(i.data_as<uint64_t>()[2], 18446744073709551615u);
  EXPECT_THROW(from_text({"-7"}, DType::UInt(8)), Error);
  NDArray s = from_text({"-128", "127", "-3.9"}, DType::Int(8));
  EXPECT_EQ(s.data_as<int8_t>()[0], -128);
  EXPECT_EQ(s.data_as<int8_t>()[1], 127);
  EXPECT_EQ(s.data_as<int8_t>()[2], -3);
  EXPECT_THROW(from_text({"128"}, DType::Int(8)), Error);
  NDArray b = from_text({"0", "2", "-1"}, DType::Bool());
  EXPECT_EQ(b.data_as<uint8_t>()[0], 0);
  EXPECT_EQ(b.data_as<uint8_t>()[1], 1);
  EXPECT_EQ(b.data_as<uint8_t>()[2], 1);
}

TEST(CastString, TextThatIsNoNumberNamesTheElement) {
  try {
    from_text({"1", "Hello World!"}, DType::Float(32));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("element 1 ('Hello World!') is not a number"),
              std::string::npos)
        << e.what();
  }
  for (const char* bad : {"", "1.5x", "infinity", "--1", "0x10"})
    EXPECT_THROW(from_text({bad}, DType::Float(64)), Error) << bad;
}

TEST(CastString, OneSideMustBeAString) {
  DType f32 = DType::Float(32);
  EXPECT_THROW(data_dependent_outputs(StepKind::CastString, {static_cast<int64_t>(f32.code), 32},
                                      {DType::Int(32)}, {{2}}),
               Error);
  EXPECT_THROW(data_dependent_outputs(StepKind::CastString, {9, 32}, {DType::String()}, {{2}}),
               Error);
}

}  // namespace
}  // namespace tessel::runtime
