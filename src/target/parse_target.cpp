// Target descriptions: options, shorthands, triples, CPUs and feature switches.
#include "target/parse_target.h"

#include <algorithm>
#include <sstream>
#include <tuple>
#include <utility>
#include <vector>

#include "support/error.h"
#include "target/cpu_catalog.h"
#include "target/host.h"

namespace tessel::target {
namespace {

struct Shorthand {
  const char* name;
  const char* description;
};

const Shorthand kShorthands[] = {
    {"x86-64-avx2", "llvm -mtriple=x86_64-unknown-linux-gnu -mcpu=x86-64-v3"},
    {"x86-64-avx512", "llvm -mtriple=x86_64-unknown-linux-gnu -mcpu=x86-64-v4"},
    {"x86-64-v2", "llvm -mtriple=x86_64-unknown-linux-gnu -mcpu=x86-64-v2"},
    {"x86-64-v3", "llvm -mtriple=x86_64-unknown-linux-gnu -mcpu=x86-64-v3"},
    {"x86-64-v4", "llvm -mtriple=x86_64-unknown-linux-gnu -mcpu=x86-64-v4"},
    {"aarch64", "llvm -mtriple=aarch64-unknown-linux-gnu -mcpu=generic"},
    {"riscv64", "llvm -mtriple=riscv64-unknown-linux-gnu -mcpu=generic-rv64 -mattr=+v"},
};

/// When `word` is `prefix` followed by a value, stores the value in `out`.
bool take_option(const std::string& word, const std::string& prefix, std::string& out) {
  if (word.rfind(prefix, 0) != 0) return false;
  out = word.substr(prefix.size());
  return true;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

/// The architecture and normalised triple ("x86_64-linux-gnu" -> "x86_64-unknown-linux-gnu").
std::pair<Arch, std::string> parse_triple(const std::string& triple, const std::string& text) {
  std::vector<std::string> parts = split(triple, '-');
  bool empty_part = triple.empty() || triple.back() == '-' ||
                    std::find(parts.begin(), parts.end(), "") != parts.end();
  if (empty_part || parts.size() < 2 || parts.size() > 4)
    TESSEL_USER_ERROR("target '", text, "': unknown triple '", triple,
                      "' (expected arch-vendor-os-environment, e.g. aarch64-linux-gnu)");
  Arch arch;
  if (parts[0] == "x86_64" || parts[0] == "amd64") {
    arch = Arch::X86_64;
    parts[0] = "x86_64";
  } else if (parts[0] == "aarch64" || parts[0] == "arm64") {
    arch = Arch::AArch64;
    parts[0] = "aarch64";
  } else if (parts[0] == "riscv64") {
    arch = Arch::RiscV64;
  } else {
    TESSEL_USER_ERROR("target '", text, "': unknown triple '", triple, "': architecture '",
                      parts[0], "' is not one of x86_64, aarch64, riscv64");
  }
  // arch-os-env (the vendor left out) takes the "unknown" vendor, as LLVM normalises it.
  if (parts.size() == 3 && (parts[1] == "linux" || parts[1] == "none"))
    parts.insert(parts.begin() + 1, "unknown");
  std::string normalised;
  for (const std::string& part : parts) normalised += (normalised.empty() ? "" : "-") + part;
  return {arch, normalised};
}

/// Applies "+a,-b" to `t.features`.
void apply_switches(Target& t, const std::string& switches, const std::string& text) {
  for (const std::string& item : split(switches, ',')) {
    if (item.size() < 2 || (item[0] != '+' && item[0] != '-'))
      TESSEL_USER_ERROR("target '", text, "': feature switch '", item,
                        "' must be '+name' or '-name'");
    std::string feature = item.substr(1);
    if (!is_known_feature(t.arch, feature)) {
      std::string known;
      for (std::string_view f : known_features(t.arch))
        known += (known.empty() ? "" : ", ") + std::string(f);
      TESSEL_USER_ERROR("target '", text, "': unknown feature '", feature, "' for ",
                        arch_name(t.arch), " (known: ", known, ")");
    }
    if (item[0] == '+') {
      if (!t.has(feature)) t.features.push_back(feature);
      add_implied(t.arch, t.features);
    } else {
      remove_with_dependents(t.arch, t.features, feature);
    }
  }
}

/// "llvm ..." after the shorthand, if any, was expanded.
Target parse_llvm(const std::string& description, const std::string& text) {
  std::istringstream in(description);
  std::string word;
  if (!(in >> word) || word != "llvm")
    TESSEL_USER_ERROR("target '", text, "': expected a description starting with 'llvm' or a ",
                      "shorthand (", target_shorthands(), ")");
  std::string triple, cpu, switches;
  while (in >> word) {
    std::string value;
    if (take_option(word, "-mtriple=", triple) || take_option(word, "-mcpu=", cpu)) continue;
    if (take_option(word, "-mattr=", value)) {
      switches += (switches.empty() || value.empty() ? "" : ",") + value;
      continue;
    }
    TESSEL_USER_ERROR("target '", text, "': unknown option '", word,
                      "' (expected -mtriple=, -mcpu= or -mattr=)");
  }
  const Target& machine = host();
  Target t;
  if (triple.empty()) {
    t.arch = machine.arch;
    t.triple = machine.triple;
  } else {
    std::tie(t.arch, t.triple) = parse_triple(triple, text);
  }
  bool same_arch = t.arch == machine.arch;
  if (cpu == "native" && !same_arch)
    TESSEL_USER_ERROR("target '", text, "': -mcpu=native needs the host's architecture (",
                      arch_name(machine.arch), "), got '", t.triple, "'");
  if (cpu == "native" || (cpu.empty() && same_arch)) {
    t.cpu = machine.cpu;
    t.features = machine.features;
    t.cache = machine.cache;
  } else {
    t.cpu = cpu.empty() ? "generic" : cpu;
    const CpuModel* model = find_cpu(t.arch, t.cpu);
    if (!model)
      TESSEL_USER_ERROR("target '", text, "': unknown CPU '", t.cpu, "' for ", arch_name(t.arch),
                        " (known: ", known_cpu_names(t.arch), ")");
    t.features.assign(model->features.begin(), model->features.end());
    add_implied(t.arch, t.features);
    t.cache = model->cache;
  }
  if (!switches.empty()) apply_switches(t, switches, text);
  derive_register_file(t);
  return t;
}

}  // namespace

Target parse_target(const std::string& text) {
  std::istringstream in(text);
  std::string first;
  if (!(in >> first)) return host();
  std::string rest((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const Shorthand& shorthand : kShorthands)
    if (first == shorthand.name) return parse_llvm(shorthand.description + rest, text);
  return parse_llvm(text, text);
}

std::string target_shorthands() {
  std::string out;
  for (const Shorthand& shorthand : kShorthands)
    out += (out.empty() ? "" : ", ") + std::string(shorthand.name);
  return out;
}

}  // namespace tessel::target
