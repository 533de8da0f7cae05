// The LLVM backend behind the Backend interface: ORC JIT in process, object files and
// shared libraries ahead of time, assembly as text.
#include "codegen/backend.h"
#include "codegen/llvm/aot.h"
#include "codegen/llvm/codegen_llvm.h"
#include "codegen/llvm/jit.h"
#include "support/error.h"

namespace tessel::codegen {
namespace {

class LlvmBackend final : public Backend {
 public:
  const char* name() const override { return "llvm"; }

  std::unique_ptr<LoadedModule> load_in_process(const std::vector<ir::PrimFunc>& funcs,
                                                const target::Target& target,
                                                const EmitListing& listing) const override {
    return std::make_unique<JitModule>(funcs, JitOptions{target, listing.ir_out, listing.asm_out});
  }

  void emit_object_file(const std::vector<ir::PrimFunc>& funcs, const target::Target& target,
                        const std::string& path) const override {
    codegen::emit_object_file(funcs, target, path);
  }

  void emit_shared_library(const std::vector<ir::PrimFunc>& funcs, const target::Target& target,
                           const std::string& path,
                           const std::vector<std::string>& extra_inputs) const override {
    codegen::emit_shared_library(funcs, target, path, extra_inputs);
  }

  std::string emit_text(const std::vector<ir::PrimFunc>& funcs,
                        const target::Target& target) const override {
    return emit_assembly(funcs, target);
  }
};

}  // namespace

const Backend& backend_for(const target::Target& target) {
  static const LlvmBackend llvm;
  switch (target.kind) {
    case target::Kind::Llvm:
      return llvm;
  }
  TESSEL_INTERNAL_ERROR("backend_for: target '", target.to_string(), "' has no backend");
}

}  // namespace tessel::codegen
