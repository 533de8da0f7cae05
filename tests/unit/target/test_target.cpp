// The target as data: descriptions and shorthands parsed into CPU, features, lanes,
// registers and caches; feature switches with what they imply; descriptions that print and
// parse back; the host detected from the processor; clear errors for bad descriptions.
#include <gtest/gtest.h>

#include <string>

#include "support/error.h"
#include "target/host.h"
#include "target/parse_target.h"

namespace tessel::target {
namespace {

std::string message_of(const std::string& text) {
  try {
    parse_target(text);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

TEST(ParseTarget, TheHostIsTheDefault) {
  const Target& machine = host();
  EXPECT_FALSE(machine.triple.empty());
  EXPECT_FALSE(machine.cpu.empty());
  EXPECT_TRUE(runs_on_host(machine));
  EXPECT_EQ(parse_target(""), machine);
  EXPECT_EQ(parse_target("llvm"), machine);
  EXPECT_EQ(parse_target("llvm -mcpu=native"), machine);
  int lanes = machine.float_lanes();
  EXPECT_TRUE(lanes == 4 || lanes == 8 || lanes == 16) << lanes;
}

TEST(ParseTarget, LanesAndRegistersComeFromTheCpuAndItsSwitches) {
  Target skx = parse_target("llvm -mtriple=x86_64-linux-gnu -mcpu=skylake-avx512");
  EXPECT_EQ(skx.triple, "x86_64-unknown-linux-gnu");
  EXPECT_EQ(skx.float_lanes(), 16);
  EXPECT_EQ(skx.lanes(8), 64);
  EXPECT_EQ(skx.vector_registers, 32);
  EXPECT_EQ(skx.scalar_registers, 16);
  Target haswell = parse_target("llvm -mtriple=x86_64-linux-gnu -mcpu=haswell");
  EXPECT_EQ(haswell.float_lanes(), 8);
  EXPECT_EQ(haswell.vector_registers, 16);
  EXPECT_TRUE(haswell.has("fma"));
  EXPECT_TRUE(haswell.has("sse4.2"));  // implied by avx
  EXPECT_EQ(parse_target("llvm -mtriple=x86_64-linux-gnu -mcpu=x86-64").float_lanes(), 4);
  // Switching AVX-512F off drops every AVX-512 feature that needs it, and the registers.
  Target narrowed = parse_target("llvm -mcpu=znver4 -mattr=-avx512f");
  EXPECT_EQ(narrowed.float_lanes(), 8);
  EXPECT_EQ(narrowed.vector_registers, 16);
  EXPECT_FALSE(narrowed.has("avx512vnni"));
  EXPECT_FALSE(narrowed.has("avx512bf16"));
  EXPECT_TRUE(narrowed.has("avx2"));
  // Switching a feature on brings what it needs.
  Target widened = parse_target("llvm -mcpu=x86-64 -mattr=+avx512vnni");
  EXPECT_EQ(widened.float_lanes(), 16);
  EXPECT_TRUE(widened.has("avx512f"));
  EXPECT_TRUE(widened.has("avx2"));
  Target arm = parse_target("llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-n1");
  EXPECT_EQ(arm.arch, Arch::AArch64);
  EXPECT_EQ(arm.float_lanes(), 4);
  EXPECT_EQ(arm.vector_registers, 32);
  EXPECT_TRUE(arm.has("dotprod"));
  EXPECT_TRUE(arm.has("neon"));
  EXPECT_EQ(arm.cache.l1d, 64 * 1024);
}

TEST(ParseTarget, PeakFlopsPerCycleComeFromTheCpusFmaUnits) {
  // Two FMA units as wide as the vectors: 2 x 2 x 16 float32 operations per cycle...
  EXPECT_EQ(
      parse_target("llvm -mtriple=x86_64-linux-gnu -mcpu=skylake-avx512").peak_flops_per_cycle(32),
      64);
  EXPECT_EQ(parse_target("llvm -mtriple=x86_64-linux-gnu -mcpu=haswell").peak_flops_per_cycle(32),
            32);
  EXPECT_EQ(parse_target("x86-64-avx2").peak_flops_per_cycle(32), 32);
  // ...Zen 4's 512-bit FMAs run on two 256-bit units, and AVX2 code gets the same.
  EXPECT_EQ(parse_target("llvm -mtriple=x86_64-linux-gnu -mcpu=znver4").peak_flops_per_cycle(32),
            32);
  EXPECT_EQ(parse_target("llvm -mcpu=znver4 -mattr=-avx512f").peak_flops_per_cycle(32), 32);
  EXPECT_EQ(parse_target("llvm -mtriple=x86_64-linux-gnu -mcpu=znver1").peak_flops_per_cycle(32),
            16);
  // Neoverse V1 has four 128-bit units for NEON, N1 two; float64 has half the lanes.
  EXPECT_EQ(
      parse_target("llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-v1").peak_flops_per_cycle(32),
      32);
  Target n1 = parse_target("llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-n1");
  EXPECT_EQ(n1.peak_flops_per_cycle(32), 16);
  EXPECT_EQ(n1.peak_flops_per_cycle(64), 8);
}

TEST(ParseTarget, ShorthandsNameTheX86LevelsAndOtherArchitectures) {
  Target avx2 = parse_target("x86-64-avx2");
  EXPECT_EQ(avx2.cpu, "x86-64-v3");
  EXPECT_EQ(avx2.float_lanes(), 8);
  EXPECT_FALSE(avx2.has("avx512f"));
  EXPECT_EQ(avx2, parse_target("x86-64-v3"));
  Target avx512 = parse_target("x86-64-avx512");
  EXPECT_EQ(avx512.cpu, "x86-64-v4");
  EXPECT_EQ(avx512.float_lanes(), 16);
  EXPECT_TRUE(avx512.has("avx512bw"));
  EXPECT_FALSE(avx512.has("avx512vnni"));
  EXPECT_EQ(parse_target("x86-64-v2").float_lanes(), 4);
  // Options may follow a shorthand.
  EXPECT_TRUE(parse_target("x86-64-avx512 -mattr=+avx512vnni").has("avx512vnni"));
  EXPECT_EQ(parse_target("aarch64").arch, Arch::AArch64);
  Target riscv = parse_target("riscv64");
  EXPECT_EQ(riscv.arch, Arch::RiscV64);
  EXPECT_TRUE(riscv.has("v"));
  EXPECT_TRUE(riscv.has("f"));  // implied by v through d
}

TEST(ParseTarget, DescriptionsParseBack) {
  for (const char* text :
       {"x86-64-avx2", "x86-64-avx512", "llvm -mcpu=znver4 -mattr=-avx512f",
        "llvm -mcpu=haswell -mattr=+avx512vnni", "llvm -mtriple=aarch64-linux-gnu -mcpu=generic",
        "riscv64", "llvm -mcpu=sapphirerapids -mattr=-amx-tile"}) {
    Target t = parse_target(text);
    Target again = parse_target(t.to_string());
    EXPECT_EQ(again.triple, t.triple) << text;
    EXPECT_EQ(again.cpu, t.cpu) << text;
    EXPECT_EQ(again.features, t.features) << text << " -> " << t.to_string();
    EXPECT_EQ(again.float_lanes(), t.float_lanes()) << text;
  }
  EXPECT_EQ(parse_target("x86-64-avx2").to_string(),
            "llvm -mtriple=x86_64-unknown-linux-gnu -mcpu=x86-64-v3");
  EXPECT_EQ(parse_target("llvm -mtriple=x86_64-linux-gnu -mcpu=znver4 -mattr=-avx512f").to_string(),
            "llvm -mtriple=x86_64-unknown-linux-gnu -mcpu=znver4 -mattr=-avx512bf16,-avx512bitalg,"
            "-avx512bw,-avx512cd,-avx512dq,-avx512f,-avx512ifma,-avx512vbmi,-avx512vbmi2,"
            "-avx512vl,-avx512vnni,-avx512vpopcntdq");
  const Target& machine = host();
  Target again = parse_target(machine.to_string());
  EXPECT_EQ(again.cpu, machine.cpu);
  EXPECT_EQ(again.features, machine.features) << machine.to_string();
}

TEST(ParseTarget, RejectsBadDescriptionsNamingWhatIsWrong) {
  EXPECT_NE(message_of("cuda").find("starting with 'llvm'"), std::string::npos);
  EXPECT_NE(message_of("cuda").find("x86-64-avx2"), std::string::npos);  // lists shorthands
  EXPECT_NE(message_of("llvm -O3").find("unknown option '-O3'"), std::string::npos);
  EXPECT_NE(message_of("llvm -mcpu=not-a-cpu").find("unknown CPU 'not-a-cpu'"), std::string::npos);
  EXPECT_NE(message_of("llvm -mcpu=not-a-cpu").find("znver4"), std::string::npos);  // the known
  EXPECT_NE(message_of("llvm -mtriple=nonsense-arch-linux").find("unknown triple"),
            std::string::npos);
  EXPECT_NE(message_of("llvm -mtriple=x86_64-linux-gnu-").find("unknown triple"),
            std::string::npos);
  EXPECT_NE(message_of("llvm -mtriple=x86_64--gnu").find("unknown triple"), std::string::npos);
  EXPECT_NE(message_of("llvm -mtriple=aarch64-linux-gnu -mcpu=native").find("-mcpu=native"),
            std::string::npos);
  EXPECT_NE(message_of("llvm -mcpu=haswell -mattr=+avx9").find("unknown feature 'avx9'"),
            std::string::npos);
  EXPECT_NE(message_of("llvm -mcpu=haswell -mattr=avx2").find("'+name' or '-name'"),
            std::string::npos);
  EXPECT_NE(message_of("llvm -mtriple=aarch64-linux-gnu -mattr=+avx2").find("for aarch64"),
            std::string::npos);
}

TEST(Host, RunsWhatItHasAndNamesWhatItLacks) {
  const Target& machine = host();
  std::string missing;
  EXPECT_TRUE(runs_on_host(machine, &missing));
  EXPECT_TRUE(missing.empty()) << missing;
  Target other_arch = parse_target(machine.arch == Arch::AArch64 ? "x86-64-avx2" : "aarch64");
  EXPECT_FALSE(runs_on_host(other_arch, &missing));
  EXPECT_NE(missing.find("architecture"), std::string::npos) << missing;
  if (machine.arch != Arch::X86_64) return;
  // A feature the host lacks is named (every host lacks one of these two sets).
  Target amx = parse_target("llvm -mcpu=graniterapids");
  Target avx512 = parse_target("x86-64-avx512");
  if (!machine.has("amx-fp16")) {
    EXPECT_FALSE(runs_on_host(amx, &missing));
    EXPECT_NE(missing.find("amx-fp16"), std::string::npos) << missing;
  }
  if (!machine.has("avx512f")) {
    EXPECT_FALSE(runs_on_host(avx512, &missing));
    EXPECT_NE(missing.find("avx512f"), std::string::npos) << missing;
  }
  // The host's caches are its own.
  EXPECT_GE(machine.cache.l1d, 16 * 1024);
  EXPECT_GE(machine.cache.l2, machine.cache.l1d);
  EXPECT_EQ(machine.cache.line, 64);
}

}  // namespace
}  // namespace tessel::target
