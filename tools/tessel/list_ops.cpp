// `tessel list-ops`: the operator registry as a table (name, opsets, pattern kind).
#include <iostream>
#include <string>

#include "commands.h"
#include "ops/registry.h"

namespace tessel::cli {

int run_list_ops(const std::vector<std::string>& args) {
  if (!args.empty()) {
    std::cerr << "tessel list-ops takes no arguments\n";
    return 2;
  }
  // Models import ONNX opsets up to 17; a newer operator (Gelu, opset 20) is one that the
  // graph rewrites produce, as are those of tessel's own domain. Operators of other domains
  // (ai.onnx.preview.training) name their domain's opset.
  std::cout << "operator\topsets\tpattern\n";
  for (const ops::OpDef* def : ops::OpRegistry::global().all()) {
    std::string opsets = def->since_version > 17 ? std::to_string(def->since_version) + " (rewrites)"
                                                 : std::to_string(def->since_version) + "-17";
    std::string name = def->name;
    if (def->domain == "tessel") {
      name = def->domain + "." + name;
      opsets = "(graph passes)";
    } else if (!def->domain.empty()) {
      opsets = std::to_string(def->since_version) + " (" + def->domain + ")";
    }
    std::cout << name << "\t" << opsets << "\t" << ops::pattern_name(def->pattern) << "\n";
  }
  return 0;
}

}  // namespace tessel::cli
