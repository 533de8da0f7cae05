// `tessel inspect`: the graph after each pass, the fused groups and the memory plan.
#include <iomanip>
#include <iostream>

#include "commands.h"
#include "model_source.h"
#include "support/error.h"

namespace tessel::cli {
namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t d = 0; d < shape.size(); ++d) text += (d ? "," : "") + std::to_string(shape[d]);
  return text + "]";
}

void print_groups(const compiler::CompiledModel& model) {
  std::cout << "== fused groups: " << model.stats.nodes << " nodes -> "
            << model.stats.kernel_launches << " kernel launches ("
            << model.plan.steps.size() - model.stats.kernel_launches << " control-flow steps), "
            << model.kernels.size() << " distinct kernels, "
            << compiler::describe_layout_changes(model.stats) << ", "
            << compiler::describe_views(model.stats) << "\n";
  for (size_t k = 0; k < model.plan.steps.size(); ++k) {
    const runtime::PlanStep& step = model.plan.steps[k];
    if (step.kind != runtime::StepKind::Kernel) {
      std::cout << std::setw(4) << k << "  (" << runtime::step_kind_name(step.kind) << ") "
                << step.label;
      if (step.kind == runtime::StepKind::Jump || step.kind == runtime::StepKind::JumpUnless ||
          step.kind == runtime::StepKind::LoopTest)
        std::cout << " -> step " << step.target;
      std::cout << "\n";
      continue;
    }
    const runtime::PlanTensor& out = model.plan.tensors[step.args.back()];
    std::cout << std::setw(4) << k << "  " << std::left << std::setw(28) << step.kernel
              << std::right << " " << step.label << " -> " << out.name << " "
              << shape_text(out.shape) << "\n";
  }
}

void print_memory(const runtime::ModelPlan& plan) {
  std::cout << "== memory plan: " << compiler::describe_memory(plan) << "\n";
  for (const runtime::PlanTensor& t : plan.tensors) {
    if (t.storage != runtime::Storage::Arena) continue;
    std::cout << "  arena[" << std::setw(10) << t.offset << ", +" << std::setw(9) << t.nbytes()
              << ")  " << t.name << " " << shape_text(t.shape) << "\n";
  }
}

}  // namespace

int run_inspect(const std::vector<std::string>& args) {
  std::string input;
  CompileFlags flags;
  flags.print_after = "all";
  for (size_t i = 0; i < args.size(); ++i) {
    if (flags.parse(args, i)) continue;
    if (!args[i].empty() && args[i][0] == '-')
      TESSEL_USER_ERROR("inspect: unknown option '", args[i], "'");
    if (!input.empty()) TESSEL_USER_ERROR("inspect: more than one model given");
    input = args[i];
  }
  if (input.empty())
    TESSEL_USER_ERROR(
        "usage: tessel inspect <model.onnx> [--print-after PASS|all] "
        "[--input-shape NAME=SHAPE]... [--no-fusion] [--no-blocked-layout] [--no-winograd]");
  compiler::CompiledModel model = compile_onnx(input, flags, false);
  print_groups(model);
  print_memory(model.plan);
  return 0;
}

}  // namespace tessel::cli
