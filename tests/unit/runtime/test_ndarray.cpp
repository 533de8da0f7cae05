// NDArray: alignment, shape bookkeeping, copies, moves and argument checks; workspace
// allocation through the C API.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "runtime/error.h"
#include "runtime/ndarray.h"
#include "runtime/tessel_runtime.h"

namespace tessel::runtime {
namespace {

bool aligned64(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % 64 == 0;
}

TEST(NDArray, DataIsAlignedForEverySize) {
  for (int64_t n : {0, 1, 3, 17, 64, 1000, 4097}) {
    NDArray a({n}, DType::Float(32));
    ASSERT_NE(a.data(), nullptr) << n;
    EXPECT_TRUE(aligned64(a.data())) << n;
    EXPECT_EQ(a.size(), n);
    EXPECT_EQ(a.nbytes(), n * 4);
  }
  NDArray bytes({5, 3}, DType::Int(8));
  EXPECT_TRUE(aligned64(bytes.data()));
}

TEST(NDArray, ShapeDtypeAndZeros) {
  NDArray a = NDArray::zeros({2, 3, 4}, DType::Int(16));
  EXPECT_EQ(a.ndim(), 3);
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(a.size(), 24);
  EXPECT_EQ(a.nbytes(), 48);
  EXPECT_EQ(a.dtype(), DType::Int(16));
  EXPECT_EQ(a.dtype().to_string(), "int16");
  EXPECT_EQ(DType::Bool().to_string(), "bool");
  EXPECT_EQ(DType::Bool().bytes(), 1);
  for (int k = 0; k < 24; ++k) EXPECT_EQ(a.data_as<int16_t>()[k], 0);
  NDArray scalar({}, DType::Float(64));
  EXPECT_EQ(scalar.size(), 1);
  EXPECT_EQ(NDArray().size(), 0);
  EXPECT_EQ(NDArray().data(), nullptr);
}

TEST(NDArray, CopyIsDeepAndMoveTransfers) {
  NDArray a({4}, DType::Float(32));
  for (int k = 0; k < 4; ++k) a.data_as<float>()[k] = k + 0.5f;
  NDArray b = a.copy();
  EXPECT_NE(b.data(), a.data());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), 16), 0);
  b.data_as<float>()[0] = 9;
  EXPECT_EQ(a.data_as<float>()[0], 0.5f);
  void* p = a.data();
  NDArray c = std::move(a);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.shape(), (std::vector<int64_t>{4}));
}

TEST(NDArray, BadArgumentsThrow) {
  EXPECT_THROW(NDArray({2, -1}, DType::Float(32)), Error);
  EXPECT_THROW(NDArray({2}, DType::Float(12)), Error);
  EXPECT_THROW(NDArray({int64_t{1} << 62, 16}, DType::Float(32)), Error);
  NDArray a({2}, DType::Float(32));
  EXPECT_THROW(a.data_as<double>(), Error);
  EXPECT_THROW(a.data_as<int16_t>(), Error);
}

TEST(Workspace, AlignedAllocationAndFailures) {
  for (int64_t align : {0, 16, 64, 256, 4096}) {
    void* p = tessel_workspace_alloc(1000, align);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (align == 0 ? 64 : align), 0u);
    std::memset(p, 1, 1000);
    EXPECT_EQ(tessel_workspace_free(p), TESSEL_OK);
  }
  EXPECT_EQ(tessel_workspace_free(nullptr), TESSEL_OK);
  EXPECT_EQ(tessel_workspace_alloc(-1, 64), nullptr);
  EXPECT_EQ(tessel_workspace_alloc(16, 3), nullptr);  // not a power of two
  EXPECT_EQ(tessel_workspace_alloc(int64_t{1} << 62, 64), nullptr);
  EXPECT_NE(std::string(tessel_last_error()).find("allocation failed"), std::string::npos);
}

}  // namespace
}  // namespace tessel::runtime
