// The host as a Target: the processor's features and name (runtime/host_cpu.h), the
// catalog's CPU where the name is not known, and the caches from sysconf.
#include "target/host.h"

#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/host_cpu.h"
#include "target/cpu_catalog.h"

namespace tessel::target {
namespace {

std::string linux_triple(Arch arch) {
  switch (arch) {
    case Arch::X86_64:
      return "x86_64-pc-linux-gnu";
    case Arch::AArch64:
      return "aarch64-unknown-linux-gnu";
    case Arch::RiscV64:
      return "riscv64-unknown-linux-gnu";
  }
  return "";
}

/// The closest CPU of the catalog when the processor's own name is not known: x86-64's
/// psABI levels by feature.
std::string fallback_cpu(Arch arch, const std::vector<std::string>& features) {
  auto has = [&](const char* f) {
    return std::find(features.begin(), features.end(), f) != features.end();
  };
  if (arch == Arch::RiscV64) return "generic-rv64";
  if (arch != Arch::X86_64) return "generic";
  if (has("avx512f") && has("avx512bw") && has("avx512vl") && has("avx512dq")) return "x86-64-v4";
  if (has("avx2") && has("fma")) return "x86-64-v3";
  if (has("sse4.2")) return "x86-64-v2";
  return "x86-64";
}

Target detect_host() {
  Target t;
  t.arch = host_arch();
  t.triple = linux_triple(t.arch);
  const runtime::HostCpu& cpu = runtime::host_cpu();
  t.features = cpu.features;
  t.cpu = cpu.name;
  add_implied(t.arch, t.features);
  if (t.cpu.empty()) t.cpu = fallback_cpu(t.arch, t.features);
  if (const CpuModel* model = find_cpu(t.arch, t.cpu)) t.cache = model->cache;
  long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE), l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE),
       l2 = sysconf(_SC_LEVEL2_CACHE_SIZE), l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (line > 0) t.cache.line = line;
  if (l1 > 0) t.cache.l1d = l1;
  if (l2 > 0) t.cache.l2 = l2;
  if (l3 > 0) t.cache.l3 = l3;
  derive_register_file(t);
  return t;
}

}  // namespace

Arch host_arch() {
#if defined(__aarch64__)
  return Arch::AArch64;
#elif defined(__riscv)
  return Arch::RiscV64;
#else
  return Arch::X86_64;
#endif
}

const Target& host() {
  static const Target detected = detect_host();
  return detected;
}

bool runs_on_host(const Target& target, std::string* missing) {
  if (target.arch != host_arch()) {
    if (missing) *missing = std::string("architecture ") + arch_name(target.arch);
    return false;
  }
  std::string lacking;
  for (const std::string& feature : target.features)
    if (!host().has(feature)) lacking += (lacking.empty() ? "" : ", ") + feature;
  if (missing) *missing = lacking;
  return lacking.empty();
}

}  // namespace tessel::target
