// rewrite: equivalent substitution by rewrite rules, applied to a fixed point.
//
// A RewriteRule recognises a small subgraph that ends at an *anchor* node of a given
// operator (its pattern and condition: `match`) and builds what replaces it (`replace`). The
// matched nodes other than the anchor are the match's *interior*: the engine applies a
// match only when nothing outside it reads their outputs, so that they die with it.
//
// One sweep walks the graph in topological order and offers each node to the rules anchored
// at its operator, first match wins; the replacement's last node defines the anchor's
// outputs under their names (graph outputs keep theirs), or the anchor's outputs are
// forwarded to existing values (a removed Identity). Matching reads the graph as it was
// before the sweep, with complete types. Replacements may compute new weights with ordinary
// operators over constants (a Mul of a constant weight by a computed scale): they stay as
// nodes until fold_constants evaluates them with tessel's own kernels, and a rule's
// condition accepts such `static` values wherever it needs constants it does not read.
// After a sweep that changed something, dead nodes are dropped and types inferred again; the
// sweeps stop when nothing changes, or after kMaxSweeps.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "passes/graph_builder.h"

namespace tessel::passes {

/// The ONNX opset of the helper nodes replacements create (Mul, Reshape, Gemm, ...).
inline constexpr int kRewriteOpset = 13;
/// Upper bound on the sweeps of one rewrite().
inline constexpr int kMaxSweeps = 32;

/// What a rule's match sees: the graph before the sweep, with the uses of every value.
class MatchContext {
 public:
  explicit MatchContext(const graph::Graph& graph);

  const graph::Graph& graph() const { return graph_; }
  /// The node computing `v` when it calls `op_type` of the ONNX domain, else nullptr.
  const graph::Node* producer(const graph::Value* v, const std::string& op_type) const;
  /// The nodes reading `v`, once per input slot.
  const std::vector<const graph::Node*>& users(const graph::Value* v) const;
  bool is_graph_output(const graph::Value* v) const;
  /// Whether nothing reads `v` and it is not a graph output (an absent value is unused).
  bool unused(const graph::Value* v) const;
  /// Whether `v` is a constant, or is computed by nodes from constants only (fold_constants
  /// will make it a constant).
  bool is_static(const graph::Value* v) const;
  /// The element of a one-element constant, as a double; nullopt otherwise.
  std::optional<double> scalar(const graph::Value* v) const;

 private:
  const graph::Graph& graph_;
  std::map<const graph::Value*, std::vector<const graph::Node*>> users_;
  std::map<const graph::Value*, bool> outputs_;
  mutable std::map<const graph::Value*, bool> static_;
};

/// A match found by a rule: what the replacement needs to know.
struct Match {
  /// The matched node the subgraph ends at (set by the engine).
  const graph::Node* anchor = nullptr;
  /// The other matched nodes, which the replacement makes dead.
  std::vector<const graph::Node*> interior;
  /// Values the replacement reads (boundary values of the match), in the rule's order.
  std::vector<const graph::Value*> values;
  /// Numbers and lists the match found (an epsilon, a merged permutation, ...).
  std::map<std::string, graph::Attribute> params;
};

/// What a rule's replacement uses to build the new nodes.
class Rewriter {
 public:
  Rewriter(GraphBuilder& builder, const Match& match) : builder_(builder), match_(match) {}

  /// The new graph's value for a value of the graph being rewritten.
  graph::Value* value(const graph::Value* v) { return builder_.value(v); }
  /// A new constant.
  graph::Value* constant(runtime::NDArray data);
  /// A constant of `shape` and float element type `dtype` whose elements are all `v`.
  graph::Value* fill(double v, const std::vector<int64_t>& shape, ir::DataType dtype);
  /// A constant int64 vector (a shape, axes).
  graph::Value* ints(const std::vector<int64_t>& values);
  /// A new node op_type(inputs){attributes} of the ONNX domain (opset kRewriteOpset) with
  /// one new output, which it returns, named "<anchor>.<name>" (name defaults to op_type).
  graph::Value* op(const std::string& op_type, std::vector<graph::Value*> inputs,
                   std::map<std::string, graph::Attribute> attributes = {},
                   const std::string& name = "");
  /// The new value standing for the anchor's output `k` (its name and type).
  graph::Value* output(size_t k = 0);
  /// A new node with the given outputs (made by output() or op()); named after the anchor.
  graph::Node* add_node(const std::string& op_type, std::vector<graph::Value*> inputs,
                        std::vector<graph::Value*> outputs,
                        std::map<std::string, graph::Attribute> attributes = {},
                        int opset = kRewriteOpset, const std::string& domain = "");
  /// Makes the anchor's output `k` stand for `v`, a value of the graph being rewritten.
  void forward(size_t k, const graph::Value* v);

 private:
  GraphBuilder& builder_;
  const Match& match_;
};

/// One rewrite rule: pattern and condition (`match`), and replacement.
struct RewriteRule {
  std::string name;
  /// The operator type of the anchor node (ONNX domain).
  std::string anchor;
  /// The match ending at `anchor`, when the pattern and the condition hold; nullopt
  /// otherwise. Must not assume anything the match does not check.
  std::function<std::optional<Match>(const MatchContext&, const graph::Node& anchor)> match;
  /// Builds the replacement: defines (output()) or forwards every anchor output that is
  /// used. A forwarded graph output must keep its name: rules forward only values that
  /// are not graph outputs.
  std::function<void(const Match&, Rewriter&)> replace;
};

/// `graph` rewritten by `rules` until none applies (at most kMaxSweeps sweeps), with dead
/// nodes removed and types inferred. Assumes static input shapes and constant value inputs
/// (run fold_constants first).
graph::Graph rewrite(const graph::Graph& graph, const std::vector<RewriteRule>& rules);

}  // namespace tessel::passes
