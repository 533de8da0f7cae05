// The CPUs and instruction-set features tessel knows, per architecture: each CPU's
// features and caches, which feature implies which, and the register file a feature set
// gives. Constant tables: a new CPU is one row, a new architecture one table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "target/target.h"

namespace tessel::target {

/// A CPU as LLVM names it: its architecture, the features it has (implied ones may be left
/// out), its per-core cache sizes and its vector FMA units (Target::fma_units; the default,
/// two units as wide as any vector, is an upper bound for the CPUs not listed otherwise).
struct CpuModel {
  std::string_view name;
  Arch arch;
  std::vector<std::string_view> features;
  CacheSizes cache;
  int fma_units = 2;
  int fma_unit_bits = 512;
};

/// The CPU called `name` on `arch`, or nullptr.
const CpuModel* find_cpu(Arch arch, std::string_view name);
/// The names of the CPUs of `arch`, for error messages.
std::string known_cpu_names(Arch arch);

/// The features of `arch` tessel reads and switches (LLVM's names), sorted.
const std::vector<std::string_view>& known_features(Arch arch);
bool is_known_feature(Arch arch, std::string_view feature);

/// Adds to `features` every feature one of them implies (avx512f -> avx2 -> avx -> ...).
void add_implied(Arch arch, std::vector<std::string>& features);
/// Removes `feature` and every feature that implies it (-avx2 also drops avx512f).
void remove_with_dependents(Arch arch, std::vector<std::string>& features,
                            std::string_view feature);

/// Sets the target's vector width and register counts from its architecture and features,
/// and its FMA units from its CPU's row.
void derive_register_file(Target& target);

}  // namespace tessel::target
