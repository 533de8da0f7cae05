// Processor detection: cpuid and XCR0 on x86-64, getauxval's hardware capabilities on
// AArch64 and RISC-V.
#include "runtime/host_cpu.h"

#include <algorithm>
#include <sstream>

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__) || defined(__riscv)
#include <sys/auxv.h>
#endif

namespace tessel::runtime {
namespace {

#if defined(__x86_64__)

struct Registers {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

Registers cpuid(unsigned leaf, unsigned subleaf = 0) {
  Registers r;
  if (!__get_cpuid_count(leaf, subleaf, &r.eax, &r.ebx, &r.ecx, &r.edx)) return {};
  return r;
}

/// The state components the operating system saves (XCR0): a feature whose registers it
/// does not save cannot be used.
uint64_t enabled_state() {
  unsigned eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (uint64_t{edx} << 32) | eax;
}

bool bit(unsigned word, int index) {
  return (word >> index) & 1u;
}

std::vector<std::string> x86_features() {
  std::vector<std::string> out;
  auto add_if = [&](bool present, const char* name) {
    if (present) out.emplace_back(name);
  };
  Registers one = cpuid(1), seven = cpuid(7, 0), seven1 = cpuid(7, 1), ext = cpuid(0x80000001);
  bool xsave = bit(one.ecx, 27);
  uint64_t state = xsave ? enabled_state() : 0;
  bool ymm = (state & 0x6) == 0x6, zmm = ymm && (state & 0xe0) == 0xe0;
  bool tiles = (state & 0x60000) == 0x60000;
  add_if(bit(one.edx, 25), "sse");
  add_if(bit(one.edx, 26), "sse2");
  add_if(bit(one.ecx, 0), "sse3");
  add_if(bit(one.ecx, 9), "ssse3");
  add_if(bit(one.ecx, 19), "sse4.1");
  add_if(bit(one.ecx, 20), "sse4.2");
  add_if(bit(one.ecx, 23), "popcnt");
  add_if(bit(one.ecx, 22), "movbe");
  add_if(bit(ext.ecx, 5), "lzcnt");
  add_if(bit(seven.ebx, 3), "bmi");
  add_if(bit(seven.ebx, 8), "bmi2");
  add_if(ymm && bit(one.ecx, 28), "avx");
  add_if(ymm && bit(one.ecx, 12), "fma");
  add_if(ymm && bit(one.ecx, 29), "f16c");
  add_if(ymm && bit(seven.ebx, 5), "avx2");
  add_if(ymm && bit(seven1.eax, 4), "avxvnni");
  add_if(zmm && bit(seven.ebx, 16), "avx512f");
  add_if(zmm && bit(seven.ebx, 17), "avx512dq");
  add_if(zmm && bit(seven.ebx, 21), "avx512ifma");
  add_if(zmm && bit(seven.ebx, 28), "avx512cd");
  add_if(zmm && bit(seven.ebx, 30), "avx512bw");
  add_if(zmm && bit(seven.ebx, 31), "avx512vl");
  add_if(zmm && bit(seven.ecx, 1), "avx512vbmi");
  add_if(zmm && bit(seven.ecx, 6), "avx512vbmi2");
  add_if(zmm && bit(seven.ecx, 11), "avx512vnni");
  add_if(zmm && bit(seven.ecx, 12), "avx512bitalg");
  add_if(zmm && bit(seven.ecx, 14), "avx512vpopcntdq");
  add_if(zmm && bit(seven.edx, 23), "avx512fp16");
  add_if(zmm && bit(seven1.eax, 5), "avx512bf16");
  add_if(tiles && bit(seven.edx, 24), "amx-tile");
  add_if(tiles && bit(seven.edx, 25), "amx-int8");
  add_if(tiles && bit(seven.edx, 22), "amx-bf16");
  add_if(tiles && bit(seven1.eax, 21), "amx-fp16");
  return out;
}

/// LLVM's name for the processor, from its vendor, family and model; "" when not known.
std::string x86_cpu_name() {
  Registers vendor = cpuid(0), one = cpuid(1);
  unsigned family = (one.eax >> 8) & 0xf, model = (one.eax >> 4) & 0xf;
  if (family == 0xf) family += (one.eax >> 20) & 0xff;
  if (family == 0x6 || family >= 0xf) model |= ((one.eax >> 16) & 0xf) << 4;
  bool amd = vendor.ebx == 0x68747541;    // "Auth"enticAMD
  bool intel = vendor.ebx == 0x756e6547;  // "Genu"ineIntel
  if (amd && family == 0x17) return (model >= 0x30 && model != 0x50) ? "znver2" : "znver1";
  if (amd && family == 0x19)
    return (model <= 0x0f || (model >= 0x20 && model <= 0x5f)) ? "znver3" : "znver4";
  if (amd && family == 0x1a) return "znver5";
  if (!intel || family != 0x6) return "";
  struct Model {
    unsigned number;
    const char* name;
  };
  static constexpr Model kIntel[] = {
      {0x3c, "haswell"},        {0x3f, "haswell"},        {0x45, "haswell"},
      {0x46, "haswell"},        {0x3d, "broadwell"},      {0x47, "broadwell"},
      {0x4f, "broadwell"},      {0x56, "broadwell"},      {0x4e, "skylake"},
      {0x5e, "skylake"},        {0x8e, "skylake"},        {0x9e, "skylake"},
      {0xa5, "skylake"},        {0x55, "skylake-avx512"}, {0x6a, "icelake-server"},
      {0x6c, "icelake-server"}, {0x8c, "tigerlake"},      {0x8d, "tigerlake"},
      {0x97, "alderlake"},      {0x9a, "alderlake"},      {0xb7, "alderlake"},
      {0xba, "alderlake"},      {0xbf, "alderlake"},      {0x8f, "sapphirerapids"},
      {0xcf, "emeraldrapids"},  {0xad, "graniterapids"},  {0xae, "graniterapids"},
  };
  for (const Model& m : kIntel)
    if (m.number == model) {
      // Cascade Lake shares Skylake-SP's model number; VNNI tells them apart.
      if (m.number == 0x55 && bit(cpuid(7, 0).ecx, 11)) return "cascadelake";
      return m.name;
    }
  return "";
}

#endif

HostCpu detect() {
  HostCpu cpu;
#if defined(__x86_64__)
  cpu.features = x86_features();
  cpu.name = x86_cpu_name();
#elif defined(__aarch64__)
  unsigned long caps = getauxval(AT_HWCAP), caps2 = getauxval(AT_HWCAP2);
  if (caps & (1ul << 1)) cpu.features.emplace_back("neon");      // HWCAP_ASIMD
  if (caps & (1ul << 9)) cpu.features.emplace_back("fullfp16");  // HWCAP_ASIMDHP
  if (caps & (1ul << 20)) cpu.features.emplace_back("dotprod");  // HWCAP_ASIMDDP
  if (caps & (1ul << 22)) cpu.features.emplace_back("sve");      // HWCAP_SVE
  if (caps2 & (1ul << 1)) cpu.features.emplace_back("sve2");     // HWCAP2_SVE2
  if (caps2 & (1ul << 13)) cpu.features.emplace_back("i8mm");    // HWCAP2_I8MM
  if (caps2 & (1ul << 14)) cpu.features.emplace_back("bf16");    // HWCAP2_BF16
#elif defined(__riscv)
  unsigned long caps = getauxval(AT_HWCAP);
  for (char letter : std::string("acdfmv"))
    if (caps & (1ul << (letter - 'a'))) cpu.features.emplace_back(1, letter);
#endif
  std::sort(cpu.features.begin(), cpu.features.end());
  return cpu;
}

}  // namespace

const HostCpu& host_cpu() {
  static const HostCpu detected = detect();
  return detected;
}

std::string missing_cpu_features(const std::string& needed) {
  const std::vector<std::string>& have = host_cpu().features;
  std::string missing, feature;
  std::istringstream in(needed);
  while (std::getline(in, feature, ','))
    if (!feature.empty() && !std::binary_search(have.begin(), have.end(), feature))
      missing += (missing.empty() ? "" : ", ") + feature;
  return missing;
}

}  // namespace tessel::runtime
