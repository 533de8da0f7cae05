// NonZero, Unique and NonMaxSuppression on host memory (see data_dependent.h).
#include "runtime/data_dependent.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "runtime/error.h"
#include "runtime/ndarray_element.h"

namespace tessel::runtime {
namespace {

int64_t product(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

/// Element k of `v`, exact (runtime/ndarray_element.h): equal keys mean equal elements.
long double key(const ConstView& v, int64_t k) { return element_as_long_double(v.data, v.dtype, k); }

void expect_inputs(size_t given, size_t expected, const char* what) {
  if (given != expected)
    throw Error(std::string(what) + " takes " + std::to_string(expected) + " inputs, got " +
                std::to_string(given));
}

// ---- NonZero ---------------------------------------------------------------------------

std::vector<std::vector<int64_t>> nonzero(const ConstView& in, int64_t* out) {
  std::vector<int64_t> shape = in.shape.empty() ? std::vector<int64_t>{1} : in.shape;
  int64_t n = product(shape);
  std::vector<int64_t> hits;
  for (int64_t k = 0; k < n; ++k)
    if (key(in, k) != 0) hits.push_back(k);  // NaN too
  int64_t count = static_cast<int64_t>(hits.size());
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = hits[static_cast<size_t>(i)];
    for (size_t d = shape.size(); d-- > 0;) {
      out[static_cast<int64_t>(d) * count + i] = rest % shape[d];
      rest /= shape[d];
    }
  }
  return {{static_cast<int64_t>(shape.size()), count}};
}

// ---- Unique ----------------------------------------------------------------------------

std::vector<std::vector<int64_t>> unique(const ConstView& in, int64_t axis, bool sorted,
                                         const std::vector<void*>& outputs) {
  // The input as [outer, length, inner]: slices along the axis are [outer, inner] each.
  int64_t outer = 1, length = product(in.shape), inner = 1;
  if (axis >= 0) {
    length = in.shape[static_cast<size_t>(axis)];
    for (int64_t d = 0; d < axis; ++d) outer *= in.shape[static_cast<size_t>(d)];
    for (size_t d = static_cast<size_t>(axis) + 1; d < in.shape.size(); ++d) inner *= in.shape[d];
  }
  auto element = [&](int64_t slice, int64_t o, int64_t i) {
    return key(in, (o * length + slice) * inner + i);
  };
  auto compare = [&](int64_t a, int64_t b) {  // slices, element by element
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        long double x = element(a, o, i), y = element(b, o, i);
        if (x != y) return x < y ? -1 : 1;
      }
    return 0;
  };
  // Slices in ascending order (stable: equal slices keep their input order).
  std::vector<int64_t> order(static_cast<size_t>(length));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return compare(a, b) < 0; });
  // Groups of equal slices: their first occurrence (the first in stable order) and count.
  std::vector<int64_t> first, counts, group_of(static_cast<size_t>(length));
  for (size_t k = 0; k < order.size(); ++k) {
    if (k == 0 || compare(order[k - 1], order[k]) != 0) {
      first.push_back(order[k]);
      counts.push_back(0);
    }
    group_of[static_cast<size_t>(order[k])] = static_cast<int64_t>(first.size()) - 1;
    ++counts.back();
  }
  // The output order: ascending, or by first occurrence.
  std::vector<int64_t> rank(first.size());
  std::iota(rank.begin(), rank.end(), 0);
  if (!sorted)
    std::sort(rank.begin(), rank.end(), [&](int64_t a, int64_t b) {
      return first[static_cast<size_t>(a)] < first[static_cast<size_t>(b)];
    });
  std::vector<int64_t> position(first.size());
  for (size_t r = 0; r < rank.size(); ++r) position[static_cast<size_t>(rank[r])] = static_cast<int64_t>(r);
  int64_t u = static_cast<int64_t>(first.size());
  int64_t bytes = in.dtype.bytes();
  auto* y = static_cast<uint8_t*>(outputs[0]);
  const auto* x = static_cast<const uint8_t*>(in.data);
  for (int64_t r = 0; r < u; ++r) {
    int64_t slice = first[static_cast<size_t>(rank[static_cast<size_t>(r)])];
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(y + ((o * u + r) * inner) * bytes, x + ((o * length + slice) * inner) * bytes,
                  static_cast<size_t>(inner * bytes));
    static_cast<int64_t*>(outputs[1])[r] = slice;
    static_cast<int64_t*>(outputs[3])[r] = counts[static_cast<size_t>(rank[static_cast<size_t>(r)])];
  }
  for (int64_t s = 0; s < length; ++s)
    static_cast<int64_t*>(outputs[2])[s] = position[static_cast<size_t>(group_of[static_cast<size_t>(s)])];
  std::vector<int64_t> y_shape = axis >= 0 ? in.shape : std::vector<int64_t>{u};
  if (axis >= 0) y_shape[static_cast<size_t>(axis)] = u;
  return {y_shape, {u}, {length}, {u}};
}

