// Target's queries and its description text.
#include "target/target.h"

#include <algorithm>

#include "target/cpu_catalog.h"

namespace tessel::target {

const char* arch_name(Arch arch) {
  switch (arch) {
    case Arch::X86_64:
      return "x86-64";
    case Arch::AArch64:
      return "aarch64";
    case Arch::RiscV64:
      return "riscv64";
  }
  return "unknown";
}

bool Target::has(std::string_view feature) const {
  return std::binary_search(features.begin(), features.end(), feature);
}

int64_t Target::peak_flops_per_cycle(int element_bits) const {
  return int64_t{2} * fma_units * (std::min(fma_unit_bits, vector_bits) / element_bits);
}

std::string Target::to_string() const {
  std::string text = "llvm -mtriple=" + triple + " -mcpu=" + cpu;
  std::vector<std::string> own;
  if (const CpuModel* model = find_cpu(arch, cpu)) {
    own.assign(model->features.begin(), model->features.end());
    add_implied(arch, own);
  }
  std::string switches;
  auto add = [&](char sign, const std::string& feature) {
    switches += (switches.empty() ? "" : ",") + std::string(1, sign) + feature;
  };
  for (const std::string& feature : features)
    if (!std::binary_search(own.begin(), own.end(), feature)) add('+', feature);
  for (const std::string& feature : own)
    if (!has(feature)) add('-', feature);
  if (!switches.empty()) text += " -mattr=" + switches;
  return text;
}

}  // namespace tessel::target
