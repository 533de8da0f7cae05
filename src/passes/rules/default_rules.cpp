// default_rules: the rule groups in the order the rewrite tries them.
#include "passes/rules/rules.h"

namespace tessel::passes {

std::vector<RewriteRule> default_rules() {
  std::vector<RewriteRule> rules;
  for (auto group : {random_rules, recurrent_rules, passthrough_rules, layout_rules, batch_norm_rules,
                     linear_rules, gelu_rules, layer_norm_rules})
    for (RewriteRule& rule : group()) rules.push_back(std::move(rule));
  return rules;
}

}  // namespace tessel::passes
