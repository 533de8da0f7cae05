// A fused group rebuilt for blocks of rows (row_blocks.h).
#include "compiler/row_blocks.h"

#include "executor/node_kernel.h"
#include "support/error.h"

namespace tessel::compiler {

int64_t block_rows_for(int64_t largest) {
  if (largest <= kMaxBlockRows) return 0;
  for (int64_t rows = kMaxBlockRows; rows >= kMinBlockRows; --rows)
    if (largest % rows == 0) return rows;
  return 0;
}

namespace {

/// Whether `node` needs the whole padding of its values: tessel.MaskPadding, which writes
/// it, and the reductions and softmaxes over the run's axis that read it.
bool needs_whole_padding(const graph::Node& node) {
  if (node.op_type == "MaskPadding") return true;
  for (const graph::Value* in : node.inputs)
    if (in && in->producer && in->producer->op_type == "MaskPadding") return true;
  return false;
}

}  // namespace

std::optional<RowBlocks> row_blocks(const FusedGroup& group,
                                    const passes::RunTimeExtents& run_time) {
  int64_t largest = -1;
  for (const graph::Node* node : group.nodes) {
    if (needs_whole_padding(*node)) return std::nullopt;
    for (const graph::Value* out : node->outputs)  // every row its own rows' function
      if (out && !run_time.count(out)) return std::nullopt;
    for (const auto* values : {&node->inputs, &node->outputs})
      for (const graph::Value* v : *values) {
        auto found = v ? run_time.find(v) : run_time.end();
        if (found == run_time.end()) continue;
        if (found->second.axis != 0) return std::nullopt;
        largest = v->type.dims[0].value;
      }
  }
  int64_t rows = largest < 0 ? 0 : block_rows_for(largest);
  if (rows == 0) return std::nullopt;

  RowBlocks blocks;
  blocks.rows = rows;
  std::map<const graph::Value*, graph::Value*> copy_of;
  auto copy_value = [&](const graph::Value* v, graph::TensorType type) {
    auto copy = std::make_unique<graph::Value>(*v);
    copy->type = std::move(type);
    copy->producer = nullptr;
    copy_of[v] = copy.get();
    blocks.original[copy.get()] = v;
    blocks.values.push_back(std::move(copy));
    return blocks.values.back().get();
  };
  auto block_type = [&](const graph::Value* v) {
    graph::TensorType type = v->type;
    if (run_time.count(v)) type.dims[0] = graph::Dim::of(rows);
    return type;
  };
  for (const graph::Node* node : group.nodes) {
    auto copy = std::make_unique<graph::Node>(*node);
    std::vector<graph::TensorType> types;
    std::vector<const runtime::NDArray*> values;
    for (graph::Value*& in : copy->inputs) {
      if (in) {
        auto found = copy_of.find(in);
        if (found != copy_of.end())
          in = found->second;
        else if (run_time.count(in))
          in = copy_value(in, block_type(in));
      }
      types.push_back(in ? in->type : graph::TensorType{});
      values.push_back(in ? in->constant.get() : nullptr);
    }
    std::vector<graph::TensorType> inferred;
    try {
      inferred = executor::infer_node(*copy, types, values);
    } catch (const CompileError&) {
      return std::nullopt;
    }
    for (size_t k = 0; k < copy->outputs.size(); ++k) {
      const graph::Value* out = node->outputs[k];
      if (!out) continue;
      if (k >= inferred.size() || inferred[k] != block_type(out)) return std::nullopt;
      copy->outputs[k] = copy_value(out, inferred[k]);
      copy->outputs[k]->producer = copy.get();
    }
    blocks.group.nodes.push_back(copy.get());
    if (group.anchor == node) blocks.group.anchor = copy.get();
    blocks.nodes.push_back(std::move(copy));
  }
  return blocks;
}

}  // namespace tessel::compiler
