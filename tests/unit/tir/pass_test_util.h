// Helpers for loop IR pass tests: random inputs for a PrimFunc's parameters, running it in
// the reference interpreter, and comparing two versions of a function bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ir/interpreter.h"
#include "ir/printer.h"
#include "support/error.h"

namespace tessel::tir::testing {

using Memory = std::vector<std::vector<uint8_t>>;

/// Random contents for every parameter of `f` (constant shapes): floats in [-2, 2], integers
/// in [-20, 20], bools 0/1.
inline Memory random_args(const ir::PrimFunc& f, uint32_t seed) {
  std::mt19937 rng(seed);
  Memory args;
  for (const ir::Buffer& b : f.params) {
    int64_t n = b.const_size();
    EXPECT_GE(n, 0) << "parameter '" << b->name << "' needs a constant shape";
    ir::DataType t = b->dtype;
    std::vector<uint8_t> bytes(static_cast<size_t>(n) * t.bytes());
    for (int64_t i = 0; i < n; ++i) {
      uint8_t* p = bytes.data() + i * t.bytes();
      if (t == ir::DataType::Float(32)) {
        float v = std::uniform_real_distribution<float>(-2.0f, 2.0f)(rng);
        std::memcpy(p, &v, sizeof v);
      } else if (t.is_bool()) {
        *p = static_cast<uint8_t>(rng() & 1);
      } else if (t.is_integer() && t.bits <= 64) {
        int64_t v = std::uniform_int_distribution<int64_t>(-20, 20)(rng);
        std::memcpy(p, &v, t.bytes());  // little-endian: the low bytes
      } else {
        ADD_FAILURE() << "random_args: unsupported type " << t.to_string();
      }
    }
    args.push_back(std::move(bytes));
  }
  return args;
}

/// Runs `f` in the interpreter on a copy of `args` and returns the memory afterwards.
inline Memory run_on(const ir::PrimFunc& f, Memory args) {
  std::vector<void*> ptrs;
  for (auto& a : args) ptrs.push_back(a.data());
  ir::run(f, ptrs);
  return args;
}

/// Expects `before` and `after` to leave bit-identical memory on several random inputs.
inline void expect_same_results(const ir::PrimFunc& before, const ir::PrimFunc& after,
                                int trials = 3) {
  for (int t = 0; t < trials; ++t) {
    Memory args = random_args(before, 1234 + t);
    Memory expected = run_on(before, args);
    Memory actual = run_on(after, args);
    ASSERT_EQ(expected.size(), actual.size());
    for (size_t i = 0; i < expected.size(); ++i)
      EXPECT_TRUE(expected[i] == actual[i])
          << "parameter '" << before.params[i]->name << "' differs (trial " << t << ")\n"
          << "before:\n"
          << ir::to_string(before) << "after:\n"
          << ir::to_string(after);
  }
}

/// Whether the printed IR contains `text`.
inline bool prints(const ir::PrimFunc& f, const std::string& text) {
  return ir::to_string(f).find(text) != std::string::npos;
}

}  // namespace tessel::tir::testing
