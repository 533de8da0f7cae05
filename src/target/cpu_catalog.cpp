// The CPU and feature tables, and the closure of a feature set under implication.
#include "target/cpu_catalog.h"

#include <algorithm>

#include "support/error.h"

namespace tessel::target {
namespace {

constexpr int64_t KiB = 1024, MiB = 1024 * 1024;

/// `feature` needs every feature of `requires` (so enabling it enables them, and disabling
/// one of them disables it).
struct Implication {
  std::string_view feature;
  std::vector<std::string_view> requires_;
};

struct ArchTables {
  std::vector<std::string_view> features;  // sorted
  std::vector<Implication> implications;
  std::vector<CpuModel> cpus;
};

// x86-64: the levels of the psABI, then the families in use. Caches are one core's L1d and
// L2 and the L3 of a typical part.
const std::vector<std::string_view> kV2 = {"sse",    "sse2",   "sse3",  "ssse3",
                                           "sse4.1", "sse4.2", "popcnt"};
const std::vector<std::string_view> kV3 = {"avx", "avx2", "fma",   "f16c",
                                           "bmi", "bmi2", "lzcnt", "movbe"};
const std::vector<std::string_view> kV4 = {"avx512f", "avx512cd", "avx512bw", "avx512dq",
                                           "avx512vl"};
const std::vector<std::string_view> kIcelake = {"avx512vnni", "avx512vbmi",   "avx512vbmi2",
                                                "avx512ifma", "avx512bitalg", "avx512vpopcntdq"};
const std::vector<std::string_view> kAmx = {"avx512bf16", "avx512fp16", "avxvnni",
                                            "amx-tile",   "amx-int8",   "amx-bf16"};

std::vector<std::string_view> join(std::initializer_list<std::vector<std::string_view>> parts) {
  std::vector<std::string_view> out;
  for (const auto& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

ArchTables x86_tables() {
  ArchTables t;
  t.features = join({kV2, kV3, kV4, kIcelake, kAmx, {"amx-fp16"}});
  std::sort(t.features.begin(), t.features.end());
  t.implications = {
      {"sse2", {"sse"}},
      {"sse3", {"sse2"}},
      {"ssse3", {"sse3"}},
      {"sse4.1", {"ssse3"}},
      {"sse4.2", {"sse4.1"}},
      {"avx", {"sse4.2"}},
      {"avx2", {"avx"}},
      {"fma", {"avx"}},
      {"f16c", {"avx"}},
      {"avx512f", {"avx2", "fma", "f16c"}},
      {"avx512cd", {"avx512f"}},
      {"avx512bw", {"avx512f"}},
      {"avx512dq", {"avx512f"}},
      {"avx512vl", {"avx512f"}},
      {"avx512vnni", {"avx512f"}},
      {"avx512vbmi", {"avx512bw"}},
      {"avx512vbmi2", {"avx512bw"}},
      {"avx512ifma", {"avx512f"}},
      {"avx512bitalg", {"avx512bw"}},
      {"avx512vpopcntdq", {"avx512f"}},
      {"avx512bf16", {"avx512bw"}},
      {"avx512fp16", {"avx512bw", "avx512dq", "avx512vl"}},
      {"avxvnni", {"avx2"}},
      {"amx-int8", {"amx-tile"}},
      {"amx-bf16", {"amx-tile"}},
      {"amx-fp16", {"amx-tile"}},
  };
  const CacheSizes generic{64, 32 * KiB, 512 * KiB, 8 * MiB};
  const CacheSizes zen3{64, 32 * KiB, 512 * KiB, 32 * MiB};
  const CacheSizes zen4{64, 32 * KiB, 1 * MiB, 32 * MiB};
  const CacheSizes zen5{64, 48 * KiB, 1 * MiB, 32 * MiB};
  const CacheSizes skx{64, 32 * KiB, 1 * MiB, 32 * MiB};
  const CacheSizes icx{64, 48 * KiB, 1280 * KiB, 48 * MiB};
  const CacheSizes spr{64, 48 * KiB, 2 * MiB, 105 * MiB};
  t.cpus = {
      {"generic", Arch::X86_64, {"sse", "sse2"}, generic},
      {"x86-64", Arch::X86_64, {"sse", "sse2"}, generic},
      {"x86-64-v2", Arch::X86_64, kV2, generic},
      {"x86-64-v3", Arch::X86_64, join({kV2, kV3}), generic},
      {"x86-64-v4", Arch::X86_64, join({kV2, kV3, kV4}), skx},
      {"haswell", Arch::X86_64, join({kV2, kV3}), generic},
      {"broadwell", Arch::X86_64, join({kV2, kV3}), generic},
      {"skylake", Arch::X86_64, join({kV2, kV3}), {64, 32 * KiB, 256 * KiB, 8 * MiB}},
      {"alderlake",
       Arch::X86_64,
       join({kV2, kV3, {"avxvnni"}}),
       {64, 48 * KiB, 1280 * KiB, 24 * MiB}},
      {"znver1", Arch::X86_64, join({kV2, kV3}), {64, 32 * KiB, 512 * KiB, 8 * MiB}, 2, 128},
      {"znver2", Arch::X86_64, join({kV2, kV3}), {64, 32 * KiB, 512 * KiB, 16 * MiB}},
      {"znver3", Arch::X86_64, join({kV2, kV3}), zen3},
      // Zen 4 runs a 512-bit FMA as two halves on its two 256-bit units.
      {"znver4", Arch::X86_64, join({kV2, kV3, kV4, kIcelake, {"avx512bf16"}}), zen4, 2, 256},
      {"znver5", Arch::X86_64, join({kV2, kV3, kV4, kIcelake, {"avx512bf16", "avxvnni"}}), zen5},
      {"skylake-avx512", Arch::X86_64, join({kV2, kV3, kV4}), skx},
      {"cascadelake", Arch::X86_64, join({kV2, kV3, kV4, {"avx512vnni"}}), skx},
      {"cooperlake", Arch::X86_64, join({kV2, kV3, kV4, {"avx512vnni", "avx512bf16"}}), skx},
      {"icelake-server", Arch::X86_64, join({kV2, kV3, kV4, kIcelake}), icx},
      {"tigerlake",
       Arch::X86_64,
       join({kV2, kV3, kV4, kIcelake}),
       {64, 48 * KiB, 1280 * KiB, 12 * MiB},
       2,
       256},
      {"sapphirerapids", Arch::X86_64, join({kV2, kV3, kV4, kIcelake, kAmx}), spr},
      {"emeraldrapids", Arch::X86_64, join({kV2, kV3, kV4, kIcelake, kAmx}), spr},
      {"graniterapids", Arch::X86_64, join({kV2, kV3, kV4, kIcelake, kAmx, {"amx-fp16"}}), spr},
  };
  return t;
}

ArchTables aarch64_tables() {
  ArchTables t;
  t.features = {"bf16", "dotprod", "fullfp16", "i8mm", "neon", "sve", "sve2"};
  t.implications = {{"dotprod", {"neon"}}, {"fullfp16", {"neon"}}, {"bf16", {"neon"}},
                    {"i8mm", {"neon"}},    {"sve", {"fullfp16"}},  {"sve2", {"sve"}}};
  const CacheSizes a7x{64, 32 * KiB, 512 * KiB, 4 * MiB};
  const CacheSizes neoverse{64, 64 * KiB, 1 * MiB, 32 * MiB};
  t.cpus = {
      {"generic", Arch::AArch64, {"neon"}, a7x},
      {"cortex-a53", Arch::AArch64, {"neon"}, {64, 32 * KiB, 256 * KiB, 0}},
      {"cortex-a72", Arch::AArch64, {"neon"}, a7x},
      {"cortex-a76", Arch::AArch64, {"dotprod", "fullfp16"}, a7x},
      {"neoverse-n1", Arch::AArch64, {"dotprod", "fullfp16"}, neoverse},
      {"neoverse-v1", Arch::AArch64, {"dotprod", "bf16", "i8mm", "sve"}, neoverse, 4, 128},
      {"neoverse-n2", Arch::AArch64, {"dotprod", "bf16", "i8mm", "sve2"}, neoverse},
      {"apple-m1", Arch::AArch64, {"dotprod", "fullfp16"}, {128, 128 * KiB, 12 * MiB, 0}, 4, 128},
  };
  return t;
}

ArchTables riscv64_tables() {
  ArchTables t;
  t.features = {"a", "c", "d", "f", "m", "v"};
  t.implications = {{"d", {"f"}}, {"v", {"d"}}};
  t.cpus = {
      {"generic-rv64", Arch::RiscV64, {"m", "a", "f", "d", "c"}, {64, 32 * KiB, 512 * KiB, 0}},
      {"generic", Arch::RiscV64, {"m", "a", "f", "d", "c"}, {64, 32 * KiB, 512 * KiB, 0}},
      {"sifive-u74", Arch::RiscV64, {"m", "a", "f", "d", "c"}, {64, 32 * KiB, 2 * MiB, 0}},
      {"sifive-x280", Arch::RiscV64, {"m", "a", "f", "d", "c", "v"}, {64, 32 * KiB, 256 * KiB, 0}},
  };
  return t;
}

const ArchTables& tables(Arch arch) {
  static const ArchTables x86 = x86_tables(), aarch64 = aarch64_tables(),
                          riscv64 = riscv64_tables();
  switch (arch) {
    case Arch::X86_64:
      return x86;
    case Arch::AArch64:
      return aarch64;
    case Arch::RiscV64:
      return riscv64;
  }
  TESSEL_ICHECK(false, "tables: unknown architecture ", static_cast<int>(arch));
  return x86;
}

bool contains(const std::vector<std::string>& items, std::string_view item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

}  // namespace

const CpuModel* find_cpu(Arch arch, std::string_view name) {
  for (const CpuModel& cpu : tables(arch).cpus)
    if (cpu.name == name) return &cpu;
  return nullptr;
}

std::string known_cpu_names(Arch arch) {
  std::string out;
  for (const CpuModel& cpu : tables(arch).cpus)
    out += (out.empty() ? "" : ", ") + std::string(cpu.name);
  return out;
}

const std::vector<std::string_view>& known_features(Arch arch) {
  return tables(arch).features;
}

bool is_known_feature(Arch arch, std::string_view feature) {
  const auto& known = known_features(arch);
  return std::find(known.begin(), known.end(), feature) != known.end();
}

void add_implied(Arch arch, std::vector<std::string>& features) {
  for (bool changed = true; changed;) {
    changed = false;
    for (const Implication& rule : tables(arch).implications) {
      if (!contains(features, rule.feature)) continue;
      for (std::string_view needed : rule.requires_) {
        if (contains(features, needed)) continue;
        features.emplace_back(needed);
        changed = true;
      }
    }
  }
  std::sort(features.begin(), features.end());
}

void remove_with_dependents(Arch arch, std::vector<std::string>& features,
                            std::string_view feature) {
  std::erase(features, feature);
  for (const Implication& rule : tables(arch).implications) {
    bool needs =
        std::find(rule.requires_.begin(), rule.requires_.end(), feature) != rule.requires_.end();
    if (needs && contains(features, rule.feature))
      remove_with_dependents(arch, features, rule.feature);
  }
}

void derive_register_file(Target& target) {
  const CpuModel* model = find_cpu(target.arch, target.cpu);
  target.fma_units = model ? model->fma_units : CpuModel{}.fma_units;
  target.fma_unit_bits = model ? model->fma_unit_bits : CpuModel{}.fma_unit_bits;
  switch (target.arch) {
    case Arch::X86_64:
      target.vector_bits = target.has("avx512f") ? 512 : target.has("avx") ? 256 : 128;
      target.vector_registers = target.has("avx512f") ? 32 : 16;
      target.scalar_registers = 16;
      return;
    case Arch::AArch64:
      // NEON's 128-bit registers; SVE is at least as wide, and its length is known only
      // at run time.
      target.vector_bits = 128;
      target.vector_registers = 32;
      target.scalar_registers = 31;
      return;
    case Arch::RiscV64:
      // The V extension's minimum VLEN; without V, LLVM splits 128-bit vectors into scalar
      // floating-point registers.
      target.vector_bits = 128;
      target.vector_registers = 32;
      target.scalar_registers = 31;
      return;
  }
}

}  // namespace tessel::target
