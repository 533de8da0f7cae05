// Module construction (name checks, per-function target attributes, verification,
// optimisation) and the text emitters of codegen_llvm.h.
#include "codegen/llvm/codegen_llvm.h"

#include <llvm/IR/Verifier.h>

#include <cctype>
#include <set>

#include "codegen/llvm/function_codegen.h"
#include "codegen/llvm/libm_symbols.h"
#include "codegen/llvm/llvm_module.h"
#include "codegen/llvm/llvm_target.h"
#include "support/error.h"
#include "tir/expand_math.h"

namespace tessel::codegen {
namespace {

void check_names(const std::vector<ir::PrimFunc>& funcs) {
  std::set<std::string> names;
  for (const ir::PrimFunc& f : funcs) {
    bool valid = !f.name.empty() && !std::isdigit(static_cast<unsigned char>(f.name[0]));
    for (char c : f.name)
      valid = valid && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!valid)
      TESSEL_USER_ERROR(
          "codegen: function name '", f.name,
          "' is not a C identifier (letters, digits and '_', not starting with a digit)");
    if (f.name.rfind("tessel_", 0) == 0)
      TESSEL_USER_ERROR("codegen: function name '", f.name,
                        "' uses the prefix 'tessel_', reserved for the runtime");
    for (const auto& [libm_name, address] : libm_symbols())
      if (f.name == libm_name)
        TESSEL_USER_ERROR("codegen: function name '", f.name,
                          "' is a C math library function, which kernels may call; choose "
                          "another name");
    if (!names.insert(f.name).second)
      TESSEL_USER_ERROR("codegen: two functions are named '", f.name, "'");
    if (!f.body.defined()) TESSEL_USER_ERROR("codegen of '", f.name, "': the body is undefined");
  }
}

}  // namespace

std::unique_ptr<llvm::Module> build_llvm_module(const std::vector<ir::PrimFunc>& funcs,
                                                llvm::LLVMContext& context,
                                                llvm::TargetMachine& machine, bool optimize) {
  check_names(funcs);
  auto module = std::make_unique<llvm::Module>("tessel", context);
  module->setTargetTriple(machine.getTargetTriple().str());
  module->setDataLayout(machine.createDataLayout());
  for (const ir::PrimFunc& f : funcs) {
    // IR that did not come through the pass pipeline (built by hand or by a tool) may
    // still hold the math calls that only expand_math computes; after it, a no-op.
    ir::PrimFunc expanded = tir::expand_math(f);
    FunctionCodeGen(*module, expanded).emit();
  }
  // The vectorisers and the backend read the CPU and its features from each function.
  for (llvm::Function& f : *module) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", machine.getTargetCPU());
    if (!machine.getTargetFeatureString().empty())
      f.addFnAttr("target-features", machine.getTargetFeatureString());
  }
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*module, &os))
    TESSEL_INTERNAL_ERROR("codegen produced invalid LLVM IR: ", os.str());
  if (optimize) optimize_module(*module, machine);
  return module;
}

std::string emit_llvm_ir(const std::vector<ir::PrimFunc>& funcs, const target::Target& target,
                         bool optimize) {
  std::unique_ptr<llvm::TargetMachine> machine = create_target_machine(target);
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = build_llvm_module(funcs, context, *machine, optimize);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, nullptr);
  return os.str();
}

std::string emit_assembly(const std::vector<ir::PrimFunc>& funcs, const target::Target& target) {
  std::unique_ptr<llvm::TargetMachine> machine = create_target_machine(target);
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = build_llvm_module(funcs, context, *machine);
  return emit_assembly_text(*module, *machine);
}

}  // namespace tessel::codegen
