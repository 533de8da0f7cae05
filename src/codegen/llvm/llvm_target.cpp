// LLVM initialisation, target machines, the -O3 pipeline and machine code emission.
#include "codegen/llvm/llvm_target.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/PassManager.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CodeGen.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <mutex>

#include "codegen/llvm/codegen_llvm.h"
#include "support/error.h"
#include "target/cpu_catalog.h"

namespace tessel::codegen {

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

std::string llvm_features(const target::Target& target) {
  std::string out;
  for (std::string_view feature : target::known_features(target.arch))
    out += (out.empty() ? "" : ",") + std::string(target.has(feature) ? "+" : "-") +
           std::string(feature);
  if (target.has("avx512f")) out += ",+evex512";
  return out;
}

std::unique_ptr<llvm::TargetMachine> create_target_machine(const target::Target& target) {
  initialize_llvm();
  std::string error;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(target.triple, error);
  if (!t) TESSEL_USER_ERROR("target '", target.to_string(), "': ", error);
  std::unique_ptr<llvm::MCSubtargetInfo> info(t->createMCSubtargetInfo(target.triple, "", ""));
  if (target.cpu != "generic" && !info->isCPUStringValid(target.cpu))
    TESSEL_USER_ERROR("target '", target.to_string(), "': LLVM does not know CPU '", target.cpu,
                      "'");
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(
      t->createTargetMachine(target.triple, target.cpu, llvm_features(target), options,
                             llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  TESSEL_ICHECK(machine, "LLVM created no target machine for ", target.to_string());
  return machine;
}

void optimize_module(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  tuning.LoopInterleaving = true;
  tuning.LoopUnrolling = true;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  passes.run(module, mam);
}

namespace {

void emit_file(const llvm::Module& module, llvm::TargetMachine& machine,
               llvm::raw_pwrite_stream& out, llvm::CodeGenFileType type) {
  // Code generation passes rewrite the IR they run on: work on a copy.
  std::unique_ptr<llvm::Module> copy = llvm::CloneModule(module);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, out, nullptr, type))
    TESSEL_INTERNAL_ERROR("target ", machine.getTargetTriple().str(),
                          " cannot emit this kind of file");
  passes.run(*copy);
}

}  // namespace

std::string emit_assembly_text(const llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream out(text);
  emit_file(module, machine, out, llvm::CodeGenFileType::AssemblyFile);
  return std::string(text.str());
}

void emit_object(const llvm::Module& module, llvm::TargetMachine& machine,
                 llvm::raw_pwrite_stream& out) {
  emit_file(module, machine, out, llvm::CodeGenFileType::ObjectFile);
}

}  // namespace tessel::codegen