// ---- NonMaxSuppression -----------------------------------------------------------------

struct Box {
  float y1, x1, y2, x2;
};

Box box_at(const float* b, bool center) {
  if (center) {
    float xc = b[0], yc = b[1], w = b[2], h = b[3];
    return {yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2};
  }
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

/// Whether the IoU of a and b exceeds `threshold` (boxes that do not intersect never do).
bool overlaps(const Box& a, const Box& b, float threshold) {
  float ih = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  float iw = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  if (ih <= 0 || iw <= 0) return false;
  float inter = ih * iw;
  float area_a = (a.y2 - a.y1) * (a.x2 - a.x1), area_b = (b.y2 - b.y1) * (b.x2 - b.x1);
  float uni = area_a + area_b - inter;
  return uni > 0 && inter / uni > threshold;
}

std::vector<std::vector<int64_t>> non_max_suppression(const std::vector<int64_t>& params,
                                                      const std::vector<ConstView>& in,
                                                      int64_t* out) {
  bool center = params[0] != 0;
  size_t next = 2;
  int64_t max_boxes = 0;
  float iou = 0, score_threshold = -INFINITY;
  if (params[1]) max_boxes = static_cast<int64_t>(key(in[next++], 0));
  if (params[2]) iou = static_cast<float>(key(in[next++], 0));
  if (params[3]) score_threshold = static_cast<float>(key(in[next++], 0));
  if (max_boxes < 0)
    throw Error("NonMaxSuppression: max_output_boxes_per_class is " + std::to_string(max_boxes));
  const auto* boxes = static_cast<const float*>(in[0].data);
  const auto* scores = static_cast<const float*>(in[1].data);
  int64_t batches = in[1].shape[0], classes = in[1].shape[1], n = in[1].shape[2];
  int64_t rows = 0;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t c = 0; c < classes; ++c) {
      const float* s = scores + (b * classes + c) * n;
      std::vector<int64_t> candidates;
      for (int64_t i = 0; i < n; ++i)
        if (s[i] > score_threshold) candidates.push_back(i);
      std::stable_sort(candidates.begin(), candidates.end(),
                       [&](int64_t x, int64_t y) { return s[x] > s[y]; });
      std::vector<Box> kept;
      for (int64_t i : candidates) {
        if (static_cast<int64_t>(kept.size()) >= max_boxes) break;
        Box box = box_at(boxes + (b * n + i) * 4, center);
        bool suppressed = false;
        for (const Box& k : kept) suppressed = suppressed || overlaps(k, box, iou);
        if (suppressed) continue;
        kept.push_back(box);
        out[rows * 3] = b;
        out[rows * 3 + 1] = c;
        out[rows * 3 + 2] = i;
        ++rows;
      }
    }
  return {{rows, 3}};
}

}  // namespace

