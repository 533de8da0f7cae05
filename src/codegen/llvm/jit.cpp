// JitModule: builds the LLVM module, hands it to an LLJIT configured for the target and
// looks every function up once (so compilation errors surface in the constructor).
#include "codegen/llvm/jit.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/TargetParser/SubtargetFeature.h>

#include <ostream>
#include <unordered_map>

#include "codegen/llvm/codegen_llvm.h"
#include "codegen/llvm/libm_symbols.h"
#include "codegen/llvm/llvm_module.h"
#include "codegen/llvm/llvm_target.h"
#include "support/error.h"

namespace tessel::codegen {
namespace {

/// Returns the value of `result` or throws an InternalError with LLVM's message.
template <class T>
T take(llvm::Expected<T> result, const char* what) {
  if (!result) TESSEL_INTERNAL_ERROR(what, ": ", llvm::toString(result.takeError()));
  return std::move(*result);
}

void check(llvm::Error error, const char* what) {
  if (error) TESSEL_INTERNAL_ERROR(what, ": ", llvm::toString(std::move(error)));
}

std::unique_ptr<llvm::orc::LLJIT> create_jit(const target::Target& target) {
  llvm::orc::JITTargetMachineBuilder machine{llvm::Triple(target.triple)};
  machine.setCPU(target.cpu);
  machine.addFeatures(llvm::SubtargetFeatures(llvm_features(target)).getFeatures());
  machine.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  machine.setRelocationModel(llvm::Reloc::PIC_);
  auto jit = take(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(machine)).create(),
                  "cannot create the LLVM JIT");
  llvm::orc::JITDylib& dylib = jit->getMainJITDylib();
  // The runtime's entry points, bound to this process's copies.
  llvm::orc::SymbolMap runtime;
  auto define = [&](const char* name, auto* address) {
    runtime[jit->mangleAndIntern(name)] = llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(address),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  };
  define("tessel_parallel_for", &tessel_parallel_for);
  define("tessel_workspace_alloc", &tessel_workspace_alloc);
  define("tessel_workspace_free", &tessel_workspace_free);
  for (const auto& [name, address] : libm_symbols()) define(name, address);
  check(dylib.define(llvm::orc::absoluteSymbols(std::move(runtime))),
        "cannot define the runtime symbols");
  // Anything else (libc's memset, memcpy) from the process.
  dylib.addGenerator(take(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                              jit->getDataLayout().getGlobalPrefix()),
                          "cannot search the process's symbols"));
  return jit;
}

}  // namespace

struct JitModule::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::unordered_map<std::string, tessel_kernel> functions;
};

JitModule::JitModule(const std::vector<ir::PrimFunc>& funcs, const JitOptions& options)
    : impl_(std::make_unique<Impl>()) {
  const target::Target& target = options.target;
  std::string missing;
  if (!target::runs_on_host(target, &missing))
    TESSEL_USER_ERROR("JIT: target '", target.to_string(), "' does not run on this machine (",
                      "the host lacks ", missing, "); use emit_object_file instead");
  std::unique_ptr<llvm::TargetMachine> machine = create_target_machine(target);
  auto context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module = build_llvm_module(funcs, *context, *machine);
  if (options.ir_out) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, nullptr);
    *options.ir_out << os.str();
  }
  if (options.asm_out) *options.asm_out << emit_assembly_text(*module, *machine);
  impl_->jit = create_jit(target);
  check(impl_->jit->addIRModule(llvm::orc::ThreadSafeModule(
            std::move(module), llvm::orc::ThreadSafeContext(std::move(context)))),
        "cannot add the module to the JIT");
  for (const ir::PrimFunc& f : funcs) {
    llvm::orc::ExecutorAddr address = take(impl_->jit->lookup(f.name), "JIT compilation failed");
    impl_->functions[f.name] = address.toPtr<tessel_kernel>();
  }
}

JitModule::~JitModule() = default;
JitModule::JitModule(JitModule&&) noexcept = default;
JitModule& JitModule::operator=(JitModule&&) noexcept = default;

tessel_kernel JitModule::get_function(const std::string& name) const {
  auto it = impl_->functions.find(name);
  if (it == impl_->functions.end()) TESSEL_USER_ERROR("JIT module has no function '", name, "'");
  return it->second;
}

bool JitModule::has_function(const std::string& name) const {
  return impl_->functions.count(name) != 0;
}

}  // namespace tessel::codegen
