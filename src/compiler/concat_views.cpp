// plan_concat_views: which concatenations need no copy, and where their inputs live.
#include "compiler/concat_views.h"

#include <optional>

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

}  // namespace

ConcatViews plan_concat_views(const std::vector<FusedGroup>& groups, int64_t alignment) {
  ConcatViews views;
  auto placed = [&](const graph::Value* v) -> std::optional<BufferSlice> {
    auto found = views.slices.find(v);
    if (found == views.slices.end()) return std::nullopt;
    return found->second;
  };
  for (size_t g = groups.size(); g-- > 0;) {
    if (groups[g].nodes.size() != 1) continue;
    const graph::Node& node = *groups[g].nodes[0];
    std::optional<std::vector<int64_t>> offsets = slice_offsets(node, alignment);
    if (!offsets) continue;
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
      views.in_place_groups.insert(g);
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
    views.in_place_groups.insert(g);
  }
  return views;
}

}  // namespace tessel::compiler
