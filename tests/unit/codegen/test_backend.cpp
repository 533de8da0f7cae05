// The Backend interface: the backend for a target, kernels loaded in process and run,
// the code as text, objects for another architecture, and the refusals.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "codegen/backend.h"
#include "codegen_test_util.h"
#include "support/error.h"
#include "target/parse_target.h"

namespace tessel::codegen::test {
namespace {

const DataType f32 = DataType::Float(32);

/// C[i] = A[i] * 2 + 1 over 64 elements, 8 lanes at a time.
PrimFunc axpb() {
  Buffer A = buffer("A", f32, 64), C = buffer("C", f32, 64);
  Var v("v");
  Expr idx = ramp(v * 8, 8);
  return PrimFunc{"axpb", {A, C}, loop(v, 8, store(C, idx, load(A, idx) * 2.0f + 1.0f))};
}

TEST(Backend, LoadsKernelsInProcessAndListsWhatItGenerated) {
  const target::Target& host = target::host();
  const Backend& backend = backend_for(host);
  EXPECT_STREQ(backend.name(), "llvm");
  std::ostringstream ir, assembly;
  std::unique_ptr<LoadedModule> module = backend.load_in_process({axpb()}, host, {&ir, &assembly});
  EXPECT_NE(ir.str().find("define"), std::string::npos);
  EXPECT_FALSE(assembly.str().empty());
  std::vector<float> a(64), c(64, 0.0f);
  for (int i = 0; i < 64; ++i) a[i] = static_cast<float>(i);
  auto ta = array(a, f32), tc = array(c, f32);
  ASSERT_EQ(call(*module, "axpb", {&ta, &tc}), 0);
  std::vector<float> out = values<float>(tc);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], 2.0f * i + 1.0f) << i;
  EXPECT_THROW(module->get_function("missing"), CompileError);
}

TEST(Backend, EmitsTextAndObjectsForAnotherArchitecture) {
  target::Target aarch64 = target::parse_target("aarch64");
  const Backend& backend = backend_for(aarch64);
  std::string text = backend.emit_text({axpb()}, aarch64);
  EXPECT_NE(text.find(".4s"), std::string::npos) << text;  // NEON vectors of 4 floats
  std::string path = ::testing::TempDir() + std::to_string(getpid()) + "_tessel_axpb.o";
  backend.emit_object_file({axpb()}, aarch64, path);
  std::ifstream file(path, std::ios::binary);
  unsigned char header[20] = {};
  file.read(reinterpret_cast<char*>(header), sizeof header);
  EXPECT_EQ(header[18] | header[19] << 8, 183);  // EM_AARCH64
  std::remove(path.c_str());
  // Neither linked into a library of this machine nor run here.
  EXPECT_THROW(backend.emit_shared_library({axpb()}, aarch64, path + ".so"), CompileError);
  EXPECT_THROW(backend.load_in_process({axpb()}, aarch64), CompileError);
}

}  // namespace
}  // namespace tessel::codegen::test
