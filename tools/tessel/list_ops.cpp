// `tessel list-ops`: the operator registry as a table (name, opsets, pattern kind).
#include <iostream>

#include "commands.h"
#include "ops/registry.h"

namespace tessel::cli {

int run_list_ops(const std::vector<std::string>& args) {
  if (!args.empty()) {
    std::cerr << "tessel list-ops takes no arguments\n";
    return 2;
  }
  std::cout << "operator\topsets\tpattern\n";
  for (const ops::OpDef* def : ops::OpRegistry::global().all())
    std::cout << def->name << "\t" << def->since_version << "-17\t" << ops::pattern_name(def->pattern)
              << "\n";
  return 0;
}

}  // namespace tessel::cli
