// runtime::Module: loading shared libraries and looking up functions, with the errors for
// missing files, files that are not shared libraries and missing symbols. (Loading
// compiled kernels is tested end to end in tests/unit/codegen/test_aot.cpp.)
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runtime/error.h"
#include "runtime/module.h"

namespace tessel::runtime {
namespace {

std::string message_of(const std::string& path) {
  try {
    Module::load(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string temp(const std::string& name) {
  // The process id keeps concurrent test runs apart.
  return (std::filesystem::path(::testing::TempDir()) / (std::to_string(getpid()) + "_" + name))
      .string();
}

TEST(Module, LoadsALibraryAndFindsSymbols) {
  // The runtime library itself is a shared library that defines tessel_parallel_for.
  Dl_info info;
  ASSERT_TRUE(dladdr(reinterpret_cast<void*>(&tessel_parallel_for), &info));
  Module m = Module::load(info.dli_fname);
  EXPECT_EQ(m.path(), info.dli_fname);
  EXPECT_TRUE(m.has_function("tessel_parallel_for"));
  EXPECT_EQ(reinterpret_cast<void*>(m.get_function("tessel_parallel_for")),
            reinterpret_cast<void*>(&tessel_parallel_for));
  try {
    m.get_function("no_such_kernel");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has no function 'no_such_kernel'"), std::string::npos);
  }
  Module moved = std::move(m);
  EXPECT_TRUE(moved.has_function("tessel_workspace_alloc"));
}

TEST(Module, ErrorsNameThePathAndTheReason) {
  EXPECT_EQ(message_of(temp("tessel_missing.so")),
            "cannot load module '" + temp("tessel_missing.so") + "': no such file");
  EXPECT_NE(message_of(::testing::TempDir()).find("not a regular file"), std::string::npos);
  std::string text = temp("tessel_text.so");
  std::ofstream(text) << "not an ELF file, just text long enough to have a header .............\n";
  std::string m = message_of(text);
  EXPECT_NE(m.find("cannot load module '" + text + "'"), std::string::npos) << m;
  EXPECT_NE(m.find("invalid ELF header"), std::string::npos) << m;
  std::string tiny = temp("tessel_tiny.so");
  std::ofstream(tiny) << "\x7f"
                         "ELF";
  EXPECT_NE(message_of(tiny).find("file too short"), std::string::npos) << message_of(tiny);
  std::filesystem::remove(text);
  std::filesystem::remove(tiny);
}

}  // namespace
}  // namespace tessel::runtime
