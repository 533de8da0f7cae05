// GraphBuilder: builds a new graph from a source graph, the one tool every pass uses to
// produce its result (graph::Graph is move-only and its values are owned by it).
//
// A pass walks the source graph's nodes in order and, for each, copies it, drops it, or
// replaces it by new nodes and constants. The builder keeps the map from source values to
// the values that stand for them in the new graph:
//  - graph inputs and constants are copied on first use (a constant shares its data), and
//    so are the constants a pass defines (folded values), so constants nothing reads any
//    more disappear from the result;
//  - a node output is defined when its node is copied (same name and type), or `define`d by
//    a replacement, or made to stand for another source value (`alias`).
// finish() adds the source's graph inputs (in order; those made constant are left out) and
// its outputs, which must keep their names: a graph's outputs are its interface (a
// sequence or optional output resolved at compile time becomes its elements' outputs).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace tessel::passes {

class GraphBuilder {
 public:
  /// Starts a graph with the name and opsets of `source`.
  explicit GraphBuilder(const graph::Graph& source);

  const graph::Graph& source() const { return source_; }

  /// The new value standing for source value `v`; a graph input or constant is copied on
  /// first use. InternalError for a node output not defined yet.
  graph::Value* value(const graph::Value* v);
  /// The new values of a node's inputs (nullptr stays nullptr).
  std::vector<graph::Value*> values(const std::vector<graph::Value*>& vs);
  /// What stands for each of `vs` in the new graph, copying nothing: the new value where
  /// there is one, else the source graph input or constant (which its copy will equal).
  std::vector<const graph::Value*> lookup(const std::vector<graph::Value*>& vs) const;
  /// Defines the new value standing for source value `v`, with its name and type.
  graph::Value* define(const graph::Value* v);
  /// Defines the new value standing for source value `v` as a constant holding `data`, with
  /// v's name; like a copied constant, it enters the new graph on first use.
  void define_constant(const graph::Value* v, std::shared_ptr<const runtime::NDArray> data);
  /// Makes source value `v` stand for whatever source value `same_as` stands for.
  void alias(const graph::Value* v, const graph::Value* same_as);
  /// Whether `v` has a value in the new graph yet (graph inputs and constants always do).
  bool has_value(const graph::Value* v) const;

  /// A sequence or optional resolved at compile time: whether it holds a value (always, for
  /// a sequence) and its elements (an optional's one, or a sequence's), new values.
  struct Structure {
    bool present = true;
    std::vector<graph::Value*> elements;
    graph::ValueKind kind = graph::ValueKind::Sequence;
  };
  /// Makes structured source value `v` stand for `structure`. A structured graph output
  /// becomes its elements, outputs named element_name(output, k).
  void define_structure(const graph::Value* v, Structure structure);
  /// What structured source value `v` stands for; nullptr when it was not resolved.
  const Structure* structure(const graph::Value* v) const;
  /// Makes source value `v` stand for `existing`, a value of the new graph.
  void bind(const graph::Value* v, graph::Value* existing);
  /// Keeps `graph` alive as long as the builder, for source nodes outside the source graph
  /// (a copy of a body per unrolled trip); returns it.
  const graph::Graph& keep(graph::Graph graph);
  /// Gives the result `inputs` (new values) in place of source graph input `v`, which the
  /// new graph computes from them.
  void replace_input(const graph::Value* v, std::vector<graph::Value*> inputs);

  /// Copies source node `node`: its inputs mapped, its outputs defined.
  graph::Node* copy_node(const graph::Node& node);

  /// A new value named after `hint` (made unique), of `type`.
  graph::Value* add_value(const std::string& hint, graph::TensorType type = {});
  /// A new constant named after `hint` (made unique).
  graph::Value* add_constant(const std::string& hint, std::shared_ptr<const runtime::NDArray> data);
  /// Appends a node (its inputs and outputs are values of the new graph); records the
  /// opset of a domain the graph did not import yet.
  graph::Node* add_node(graph::Node node);

  /// The new graph, with the source's inputs and outputs. Leaves the builder empty.
  graph::Graph finish();

 private:
  const graph::Value* resolve(const graph::Value* v) const;
  /// Whether source value `v` was defined, made constant or aliased already.
  bool is_defined(const graph::Value* v) const;
  std::string fresh_name(const std::string& hint);
  /// `name`, or a fresh one when the new graph has a value of that name.
  std::string unused_name(const std::string& name);

  const graph::Graph& source_;
  graph::Graph graph_;
  std::map<const graph::Value*, graph::Value*> map_;
  std::map<const graph::Value*, const graph::Value*> aliases_;
  /// Constants defined for source values and not read yet.
  std::map<const graph::Value*, std::unique_ptr<graph::Value>> pending_;
  std::map<const graph::Value*, Structure> structures_;
  std::map<const graph::Value*, std::vector<graph::Value*>> replaced_inputs_;
  std::vector<std::unique_ptr<graph::Graph>> kept_;
  int next_name_ = 0;
};

/// The name of element k of the structured value `name` where it becomes several values (a
/// graph input or output): "name[k]".
std::string element_name(const std::string& name, size_t k);

/// A copy of `graph` (without the constants nothing reads).
graph::Graph copy_graph(const graph::Graph& graph);

}  // namespace tessel::passes
