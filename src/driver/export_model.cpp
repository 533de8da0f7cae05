// export_model: the plan and the weights go into the library through an assembly file that
// includes their bytes with .incbin, so that even hundreds of megabytes of weights cost one
// file copy and no compiler memory.
#include "driver/export_model.h"

#include <set>
#include <sstream>

#include "codegen/backend.h"
#include "runtime/error.h"
#include "runtime/model.h"
#include "support/error.h"
#include "support/temp_file.h"

namespace tessel::driver {
namespace {

/// `text` as a quoted string for the GNU assembler.
std::string asm_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

/// Assembly defining `symbol` as the NUL-terminated string `text`.
void define_string(std::ostream& out, const std::string& symbol, const std::string& text) {
  out << "  .globl " << symbol << "\n"
      << "  .type " << symbol << ", %object\n"
      << symbol << ":\n"
      << "  .asciz " << asm_string(text) << "\n"
      << "  .size " << symbol << ", . - " << symbol << "\n";
}

/// Assembly defining `symbol` as the bytes of `file` (aligned to `alignment`) and
/// `size_symbol` as their count.
void define_blob(std::ostream& out, const std::string& symbol, const std::string& size_symbol,
                 const std::string& file, size_t size, int alignment) {
  out << "  .globl " << symbol << "\n"
      << "  .type " << symbol << ", %object\n"
      << "  .balign " << alignment << "\n"
      << symbol << ":\n"
      << "  .incbin " << asm_string(file) << "\n"
      << "  .size " << symbol << ", . - " << symbol << "\n"
      << "  .globl " << size_symbol << "\n"
      << "  .type " << size_symbol << ", %object\n"
      << "  .balign 8\n"
      << size_symbol << ":\n"
      << "  .quad " << size << "\n"
      << "  .size " << size_symbol << ", 8\n";
}

void check_plan(const std::vector<ir::PrimFunc>& kernels, const runtime::ModelPlan& plan,
                const std::vector<uint8_t>& weights) {
  std::vector<uint8_t> bytes = runtime::serialize_plan(plan);
  try {
    runtime::deserialize_plan(bytes.data(), bytes.size());
  } catch (const runtime::Error& e) {
    TESSEL_USER_ERROR("export_model: invalid plan for model '", plan.name, "': ", e.what());
  }
  if (static_cast<int64_t>(weights.size()) != plan.weights_bytes)
    TESSEL_USER_ERROR("export_model: model '", plan.name, "': ", weights.size(),
                      " bytes of weights given, the plan expects ", plan.weights_bytes);
  std::set<std::string> names;
  for (const ir::PrimFunc& f : kernels) names.insert(f.name);
  for (size_t k = 0; k < plan.steps.size(); ++k)
    if (plan.steps[k].kind == runtime::StepKind::Kernel && !names.count(plan.steps[k].kernel))
      TESSEL_USER_ERROR("export_model: model '", plan.name, "': step ", k, " ('",
                        plan.steps[k].label, "') calls kernel '", plan.steps[k].kernel,
                        "', which is not among the ", kernels.size(), " kernels given");
}

}  // namespace

void export_model(const std::vector<ir::PrimFunc>& kernels, const runtime::ModelPlan& plan,
                  const std::vector<uint8_t>& weights, const std::string& path,
                  const BuildOptions& options) {
  check_plan(kernels, plan, weights);
  std::vector<uint8_t> plan_bytes = runtime::serialize_plan(plan);
  TemporaryFile plan_file(".plan");
  TemporaryFile weights_file(".weights");
  TemporaryFile asm_file(".s");
  write_file(plan_file.path(), plan_bytes.data(), plan_bytes.size(), "export_model");
  write_file(weights_file.path(), weights.data(), weights.size(), "export_model");

  std::ostringstream s;
  s << "# tessel model '" << plan.name << "': plan and weights\n"
    << "  .section .rodata.tessel_model, \"a\"\n";
  define_blob(s, runtime::kPlanSymbol, runtime::kPlanSizeSymbol, plan_file.path(),
              plan_bytes.size(), 8);
  define_blob(s, runtime::kWeightsSymbol, runtime::kWeightsSizeSymbol, weights_file.path(),
              weights.size(), static_cast<int>(kArgumentAlignment));
  // The target, and the features its code needs: the runtime refuses the library on a
  // processor without them instead of failing on an illegal instruction.
  std::string features;
  for (const std::string& feature : options.target.features)
    features += (features.empty() ? "" : ",") + feature;
  define_string(s, runtime::kTargetSymbol, options.target.to_string());
  define_string(s, runtime::kFeaturesSymbol, features);
  // No executable stack for the library.
  s << "  .section .note.GNU-stack, \"\", %progbits\n";
  std::string text = s.str();
  write_file(asm_file.path(), text.data(), text.size(), "export_model");

  codegen::backend_for(options.target)
      .emit_shared_library(kernels, options.target, path, {asm_file.path()});
}

}  // namespace tessel::driver
