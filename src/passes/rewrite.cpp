// rewrite: the rule engine (match context, replacement builder, sweeps to a fixed point).
#include "passes/rewrite.h"

#include <set>

#include "passes/eliminate_dead_code.h"
#include "passes/infer_types.h"
#include "runtime/ndarray_element.h"
#include "support/error.h"

namespace tessel::passes {

namespace {

/// Whether nothing outside the match reads the outputs of its interior nodes.
bool interior_is_closed(const MatchContext& ctx, const Match& match) {
  std::set<const graph::Node*> inside(match.interior.begin(), match.interior.end());
  inside.insert(match.anchor);
  for (const graph::Node* node : match.interior)
    for (const graph::Value* out : node->outputs) {
      if (!out) continue;
      if (ctx.is_graph_output(out)) return false;
      for (const graph::Node* user : ctx.users(out))
        if (!inside.count(user)) return false;
    }
  return true;
}

/// Applies the first matching rule to `node`; whether one applied.
bool apply_first(const MatchContext& ctx, const std::vector<RewriteRule>& rules,
                 const graph::Node& node, GraphBuilder& builder) {
  if (!node.domain.empty() && node.domain != "ai.onnx") return false;
  for (const RewriteRule& rule : rules) {
    if (rule.anchor != node.op_type) continue;
    std::optional<Match> match = rule.match(ctx, node);
    if (!match) continue;
    match->anchor = &node;
    if (!interior_is_closed(ctx, *match)) continue;
    Rewriter rewriter(builder, *match);
    rule.replace(*match, rewriter);
    for (const graph::Value* out : node.outputs)
      TESSEL_ICHECK(ctx.unused(out) || builder.has_value(out), "rewrite rule '", rule.name,
                    "' left output '", out->name, "' of ", node.describe(), " undefined");
    return true;
  }
  return false;
}

/// One sweep over `graph`: the rewritten graph, or nullopt when no rule applied.
std::optional<graph::Graph> sweep(const graph::Graph& graph,
                                  const std::vector<RewriteRule>& rules) {
  MatchContext ctx(graph);
  GraphBuilder builder(graph);
  bool changed = false;
  for (const auto& node : graph.nodes()) {
    if (apply_first(ctx, rules, *node, builder))
      changed = true;
    else
      builder.copy_node(*node);
  }
  graph::Graph result = builder.finish();
  if (!changed) return std::nullopt;
  return result;
}

}  // namespace

// ---- MatchContext -----------------------------------------------------------------------

MatchContext::MatchContext(const graph::Graph& graph) : graph_(graph) {
  for (const graph::Value* out : graph.outputs()) outputs_[out] = true;
  for (const auto& value : graph.values())
    if (value->is_constant()) static_[value.get()] = true;
  for (const auto& node : graph.nodes()) {
    bool all_static = true;
    for (const graph::Value* in : node->inputs) {
      if (!in) continue;
      users_[in].push_back(node.get());
      all_static &= static_.count(in) > 0;
    }
    if (all_static)
      for (const graph::Value* out : node->outputs)
        if (out) static_[out] = true;
  }
}

const graph::Node* MatchContext::producer(const graph::Value* v, const std::string& op_type) const {
  if (!v || !v->producer) return nullptr;
  const graph::Node* node = v->producer;
  bool onnx = node->domain.empty() || node->domain == "ai.onnx";
  return onnx && node->op_type == op_type ? node : nullptr;
}

const std::vector<const graph::Node*>& MatchContext::users(const graph::Value* v) const {
  static const std::vector<const graph::Node*> none;
  auto it = users_.find(v);
  return it == users_.end() ? none : it->second;
}

bool MatchContext::is_graph_output(const graph::Value* v) const {
  return outputs_.count(v) > 0;
}

bool MatchContext::unused(const graph::Value* v) const {
  return !v || (users(v).empty() && !is_graph_output(v));
}

bool MatchContext::is_static(const graph::Value* v) const {
  return static_.count(v) > 0;
}

std::optional<double> MatchContext::scalar(const graph::Value* v) const {
  if (!v || !v->is_constant() || v->constant->size() != 1) return std::nullopt;
  return runtime::element_as_double(*v->constant, 0);
}

// ---- Rewriter ---------------------------------------------------------------------------

graph::Value* Rewriter::constant(runtime::NDArray data) {
  return builder_.add_constant(match_.anchor->name.empty() ? "c" : match_.anchor->name + ".c",
                               std::make_shared<const runtime::NDArray>(std::move(data)));
}

graph::Value* Rewriter::fill(double v, const std::vector<int64_t>& shape, ir::DataType dtype) {
  TESSEL_ICHECK(dtype.is_float(), "a float constant of type ", dtype.to_string());
  runtime::NDArray data(shape, graph::to_runtime_dtype(dtype));
  for (int64_t k = 0; k < data.size(); ++k) {
    if (dtype.bits == 16)
      data.data_as<_Float16>()[k] = static_cast<_Float16>(v);
    else if (dtype.bits == 32)
      data.data_as<float>()[k] = static_cast<float>(v);
    else
      data.data_as<double>()[k] = v;
  }
  return constant(std::move(data));
}

graph::Value* Rewriter::ints(const std::vector<int64_t>& values) {
  runtime::NDArray data({static_cast<int64_t>(values.size())}, runtime::DType::Int(64));
  std::copy(values.begin(), values.end(), data.data_as<int64_t>());
  return constant(std::move(data));
}

graph::Value* Rewriter::op(const std::string& op_type, std::vector<graph::Value*> inputs,
                           std::map<std::string, graph::Attribute> attributes,
                           const std::string& name) {
  std::string hint = name.empty() ? op_type : name;
  if (!match_.anchor->name.empty()) hint = match_.anchor->name + "." + hint;
  graph::Value* out = builder_.add_value(hint);
  add_node(op_type, std::move(inputs), {out}, std::move(attributes));
  return out;
}

graph::Value* Rewriter::output(size_t k) {
  TESSEL_ICHECK(k < match_.anchor->outputs.size() && match_.anchor->outputs[k], "anchor ",
                match_.anchor->describe(), " has no output ", k);
  return builder_.define(match_.anchor->outputs[k]);
}

graph::Node* Rewriter::add_node(const std::string& op_type, std::vector<graph::Value*> inputs,
                                std::vector<graph::Value*> outputs,
                                std::map<std::string, graph::Attribute> attributes, int opset,
                                const std::string& domain) {
  graph::Node node;
  node.name = match_.anchor->name;
  node.op_type = op_type;
  node.domain = domain;
  node.opset = opset;
  node.attributes = std::move(attributes);
  node.inputs = std::move(inputs);
  node.outputs = std::move(outputs);
  return builder_.add_node(std::move(node));
}

void Rewriter::forward(size_t k, const graph::Value* v) {
  TESSEL_ICHECK(k < match_.anchor->outputs.size() && match_.anchor->outputs[k], "anchor ",
                match_.anchor->describe(), " has no output ", k);
  builder_.alias(match_.anchor->outputs[k], v);
}

// ---- The engine -------------------------------------------------------------------------

graph::Graph rewrite(const graph::Graph& graph, const std::vector<RewriteRule>& rules) {
  graph::Graph current = infer_types(graph);
  for (int i = 0; i < kMaxSweeps; ++i) {
    std::optional<graph::Graph> next = sweep(current, rules);
    if (!next) break;
    current = infer_types(eliminate_dead_code(*next));
  }
  return current;
}

}  // namespace tessel::passes
