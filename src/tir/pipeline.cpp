// The pass pipeline: one array of passes and the driver that runs it.
#include "tir/pipeline.h"

#include <algorithm>
#include <chrono>
#include <iostream>

#include "ir/printer.h"
#include "ir/structural.h"
#include "support/error.h"
#include "tir/expand_math.h"
#include "tir/loop_partition.h"
#include "tir/simplify.h"
#include "tir/storage_flatten.h"
#include "tir/unroll.h"
#include "tir/vectorize.h"
#include "tir/verify.h"

namespace tessel::tir {
namespace {

struct Pass {
  const char* name;
  ir::PrimFunc (*run)(const ir::PrimFunc&);
};

const Pass kPipeline[] = {
    {"storage_flatten", storage_flatten},
    {"simplify", simplify},
    {"loop_partition", loop_partition},
    {"simplify", simplify},
    {"vectorize", vectorize_loops},
    {"unroll", [](const ir::PrimFunc& f) { return unroll_loops(f); }},
    {"expand_math", expand_math},
    {"simplify", simplify},
};

/// Throws CompileError unless `name` is a pass of the pipeline (or "all" where allowed).
void check_pass_name(const std::string& name, const char* option, bool allow_all) {
  if (allow_all && name == "all") return;
  for (const Pass& p : kPipeline)
    if (name == p.name) return;
  std::vector<std::string> valid;
  for (const Pass& p : kPipeline)
    if (std::find(valid.begin(), valid.end(), p.name) == valid.end()) valid.push_back(p.name);
  std::string list;
  for (const std::string& v : valid) list += (list.empty() ? "" : ", ") + v;
  TESSEL_USER_ERROR("unknown pass '", name, "' in ", option, "; valid passes: ", list,
                    allow_all ? " (or all)" : "");
}

bool changed(const ir::PrimFunc& before, const ir::PrimFunc& after) {
  bool same_params =
      before.params.size() == after.params.size() &&
      std::equal(before.params.begin(), before.params.end(), after.params.begin(),
                 [](const ir::Buffer& a, const ir::Buffer& b) { return a.same_as(b); });
  if (same_params && before.body.same_as(after.body)) return false;
  return !ir::structural_equal(before, after);
}

void verify_after(const ir::PrimFunc& f, const std::string& stage) {
  try {
    verify_func(f);
  } catch (const InternalError& err) {
    TESSEL_INTERNAL_ERROR("invalid IR after ", stage, ": ", err.what());
  }
}

}  // namespace

std::vector<std::string> pass_names() {
  std::vector<std::string> names;
  for (const Pass& p : kPipeline) names.push_back(p.name);
  return names;
}

ir::PrimFunc run_passes(ir::PrimFunc f, const PassOptions& opts) {
  for (const std::string& name : opts.print_after) check_pass_name(name, "print_after", true);
  if (!opts.stop_after.empty()) check_pass_name(opts.stop_after, "stop_after", false);
  std::ostream& log = opts.log ? *opts.log : std::cerr;
  auto wants_print = [&](const std::string& name) {
    return std::any_of(opts.print_after.begin(), opts.print_after.end(),
                       [&](const std::string& p) { return p == "all" || p == name; });
  };
  if (opts.verify) verify_after(f, "the input");
  for (const Pass& pass : kPipeline) {
    auto start = std::chrono::steady_clock::now();
    ir::PrimFunc next = pass.run(f);
    auto stop = std::chrono::steady_clock::now();
    if (opts.time_passes) {
      std::chrono::duration<double, std::milli> ms = stop - start;
      log << "// time " << pass.name << ": " << ms.count() << " ms\n";
    }
    if (opts.verify) verify_after(next, std::string("pass '") + pass.name + "'");
    if (wants_print(pass.name) && changed(f, next)) log << "// after " << pass.name << "\n" << next;
    f = std::move(next);
    if (opts.stop_after == pass.name) break;
  }
  return f;
}

}  // namespace tessel::tir