bool is_data_dependent(StepKind kind) {
  return kind == StepKind::NonZero || kind == StepKind::Unique ||
         kind == StepKind::NonMaxSuppression;
}

DataDependentOutputs data_dependent_outputs(StepKind kind, const std::vector<int64_t>& params,
                                            const std::vector<DType>& types,
                                            const std::vector<std::vector<int64_t>>& shapes) {
  DataDependentOutputs out;
  const DType i64 = DType::Int(64);
  switch (kind) {
    case StepKind::NonZero: {
      expect_inputs(shapes.size(), 1, "NonZero");
      if (!params.empty()) throw Error("NonZero takes no parameters");
      int64_t rank = shapes[0].empty() ? 1 : static_cast<int64_t>(shapes[0].size());
      out.dtypes = {i64};
      out.capacities = {{rank, product(shapes[0])}};
      out.dynamic_dims = {1};
      return out;
    }
    case StepKind::Unique: {
      expect_inputs(shapes.size(), 1, "Unique");
      if (params.size() != 2) throw Error("Unique takes 2 parameters (axis, sorted)");
      int64_t axis = params[0];
      const std::vector<int64_t>& shape = shapes[0];
      if (axis < -1 || axis >= static_cast<int64_t>(shape.size()))
        throw Error("Unique: axis " + std::to_string(axis) + " is out of range for rank " +
                    std::to_string(shape.size()));
      int64_t length = axis >= 0 ? shape[static_cast<size_t>(axis)] : product(shape);
      out.dtypes = {types[0], i64, i64, i64};
      out.capacities = {axis >= 0 ? shape : std::vector<int64_t>{length}, {length}, {length}, {length}};
      out.dynamic_dims = {static_cast<int32_t>(std::max<int64_t>(axis, 0)), 0, -1, 0};
      return out;
    }
    case StepKind::NonMaxSuppression: {
      if (params.size() != 4) throw Error("NonMaxSuppression takes 4 parameters");
      size_t optional = static_cast<size_t>((params[1] != 0) + (params[2] != 0) + (params[3] != 0));
      expect_inputs(shapes.size(), 2 + optional, "NonMaxSuppression");
      const std::vector<int64_t>& boxes = shapes[0];
      const std::vector<int64_t>& scores = shapes[1];
      if (boxes.size() != 3 || boxes[2] != 4 || scores.size() != 3 || scores[0] != boxes[0] ||
          scores[2] != boxes[1] || types[0] != DType::Float(32) || types[1] != DType::Float(32))
        throw Error("NonMaxSuppression: boxes must be float32 [batches, boxes, 4] and scores "
                    "float32 [batches, classes, boxes]");
      for (size_t k = 2; k < shapes.size(); ++k)
        if (product(shapes[k]) != 1)
          throw Error("NonMaxSuppression: input " + std::to_string(k) + " must hold one value");
      out.dtypes = {i64};
      out.capacities = {{scores[0] * scores[1] * scores[2], 3}};
      out.dynamic_dims = {0};
      return out;
    }
    default:
      throw Error(std::string("step kind '") + step_kind_name(kind) + "' is not data-dependent");
  }
}

std::vector<std::vector<int64_t>> run_data_dependent(StepKind kind,
                                                     const std::vector<int64_t>& params,
                                                     const std::vector<ConstView>& inputs,
                                                     const std::vector<void*>& outputs) {
  switch (kind) {
    case StepKind::NonZero:
      return nonzero(inputs[0], static_cast<int64_t*>(outputs[0]));
    case StepKind::Unique:
      return unique(inputs[0], params[0], params[1] != 0, outputs);
    case StepKind::NonMaxSuppression:
      return non_max_suppression(params, inputs, static_cast<int64_t*>(outputs[0]));
    default:
      throw Error(std::string("step kind '") + step_kind_name(kind) + "' is not data-dependent");
  }
}

}  // namespace tessel::runtime
