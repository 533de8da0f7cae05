// plan_buffer_views: which concatenations, slices and splits need no copy, and where their
// values live.
#include "compiler/buffer_views.h"

#include <optional>

#include "executor/node_kernel.h"

namespace tessel::compiler {
namespace {

/// The byte offset of each input of `node` in its output, when `node` is a Concat whose
/// inputs are distinct values computed by kernels and whole slices of its output, each
/// starting at a multiple of `alignment`.
std::optional<std::vector<int64_t>> slice_offsets(const graph::Node& node, int64_t alignment) {
  if (node.op_type != "Concat" || !node.domain.empty() || node.outputs.size() != 1 ||
      !node.outputs[0])
    return std::nullopt;
  const graph::TensorType& out = node.outputs[0]->type;
  const graph::Attribute* axis_attribute = node.attribute("axis");
  if (!axis_attribute || !out.has_static_shape()) return std::nullopt;
  std::vector<int64_t> shape = out.shape();
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t axis = axis_attribute->i < 0 ? axis_attribute->i + rank : axis_attribute->i;
  if (axis < 0 || axis >= rank) return std::nullopt;
  for (int64_t d = 0; d < axis; ++d)
    if (shape[d] != 1) return std::nullopt;
  int64_t slab = graph::to_runtime_dtype(out.dtype).bytes();  // bytes per index along axis
  for (int64_t d = axis + 1; d < rank; ++d) slab *= shape[d];
  std::vector<int64_t> offsets;
  std::set<const graph::Value*> seen;
  int64_t offset = 0;
  for (const graph::Value* in : node.inputs) {
    if (!in || !in->producer || in->constant || !seen.insert(in).second ||
        !in->type.has_static_shape() || in->type.num_elements() == 0 || offset % alignment != 0)
      return std::nullopt;
    offsets.push_back(offset);
    offset += in->type.shape()[axis] * slab;
  }
  return offsets;
}

/// Places the outputs of the slices and splits of `groups` that are windows of their input
/// inside its buffer (buffer_views.h).
/// Whether `node` reads or writes a value of `run_time`.
bool touches(const graph::Node& node, const std::set<const graph::Value*>& run_time) {
  for (const auto* values : {&node.inputs, &node.outputs})
    for (const graph::Value* v : *values)
      if (v && run_time.count(v)) return true;
  return false;
}

void place_windows(const graph::Graph& graph, const std::vector<FusedGroup>& groups,
                   int64_t alignment, const std::set<const graph::Value*>& run_time,
                   BufferViews& views) {
  std::set<const graph::Value*> graph_outputs(graph.outputs().begin(), graph.outputs().end());
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].nodes.size() != 1) continue;
    const graph::Node& node = *groups[g].nodes[0];
    const graph::Value* in = node.inputs.empty() ? nullptr : node.inputs[0];
    if (touches(node, run_time)) continue;
    if (!in || !in->producer || in->constant || !in->type.has_static_shape()) continue;
    std::optional<std::vector<int64_t>> offsets = executor::output_windows(node);
    if (!offsets || offsets->size() != node.outputs.size()) continue;
    auto found = views.slices.find(in);
    BufferSlice whole = found != views.slices.end() ? found->second : BufferSlice{in, 0};
    int64_t element_bytes = graph::to_runtime_dtype(in->type.dtype).bytes();
    std::vector<std::pair<const graph::Value*, BufferSlice>> windows;
    bool fits = true;
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      const graph::Value* out = node.outputs[k];
      if (!out) continue;
      BufferSlice at{whole.buffer, whole.byte_offset + (*offsets)[k] * element_bytes};
      fits &= !views.slices.count(out) && !graph_outputs.count(out) &&
              out->type.num_elements() < in->type.num_elements() && at.byte_offset % alignment == 0;
      windows.push_back({out, at});
    }
    if (!fits) continue;
    for (const auto& [out, at] : windows) views.slices.emplace(out, at);
    views.window_groups.insert(g);
  }
}

}  // namespace

BufferViews plan_buffer_views(const graph::Graph& graph, const std::vector<FusedGroup>& groups,
                              int64_t alignment, const std::set<const graph::Value*>& run_time) {
  BufferViews views;
  auto placed = [&](const graph::Value* v) -> std::optional<BufferSlice> {
    auto found = views.slices.find(v);
    if (found == views.slices.end()) return std::nullopt;
    return found->second;
  };
  for (size_t g = groups.size(); g-- > 0;) {
    if (groups[g].nodes.size() != 1) continue;
    const graph::Node& node = *groups[g].nodes[0];
    std::optional<std::vector<int64_t>> offsets = slice_offsets(node, alignment);
    if (!offsets || touches(node, run_time)) continue;
    const graph::Value* out = node.outputs[0];
    auto slice_of_input = [&](const BufferSlice& whole, size_t i) {
      return BufferSlice{whole.buffer, whole.byte_offset + (*offsets)[i]};
    };
    size_t inputs_placed = 0;
    for (const graph::Value* in : node.inputs) inputs_placed += placed(in).has_value();
    std::optional<BufferSlice> whole = placed(out);
    if (!whole && inputs_placed == node.inputs.size()) {
      // The inputs lie in one buffer already: the output is their span, if side by side.
      BufferSlice span = *placed(node.inputs[0]);
      bool side_by_side = true;
      for (size_t i = 0; i < node.inputs.size(); ++i)
        side_by_side &= *placed(node.inputs[i]) == slice_of_input(span, i);
      if (!side_by_side) continue;
      views.slices[out] = span;
      views.concat_groups.insert(g);
      continue;
    }
    if (!whole) {
      // The output becomes a buffer of its own, unless some inputs lie elsewhere.
      if (inputs_placed > 0) continue;
      whole = BufferSlice{out, 0};
    }
    bool fits = true;
    for (size_t i = 0; i < node.inputs.size(); ++i)
      if (std::optional<BufferSlice> at = placed(node.inputs[i]))
        fits &= *at == slice_of_input(*whole, i);
    if (!fits) continue;
    for (size_t i = 0; i < node.inputs.size(); ++i)
      views.slices.emplace(node.inputs[i], slice_of_input(*whole, i));
    views.concat_groups.insert(g);
  }
  place_windows(graph, groups, alignment, run_time, views);
  return views;
}

}  // namespace tessel::compiler
