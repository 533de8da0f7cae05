// Ahead-of-time compilation: a shared library emitted by emit_shared_library, loaded with
// runtime::Module and run; loader and linker failures give clear errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "codegen/llvm/aot.h"
#include "codegen_test_util.h"
#include "runtime/error.h"
#include "runtime/module.h"
#include "runtime/tessel_runtime.h"
#include "support/error.h"

namespace tessel::codegen::test {
namespace {

const DataType f32 = DataType::Float(32);

/// Two kernels: `scale` (a parallel loop through a workspace) and `offset`.
std::vector<PrimFunc> kernels(int64_t n) {
  Buffer A = buffer("A", f32, n), C = buffer("C", f32, n), W = buffer("W", f32, n);
  Var i("i"), j("j");
  Stmt body =
      make_Allocate(W, make_Seq({loop(i, n, store(W, i, load(A, i) * 3.0f), ForKind::Parallel),
                                 loop(j, n, store(C, j, load(W, j) - 1.0f))}));
  Buffer X = buffer("X", f32, n);
  Var k("k");
  return {PrimFunc{"scale", {A, C}, body},
          PrimFunc{"offset", {X}, loop(k, n, store(X, k, load(X, k) + 10.0f))}};
}

std::string temp_path(const std::string& name) {
  // The process id keeps concurrent test runs apart.
  return (std::filesystem::path(::testing::TempDir()) / (std::to_string(getpid()) + "_" + name))
      .string();
}

template <class Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(Aot, SharedLibraryLoadsAndRuns) {
  const int64_t n = 100;
  std::string path = temp_path("tessel_aot_kernels.so");
  emit_shared_library(kernels(n), target::host(), path);
  runtime::Module module = runtime::Module::load(path);
  EXPECT_TRUE(module.has_function("scale"));
  EXPECT_FALSE(module.has_function("missing"));
  std::vector<float> a(n);
  for (int k = 0; k < n; ++k) a[k] = 0.5f * k;
  auto ta = array(a, f32), tc = array(std::vector<float>(n), f32);
  void* scale_args[] = {ta.data(), tc.data()};
  ASSERT_EQ(module.get_function("scale")(scale_args), 0);
  void* offset_args[] = {tc.data()};
  ASSERT_EQ(module.get_function("offset")(offset_args), 0);
  for (int k = 0; k < n; ++k) EXPECT_EQ(values<float>(tc)[k], a[k] * 3 - 1 + 10);
  std::filesystem::remove(path);
}

TEST(Aot, ObjectFileForTheHost) {
  std::string path = temp_path("tessel_aot_kernels.o");
  emit_object_file(kernels(8), target::host(), path);
  EXPECT_GT(std::filesystem::file_size(path), 64u);
  std::filesystem::remove(path);
}

TEST(Aot, LoaderErrorsNameTheFileAndTheReason) {
  std::string missing = temp_path("tessel_no_such_module.so");
  EXPECT_NE(error_of([&] { runtime::Module::load(missing); }).find("no such file"),
            std::string::npos);
  EXPECT_THROW(runtime::Module::load(missing), runtime::Error);

  // A truncated copy of a valid library.
  std::string full = temp_path("tessel_aot_full.so"), cut = temp_path("tessel_aot_truncated.so");
  emit_shared_library(kernels(8), target::host(), full);
  {
    std::ifstream in(full, std::ios::binary);
    std::vector<char> head(200);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(cut, std::ios::binary)
        .write(head.data(), static_cast<std::streamsize>(head.size()));
  }
  std::string truncated = error_of([&] { runtime::Module::load(cut); });
  EXPECT_NE(truncated.find("cannot load module '" + cut + "'"), std::string::npos) << truncated;

  std::string text = temp_path("tessel_aot_text.so");
  std::ofstream(text) << "this is not a shared library\n";
  std::string not_elf = error_of([&] { runtime::Module::load(text); });
  EXPECT_NE(not_elf.find("cannot load module '" + text + "'"), std::string::npos) << not_elf;

  runtime::Module module = runtime::Module::load(full);
  std::string no_symbol = error_of([&] { module.get_function("matmul"); });
  EXPECT_NE(no_symbol.find("has no function 'matmul'"), std::string::npos) << no_symbol;
  for (const std::string& p : {full, cut, text}) std::filesystem::remove(p);
}

TEST(Aot, LinkFailureReportsTheLinkerOutput) {
  std::string path = temp_path("no_such_directory/kernels.so");
  std::string message = error_of([&] { emit_shared_library(kernels(8), target::host(), path); });
  EXPECT_NE(message.find("linking '" + path + "' failed"), std::string::npos) << message;
  EXPECT_NE(message.find("no_such_directory"), std::string::npos) << message;  // cc's own words
  EXPECT_THROW(emit_shared_library(kernels(8), target::host(), path), CompileError);
}

}  // namespace
}  // namespace tessel::codegen::test
