// LLVM initialisation, target machines, the -O3 pipeline and machine code emission.
#include "codegen/llvm/llvm_target.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/PassManager.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CodeGen.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <mutex>

#include "support/error.h"

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

std::unique_ptr<llvm::TargetMachine> create_target_machine(const Target& target) {
  initialize_llvm();
  std::string error;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(target.triple, error);
  if (!t) TESSEL_USER_ERROR("target '", target.to_string(), "': ", error);
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(
      t->createTargetMachine(target.triple, target.cpu, target.features, options, llvm::Reloc::PIC_,
                             std::nullopt, llvm::CodeGenOptLevel::Aggressive));
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
