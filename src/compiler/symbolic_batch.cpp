// Which values of a model carry a symbolic batch, and whether it runs sample by sample.
#include "compiler/symbolic_batch.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "compiler/batch_rules.h"
#include "ops/registry.h"
#include "support/error.h"

namespace tessel::compiler {
namespace {

using graph::Node;
using graph::Value;

enum class Kind {
  Unbatched,       ///< the same at batch 1 and 2
  Batched,         ///< the leading extent doubles
  Replicated,      ///< a constant whose batch-2 data repeats its batch-1 data
  BatchDependent,  ///< a constant whose data changes otherwise
};

bool doubles_leading(const graph::TensorType& one, const graph::TensorType& two) {
  if (one.rank() == 0 || one.rank() != two.rank()) return false;
  if (two.dims[0].value != 2 * one.dims[0].value) return false;
  return std::equal(one.dims.begin() + 1, one.dims.end(), two.dims.begin() + 1);
}

/// Whether `two` holds `one` twice, one after the other.
bool repeats_twice(const runtime::NDArray& one, const runtime::NDArray& two) {
  size_t bytes = static_cast<size_t>(one.nbytes());
  const auto* a = static_cast<const uint8_t*>(one.data());
  const auto* b = static_cast<const uint8_t*>(two.data());
  return static_cast<size_t>(two.nbytes()) == 2 * bytes && std::memcmp(a, b, bytes) == 0 &&
         std::memcmp(a, b + bytes, bytes) == 0;
}

class BatchFinder {
 public:
  BatchFinder(const graph::Graph& one, const graph::Graph& two, const std::string& symbol)
      : one_(one), two_(two), symbol_(symbol) {}

  SymbolicBatch find() {
    if (one_.inputs().size() != two_.inputs().size())
      fail("the model has " + std::to_string(one_.inputs().size()) + " inputs at batch 1 and " +
           std::to_string(two_.inputs().size()) + " at batch 2");
    for (size_t i = 0; i < one_.inputs().size(); ++i)
      pair(one_.inputs()[i], two_.inputs()[i], "input " + std::to_string(i));
    if (one_.nodes().size() != two_.nodes().size())
      fail("the graph optimises into " + std::to_string(one_.nodes().size()) +
           " nodes at batch 1 and " + std::to_string(two_.nodes().size()) + " at batch 2");
    for (size_t k = 0; k < one_.nodes().size(); ++k) check_node(*one_.nodes()[k], *two_.nodes()[k]);
    if (one_.outputs().size() != two_.outputs().size()) fail("the outputs differ");
    for (size_t i = 0; i < one_.outputs().size(); ++i) {
      const Value* out = one_.outputs()[i];
      pair(out, two_.outputs()[i], "output " + std::to_string(i));
      Kind kind = kind_of(out);
      if (kind == Kind::Replicated || kind == Kind::BatchDependent)
        fail("output '" + out->name + "' is a constant that depends on the batch size");
    }
    SymbolicBatch result;
    result.symbol = symbol_;
    for (const auto& [value, kind] : kinds_)
      if (kind == Kind::Batched) result.batched.insert(value);
    return result;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    TESSEL_USER_ERROR("symbolic batch '", symbol_, "': ", problem);
  }

  /// Records that `a` (batch 1) and `b` (batch 2) are the same value, and classifies it.
  void pair(const Value* a, const Value* b, const std::string& where) {
    if (!a || !b) {
      if (a != b) fail(where + " is given at one batch size and omitted at the other");
      return;
    }
    auto [it, added] = pairs_.emplace(a, b);
    if (!added) {
      if (it->second != b) fail(where + ": value '" + a->name + "' is wired differently at batch 2");
      return;
    }
    if (a->type.dtype != b->type.dtype)
      fail("value '" + a->name + "' is " + a->type.to_string() + " at batch 1 and " +
           b->type.to_string() + " at batch 2");
    Kind kind;
    if (a->type == b->type)
      kind = !a->constant || graph::same_data(a->constant.get(), b->constant.get())
                 ? Kind::Unbatched
                 : Kind::BatchDependent;
    else if (doubles_leading(a->type, b->type))
      kind = !a->constant ? Kind::Batched
             : repeats_twice(*a->constant, *b->constant) ? Kind::Replicated
                                                         : Kind::BatchDependent;
    else
      fail("value '" + a->name + "' is " + a->type.to_string() + " at batch 1 and " +
           b->type.to_string() + " at batch 2: the batch is not its leading dimension");
    kinds_[a] = kind;
  }

  Kind kind_of(const Value* v) const { return kinds_.at(v); }

