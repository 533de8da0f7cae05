// Target description strings: parsing, host detection and validation against LLVM.
#include "codegen/llvm/target.h"

#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <memory>
#include <sstream>
#include <vector>

#include "codegen/llvm/llvm_target.h"
#include "support/error.h"

namespace tessel::codegen {
namespace {

std::string host_features() {
  std::vector<std::string> items;
  for (const auto& f : llvm::sys::getHostCPUFeatures()) {
    std::string item = f.second ? "+" : "-";
    item += f.first();
    items.push_back(item);
  }
  std::sort(items.begin(), items.end());  // deterministic text
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

/// Checks that LLVM knows the triple and the CPU; throws CompileError otherwise.
void validate(const Target& t, const std::string& text) {
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(t.triple, error);
  if (!target) TESSEL_USER_ERROR("target '", text, "': unknown triple '", t.triple, "': ", error);
  std::unique_ptr<llvm::MCSubtargetInfo> sti(target->createMCSubtargetInfo(t.triple, "", ""));
  if (t.cpu != "generic" && !sti->isCPUStringValid(t.cpu))
    TESSEL_USER_ERROR("target '", text, "': unknown CPU '", t.cpu, "' for triple '", t.triple, "'");
}

/// When `word` is `prefix` followed by a value, stores the value in `out`.
bool take_option(const std::string& word, const std::string& prefix, std::string& out) {
  if (word.rfind(prefix, 0) != 0) return false;
  out = word.substr(prefix.size());
  return true;
}

}  // namespace

const Target& Target::host() {
  static const Target host = parse("llvm");
  return host;
}

Target Target::parse(const std::string& text) {
  initialize_llvm();
  std::istringstream in(text);
  std::string word;
  if (!(in >> word) || word != "llvm")
    TESSEL_USER_ERROR("target '", text, "': expected a description starting with 'llvm'");
  std::string triple, cpu, attrs;
  while (in >> word) {
    if (take_option(word, "-mtriple=", triple)) continue;
    if (take_option(word, "-mcpu=", cpu)) continue;
    if (take_option(word, "-mattr=", attrs)) continue;
    TESSEL_USER_ERROR("target '", text, "': unknown option '", word,
                      "' (expected -mtriple=, -mcpu= or -mattr=)");
  }
  std::string host_triple = llvm::sys::getProcessTriple();
  Target t;
  t.triple = triple.empty() ? host_triple : llvm::Triple::normalize(triple);
  bool same_arch = llvm::Triple(t.triple).getArch() == llvm::Triple(host_triple).getArch();
  if (cpu == "native" || (cpu.empty() && same_arch)) {
    if (!same_arch)
      TESSEL_USER_ERROR("target '", text, "': -mcpu=native needs the host's architecture, got '",
                        t.triple, "'");
    t.cpu = llvm::sys::getHostCPUName().str();
    t.features = host_features();
  } else {
    t.cpu = cpu.empty() ? "generic" : cpu;
  }
  if (!attrs.empty()) t.features += (t.features.empty() ? "" : ",") + attrs;
  validate(t, text);
  return t;
}

std::string Target::to_string() const {
  std::string s = "llvm -mtriple=" + triple + " -mcpu=" + cpu;
  if (!features.empty()) s += " -mattr=" + features;
  return s;
}

bool Target::runs_on_host() const {
  return llvm::Triple(triple).getArch() == llvm::Triple(llvm::sys::getProcessTriple()).getArch();
}

int Target::float_lanes() const {
  if (llvm::Triple(triple).getArch() != llvm::Triple::x86_64) return 4;
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) TESSEL_USER_ERROR("target '", to_string(), "': unknown triple: ", error);
  std::unique_ptr<llvm::MCSubtargetInfo> sti(target->createMCSubtargetInfo(triple, cpu, features));
  if (sti->checkFeatures("+avx512f")) return 16;
  if (sti->checkFeatures("+avx2")) return 8;
  return 4;
}

}  // namespace tessel::codegen
