// Targets and generated code: the feature switches LLVM is given, the LLVM IR we emit (alias
// metadata, alignment, vector memory operations, closures) and the machine code (FMA and zmm
// registers for AVX-512, NEON for AArch64, object file machine types).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "codegen/llvm/aot.h"
#include "codegen/llvm/codegen_llvm.h"
#include "codegen_test_util.h"
#include "support/error.h"
#include "target/parse_target.h"

namespace tessel::codegen::test {
namespace {

const DataType f32 = DataType::Float(32);

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// C[v*16 .. +16] = A * B + C over float32x16 vectors.
PrimFunc fma16(int64_t n = 256) {
  Buffer A = buffer("A", f32, n), B = buffer("B", f32, n), C = buffer("C", f32, n);
  Var v("v");
  Expr idx = ramp(v * 16, 16);
  return PrimFunc{"fma16",
                  {A, B, C},
                  loop(v, n / 16, store(C, idx, load(A, idx) * load(B, idx) + load(C, idx)))};
}

TEST(LlvmTarget, FeatureSwitchesNameEveryKnownFeature) {
  // A CPU's own features can be switched off: LLVM is told each known feature's state.
  std::string features =
      llvm_features(target::parse_target("llvm -mcpu=skylake-avx512 -mattr=-avx512f"));
  EXPECT_NE(features.find("-avx512f"), std::string::npos) << features;
  EXPECT_NE(features.find("-avx512bw"), std::string::npos) << features;
  EXPECT_NE(features.find("+avx2"), std::string::npos) << features;
  EXPECT_EQ(features.find("+evex512"), std::string::npos) << features;
  EXPECT_NE(llvm_features(target::parse_target("x86-64-avx512")).find("+evex512"),
            std::string::npos);
  std::string assembly =
      emit_assembly({fma16()}, target::parse_target("llvm -mcpu=skylake-avx512 -mattr=-avx512f"));
  EXPECT_EQ(assembly.find("zmm"), std::string::npos) << assembly;
  EXPECT_NE(assembly.find("ymm"), std::string::npos) << assembly;
}

TEST(GeneratedIR, BuffersHaveNoAliasScopesAndAlignment) {
  std::string ir = emit_llvm_ir({fma16()}, target::host(), /*optimize=*/false);
  EXPECT_NE(ir.find("define i32 @fma16(ptr noalias nocapture readonly %args)"), std::string::npos)
      << ir;
  EXPECT_EQ(count(ir, "\"align\"(ptr"), 3) << ir;  // one assumption per parameter
  EXPECT_NE(ir.find("!alias.scope"), std::string::npos);
  EXPECT_NE(ir.find("!noalias"), std::string::npos);
  // Contiguous vectors are plain loads / stores aligned to the element.
  EXPECT_EQ(count(ir, "load <16 x float>"), 3) << ir;
  EXPECT_NE(ir.find("store <16 x float>"), std::string::npos);
  EXPECT_NE(ir.find("align 4"), std::string::npos);
  // Float arithmetic may contract and reassociate, nothing more.
  EXPECT_NE(ir.find("fmul reassoc contract <16 x float>"), std::string::npos) << ir;
}

TEST(GeneratedIR, StridedAccessesAreGathersAndScatters) {
  Buffer A = buffer("A", f32, 64), C = buffer("C", f32, 64);
  Var v("v");
  Expr strided = make_Ramp(v, Expr(int64_t{8}), 8);
  PrimFunc f{"strided", {A, C}, loop(v, 8, store(C, strided, load(A, strided) + 1.0f))};
  std::string ir = emit_llvm_ir({f}, target::host(), /*optimize=*/false);
  EXPECT_NE(ir.find("@llvm.masked.gather.v8f32"), std::string::npos) << ir;
  EXPECT_NE(ir.find("@llvm.masked.scatter.v8f32"), std::string::npos) << ir;
}

TEST(GeneratedIR, LanesOfOneAlignedRunAreALoadAndAShuffle) {
  // Lane l of 16 reads (l / 4) * 4 + 2 of its run (a grouped convolution's channel 2 of
  // each group of 4): a vector load and a shufflevector, no gather.
  Buffer A = buffer("A", f32, 64), C = buffer("C", f32, 64);
  Var v("v");
  Expr four = make_Broadcast(Expr(int64_t{4}), 16);
  Expr index = make_Broadcast(v * 16, 16) + ramp(Expr(int64_t{0}), 16) / four * four +
               make_Broadcast(Expr(int64_t{2}), 16);
  PrimFunc f{"grouped", {A, C}, loop(v, 4, store(C, ramp(v * 16, 16), load(A, index)))};
  std::string ir = emit_llvm_ir({f}, target::host(), /*optimize=*/false);
  EXPECT_EQ(ir.find("@llvm.masked.gather"), std::string::npos) << ir;
  EXPECT_NE(ir.find("load <16 x float>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("shufflevector <16 x float>"), std::string::npos) << ir;
}

TEST(GeneratedIR, ClampedLanesLoadPlainlyBehindABranchAndGatherAtTheEnds) {
  // A padding stage's read max(min(ramp(v * 16 - 1, 1, 16), 63), 0): a branch on the
  // clamps' condition between a plain vector load and a gather.
  Buffer A = buffer("A", f32, 64), C = buffer("C", f32, 64);
  Var v("v");
  Expr index = max(min(ramp(v * 16 - 1, 16), make_Broadcast(Expr(int64_t{63}), 16)),
                   make_Broadcast(Expr(int64_t{0}), 16));
  PrimFunc f{"padded", {A, C}, loop(v, 4, store(C, ramp(v * 16, 16), load(A, index)))};
  std::string ir = emit_llvm_ir({f}, target::host(), /*optimize=*/false);
  EXPECT_NE(ir.find("clamp.none:"), std::string::npos) << ir;
  EXPECT_NE(ir.find("load <16 x float>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("@llvm.masked.gather.v16f32"), std::string::npos) << ir;
  EXPECT_NE(ir.find("<16 x float> [ "), std::string::npos) << ir;  // the phi joining them
}

TEST(GeneratedIR, ParallelLoopBecomesOneClosureAndNestedOnesStaySerial) {
  Buffer C = buffer("C", f32, 64);
  Var i("i"), j("j");
  PrimFunc f{
      "nest",
      {C},
      loop(i, 8, loop(j, 8, store(C, i * 8 + j, 1.0f), ForKind::Parallel), ForKind::Parallel)};
  std::string ir = emit_llvm_ir({f}, target::host(), /*optimize=*/false);
  EXPECT_NE(ir.find("define internal i32 @nest.parallel.0(i64 %begin, i64 %end, ptr noalias "
                    "nocapture readonly %env)"),
            std::string::npos)
      << ir;
  EXPECT_EQ(count(ir, "call i32 @tessel_parallel_for"), 1) << ir;
  EXPECT_EQ(count(ir, "define internal"), 1) << ir;
}

TEST(GeneratedAssembly, Avx512FmaUsesZmmRegisters) {
  std::string text = emit_assembly({fma16()}, target::parse_target("llvm -mcpu=skylake-avx512"));
  EXPECT_NE(text.find("vfmadd"), std::string::npos) << text;
  EXPECT_NE(text.find("zmm"), std::string::npos) << text;
}

TEST(GeneratedAssembly, HostJitDumpsIrAndAssembly) {
  std::ostringstream ir, assembly;
  JitOptions options;
  options.ir_out = &ir;
  options.asm_out = &assembly;
  JitModule module({fma16()}, options);
  EXPECT_NE(ir.str().find("@fma16(ptr noalias"), std::string::npos) << ir.str();
  const target::Target& host = target::host();
  // The widest vector registers and FMA of this machine are used.
  if (host.has("fma")) {
    EXPECT_NE(assembly.str().find("vfmadd"), std::string::npos) << assembly.str();
  }
  if (host.has("avx512f")) {
    EXPECT_NE(assembly.str().find("zmm"), std::string::npos) << assembly.str();
  } else if (host.has("avx")) {
    EXPECT_NE(assembly.str().find("ymm"), std::string::npos) << assembly.str();
  }
  // And the code runs.
  std::vector<float> a(256, 2.0f), b(256, 3.0f), c(256, 1.0f);
  auto ta = array(a, f32), tb = array(b, f32), tc = array(c, f32);
  ASSERT_EQ(call(module, "fma16", {&ta, &tb, &tc}), 0);
  for (float x : values<float>(tc)) EXPECT_EQ(x, 7.0f);
}

TEST(GeneratedAssembly, JitForAnotherCpuOfThisArchitecture) {
  // Generic x86-64 (SSE2 only): the float32x16 code is split into 4-wide operations.
  if (target::host().triple.rfind("x86_64", 0) != 0) GTEST_SKIP() << "x86-64 only";
  JitOptions options;
  options.target = target::parse_target("llvm -mcpu=x86-64");
  std::ostringstream assembly;
  options.asm_out = &assembly;
  JitModule module({fma16()}, options);
  EXPECT_EQ(assembly.str().find("ymm"), std::string::npos);
  std::vector<float> a(256, 2.0f), b(256, 3.0f), c(256, 1.0f);
  auto ta = array(a, f32), tb = array(b, f32), tc = array(c, f32);
  ASSERT_EQ(call(module, "fma16", {&ta, &tb, &tc}), 0);
  for (float x : values<float>(tc)) EXPECT_EQ(x, 7.0f);
}

TEST(CrossCompilation, Aarch64ObjectAndAssembly) {
  target::Target aarch64 = target::parse_target("llvm -mtriple=aarch64-linux-gnu -mcpu=generic");
  std::string text = emit_assembly({fma16()}, aarch64);
  EXPECT_NE(text.find("fmla"), std::string::npos) << text;  // NEON fused multiply-add
  std::string path = ::testing::TempDir() + std::to_string(getpid()) + "_tessel_fma16_aarch64.o";
  emit_object_file({fma16()}, aarch64, path);
  std::ifstream file(path, std::ios::binary);
  unsigned char header[20] = {};
  file.read(reinterpret_cast<char*>(header), sizeof header);
  ASSERT_EQ(file.gcount(), 20);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(header), 4),
            "\x7f"
            "ELF");
  EXPECT_EQ(header[4], 2);                       // ELFCLASS64
  EXPECT_EQ(header[16] | header[17] << 8, 1);    // ET_REL: a relocatable object
  EXPECT_EQ(header[18] | header[19] << 8, 183);  // EM_AARCH64
  std::remove(path.c_str());
  EXPECT_THROW(emit_shared_library({fma16()}, aarch64, path + ".so"), CompileError);
  EXPECT_THROW(JitModule({fma16()}, JitOptions{aarch64, nullptr, nullptr}), CompileError);
}

}  // namespace
}  // namespace tessel::codegen::test