  void check_node(const Node& a, const Node& b) {
    const std::string what = a.describe();
    if (a.op_type != b.op_type || a.domain != b.domain || !a.same_attributes(b) ||
        a.inputs.size() != b.inputs.size() || a.outputs.size() != b.outputs.size())
      fail(what + " compiles to a different node at batch 2 (" + b.describe() + ")");
    const ops::OpDef* def = ops::OpRegistry::global().find(a.op_type);
    std::vector<bool> batched(a.inputs.size(), false);
    bool reads_batched = false;
    for (size_t j = 0; j < a.inputs.size(); ++j) {
      pair(a.inputs[j], b.inputs[j], what + ", input " + std::to_string(j));
      if (!a.inputs[j]) continue;
      Kind kind = kind_of(a.inputs[j]);
      bool value_input = def && std::find(def->value_inputs.begin(), def->value_inputs.end(),
                                          static_cast<int>(j)) != def->value_inputs.end();
      if (kind == Kind::BatchDependent && !value_input)
        fail(what + " reads '" + a.inputs[j]->name + "' (input " + std::to_string(j) +
             "), a constant that depends on the batch size");
      batched[j] = !value_input && (kind == Kind::Batched || kind == Kind::Replicated);
      reads_batched |= batched[j];
    }
    for (size_t j = 0; j < a.outputs.size(); ++j) {
      pair(a.outputs[j], b.outputs[j], what + ", output " + std::to_string(j));
      if (!a.outputs[j]) continue;
      bool out_batched = kind_of(a.outputs[j]) == Kind::Batched;
      if (reads_batched && !out_batched)
        fail(what + " reads batched values but its output '" + a.outputs[j]->name +
             "' does not grow with the batch: it combines the samples");
      if (!reads_batched && out_batched && !repeats_one_sample(a))
        fail(what + " makes '" + a.outputs[j]->name +
             "', which grows with the batch, from no batched input: its samples would differ");
    }
    if (!reads_batched) return;
    std::string problem = samplewise_problem(a, batched);
    if (!problem.empty()) fail(what + " cannot run sample by sample: " + problem);
  }

  /// Operators whose output repeats one sample's worth for each sample of a batch-sized
  /// shape they are given.
  static bool repeats_one_sample(const Node& node) {
    return node.op_type == "ConstantOfShape" || node.op_type == "Expand" || node.op_type == "Tile";
  }

  const graph::Graph& one_;
  const graph::Graph& two_;
  const std::string& symbol_;
  std::map<const Value*, const Value*> pairs_;
  std::map<const Value*, Kind> kinds_;
};

}  // namespace

std::string batch_symbol_of(const graph::Graph& graph,
                            const std::vector<graph::TensorType>& input_types) {
  std::string symbol;
  for (size_t i = 0; i < input_types.size(); ++i) {
    const std::string name = i < graph.inputs().size() ? graph.inputs()[i]->name : "?";
    const std::vector<graph::Dim>& dims = input_types[i].dims;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].is_static()) continue;
      if (dims[d].symbol.empty())
        TESSEL_USER_ERROR("input '", name, "': dimension ", d,
                          " is unknown; give its extent (--input-shape)");
      if (d != 0)
        TESSEL_USER_ERROR("input '", name, "': dimension ", d, " is symbolic ('", dims[d].symbol,
                          "'); only the leading one, a batch, may stay symbolic");
      const graph::Value* declared = i < graph.inputs().size() ? graph.inputs()[i] : nullptr;
      if (declared && declared->type.rank() > 0 && declared->type.dims[0].is_static())
        TESSEL_USER_ERROR("input '", name, "' declares a batch of ", declared->type.dims[0].value,
                          " (", declared->type.to_string(), "); a symbolic batch needs a model "
                          "whose leading dimension is symbolic (export it with one, e.g. "
                          "torch.onnx.export(..., dynamic_axes={'", name, "': {0: 'N'}}))");
      if (!symbol.empty() && dims[d].symbol != symbol)
        TESSEL_USER_ERROR("input '", name, "': a second symbolic dimension '", dims[d].symbol,
                          "' beside '", symbol, "'; one batch dimension may stay symbolic");
      symbol = dims[d].symbol;
    }
  }
  return symbol;
}

std::vector<graph::TensorType> at_batch(std::vector<graph::TensorType> input_types,
                                        int64_t batch) {
  for (graph::TensorType& type : input_types)
    if (!type.dims.empty() && !type.dims[0].is_static()) type.dims[0] = graph::Dim::of(batch);
  return input_types;
}

SymbolicBatch find_batched_values(const graph::Graph& at_one, const graph::Graph& at_two,
                                  const std::string& symbol) {
  return BatchFinder(at_one, at_two, symbol).find();
}

}  // namespace tessel::compiler
