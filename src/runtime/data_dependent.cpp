// NonZero, Unique, NonMaxSuppression, Compress and TopK on host memory, and the dispatch to
// the string steps (see data_dependent.h).
#include "runtime/data_dependent.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "runtime/error.h"
#include "runtime/ndarray_element.h"
#include "runtime/string_ops.h"

namespace tessel::runtime {
namespace {

/// Element k of `v`, exact (runtime/ndarray_element.h): equal keys mean equal elements.
long double key(const ConstView& v, int64_t k) {
  return element_as_long_double(v.data, v.dtype, k);
}

/// params[0] as an axis of `shape`, or -1 for the flattened input; the first parameter of
/// Unique and Compress (which takes only it).
int64_t checked_axis(const std::vector<int64_t>& params, const std::vector<int64_t>& shape,
                     const char* what) {
  if (params.empty()) throw Error(std::string(what) + " takes an axis parameter");
  int64_t axis = params[0];
  if (axis < -1 || axis >= static_cast<int64_t>(shape.size()))
    throw Error(std::string(what) + ": axis " + std::to_string(axis) +
                " is out of range for rank " + std::to_string(shape.size()));
  return axis;
}

void expect_inputs(size_t given, size_t expected, const char* what) {
  if (given != expected)
    throw Error(std::string(what) + " takes " + std::to_string(expected) + " inputs, got " +
                std::to_string(given));
}

// ---- NonZero ---------------------------------------------------------------------------

std::vector<std::vector<int64_t>> nonzero(const ConstView& in, const OutputAllocator& allocate) {
  std::vector<int64_t> shape = in.shape.empty() ? std::vector<int64_t>{1} : in.shape;
  int64_t n = shape_product(shape);
  std::vector<int64_t> hits;
  for (int64_t k = 0; k < n; ++k)
    if (key(in, k) != 0) hits.push_back(k);  // NaN too
  int64_t count = static_cast<int64_t>(hits.size());
  std::vector<int64_t> found = {static_cast<int64_t>(shape.size()), count};
  auto* out = static_cast<int64_t*>(allocate(0, found));
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = hits[static_cast<size_t>(i)];
    for (size_t d = shape.size(); d-- > 0;) {
      out[static_cast<int64_t>(d) * count + i] = rest % shape[d];
      rest /= shape[d];
    }
  }
  return {found};
}

/// `shape` as [outer, length, inner] around `axis` (-1: the flattened input as the length).
struct Lines {
  int64_t outer = 1, length = 1, inner = 1;
};

Lines lines_around(const std::vector<int64_t>& shape, int64_t axis) {
  Lines l;
  if (axis < 0) {
    l.length = shape_product(shape);
    return l;
  }
  l.length = shape[static_cast<size_t>(axis)];
  for (int64_t d = 0; d < axis; ++d) l.outer *= shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) l.inner *= shape[d];
  return l;
}

/// `shape` with the extent along `axis` (-1: flattened) replaced by `extent`.
std::vector<int64_t> with_extent(std::vector<int64_t> shape, int64_t axis, int64_t extent) {
  if (axis < 0) return {extent};
  shape[static_cast<size_t>(axis)] = extent;
  return shape;
}

// ---- Unique ----------------------------------------------------------------------------

std::vector<std::vector<int64_t>> unique(const ConstView& in, int64_t axis, bool sorted,
                                         const OutputAllocator& allocate) {
  // The input as [outer, length, inner]: slices along the axis are [outer, inner] each.
  auto [outer, length, inner] = lines_around(in.shape, axis);
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
  for (size_t r = 0; r < rank.size(); ++r)
    position[static_cast<size_t>(rank[r])] = static_cast<int64_t>(r);
  int64_t u = static_cast<int64_t>(first.size());
  std::vector<std::vector<int64_t>> shapes = {with_extent(in.shape, axis, u), {u}, {length}, {u}};
  auto* y = static_cast<uint8_t*>(allocate(0, shapes[0]));
  auto* first_index = static_cast<int64_t*>(allocate(1, shapes[1]));
  auto* inverse = static_cast<int64_t*>(allocate(2, shapes[2]));
  auto* count_of = static_cast<int64_t*>(allocate(3, shapes[3]));
  int64_t bytes = in.dtype.bytes();
  const auto* x = static_cast<const uint8_t*>(in.data);
  for (int64_t r = 0; r < u; ++r) {
    int64_t slice = first[static_cast<size_t>(rank[static_cast<size_t>(r)])];
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(y + ((o * u + r) * inner) * bytes, x + ((o * length + slice) * inner) * bytes,
                  static_cast<size_t>(inner * bytes));
    first_index[r] = slice;
    count_of[r] = counts[static_cast<size_t>(rank[static_cast<size_t>(r)])];
  }
  for (int64_t s = 0; s < length; ++s)
    inverse[s] = position[static_cast<size_t>(group_of[static_cast<size_t>(s)])];
  return shapes;
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
                                                      const OutputAllocator& allocate) {
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
  std::vector<int64_t> selected;  // rows [batch, class, box]
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
        selected.insert(selected.end(), {b, c, i});
      }
    }
  std::vector<int64_t> shape = {static_cast<int64_t>(selected.size()) / 3, 3};
  std::memcpy(allocate(0, shape), selected.data(), selected.size() * sizeof(int64_t));
  return {shape};
}

// ---- Compress and TopK -------------------------------------------------------------------

std::vector<std::vector<int64_t>> compress(const ConstView& x, const ConstView& condition,
                                           int64_t axis, const OutputAllocator& allocate) {
  Lines l = lines_around(x.shape, axis);
  std::vector<int64_t> selected;
  for (int64_t k = 0; k < shape_product(condition.shape); ++k) {
    if (key(condition, k) == 0) continue;
    if (k >= l.length)
      throw Error("Compress: the condition selects position " + std::to_string(k) +
                  ", beyond the extent " + std::to_string(l.length));
    selected.push_back(k);
  }
  int64_t count = static_cast<int64_t>(selected.size()), bytes = x.dtype.bytes();
  std::vector<int64_t> shape = with_extent(x.shape, axis, count);
  const auto* from = static_cast<const uint8_t*>(x.data);
  auto* to = static_cast<uint8_t*>(allocate(0, shape));
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t r = 0; r < count; ++r)
      std::memcpy(to + (o * count + r) * l.inner * bytes,
                  from + (o * l.length + selected[static_cast<size_t>(r)]) * l.inner * bytes,
                  static_cast<size_t>(l.inner * bytes));
  return {shape};
}

std::vector<std::vector<int64_t>> topk(const ConstView& x, const ConstView& k_value, int64_t axis,
                                       bool largest, const OutputAllocator& allocate) {
  Lines l = lines_around(x.shape, axis);
  auto k = static_cast<int64_t>(key(k_value, 0));
  if (k < 0 || k > l.length)
    throw Error("TopK: k is " + std::to_string(k) + ", expected 0 <= k <= " +
                std::to_string(l.length) + " (the extent of axis " + std::to_string(axis) + ")");
  int64_t bytes = x.dtype.bytes();
  std::vector<int64_t> shape = with_extent(x.shape, axis, k);
  const auto* from = static_cast<const uint8_t*>(x.data);
  auto* values = static_cast<uint8_t*>(allocate(0, shape));
  auto* indices = static_cast<int64_t*>(allocate(1, shape));
  std::vector<int64_t> order(static_cast<size_t>(l.length));
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t i = 0; i < l.inner; ++i) {
      auto at = [&](int64_t p) { return (o * l.length + p) * l.inner + i; };
      // Better first: larger (smaller) values, NaN above every number, ties by position.
      auto better = [&](int64_t a, int64_t b) {
        long double va = key(x, at(a)), vb = key(x, at(b));
        bool nan_a = std::isnan(va), nan_b = std::isnan(vb);
        if (nan_a || nan_b) return nan_a != nan_b ? (largest ? nan_a : nan_b) : a < b;
        if (va != vb) return largest ? va > vb : va < vb;
        return a < b;
      };
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + k, order.end(), better);
      for (int64_t r = 0; r < k; ++r) {
        int64_t out = (o * k + r) * l.inner + i, p = order[static_cast<size_t>(r)];
        std::memcpy(values + out * bytes, from + at(p) * bytes, static_cast<size_t>(bytes));
        indices[out] = p;
      }
    }
  return {shape, shape};
}

}  // namespace

int64_t shape_product(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

bool is_data_dependent(StepKind kind) {
  return (kind >= StepKind::NonZero && kind <= StepKind::CastString) || kind == StepKind::ExtentOf;
}

size_t data_dependent_output_count(StepKind kind) {
  return kind == StepKind::Unique ? 4 : kind == StepKind::TopK ? 2 : 1;
}

DataDependentOutputs data_dependent_outputs(StepKind kind, const std::vector<int64_t>& params,
                                            const std::vector<DType>& types,
                                            const std::vector<std::vector<int64_t>>& shapes) {
  if (is_string_step(kind)) return string_step_outputs(kind, params, types, shapes);
  DataDependentOutputs out;
  const DType i64 = DType::Int(64);
  switch (kind) {
    case StepKind::NonZero: {
      expect_inputs(shapes.size(), 1, "NonZero");
      if (!params.empty()) throw Error("NonZero takes no parameters");
      int64_t rank = shapes[0].empty() ? 1 : static_cast<int64_t>(shapes[0].size());
      out.dtypes = {i64};
      out.capacities = {{rank, shape_product(shapes[0])}};
      out.dynamic_dims = {1};
      return out;
    }
    case StepKind::Unique: {
      expect_inputs(shapes.size(), 1, "Unique");
      if (params.size() != 2) throw Error("Unique takes 2 parameters (axis, sorted)");
      int64_t axis = checked_axis(params, shapes[0], "Unique");
      const std::vector<int64_t>& shape = shapes[0];
      int64_t length = axis >= 0 ? shape[static_cast<size_t>(axis)] : shape_product(shape);
      out.dtypes = {types[0], i64, i64, i64};
      out.capacities = {with_extent(shape, axis, length), {length}, {length}, {length}};
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
        throw Error(
            "NonMaxSuppression: boxes must be float32 [batches, boxes, 4] and scores "
            "float32 [batches, classes, boxes]");
      for (size_t k = 2; k < shapes.size(); ++k)
        if (shape_product(shapes[k]) != 1)
          throw Error("NonMaxSuppression: input " + std::to_string(k) + " must hold one value");
      out.dtypes = {i64};
      out.capacities = {{scores[0] * scores[1] * scores[2], 3}};
      out.dynamic_dims = {0};
      return out;
    }
    case StepKind::Compress: {
      expect_inputs(shapes.size(), 2, "Compress");
      if (params.size() != 1) throw Error("Compress takes 1 parameter (axis)");
      int64_t axis = checked_axis(params, shapes[0], "Compress");
      if (shapes[1].size() != 1)
        throw Error("Compress: the condition has rank " + std::to_string(shapes[1].size()) +
                    ", expected 1");
      int64_t length = axis >= 0 ? shapes[0][static_cast<size_t>(axis)] : shape_product(shapes[0]);
      out.dtypes = {types[0]};
      out.capacities = {with_extent(shapes[0], axis, std::min(length, shapes[1][0]))};
      out.dynamic_dims = {static_cast<int32_t>(std::max<int64_t>(axis, 0))};
      return out;
    }
    case StepKind::TopK: {
      expect_inputs(shapes.size(), 2, "TopK");
      if (params.size() != 2) throw Error("TopK takes 2 parameters (axis, largest)");
      int64_t axis = checked_axis({params[0]}, shapes[0], "TopK");
      if (axis < 0) throw Error("TopK: the axis must be given");
      if (shape_product(shapes[1]) != 1 || types[1] != i64)
        throw Error("TopK: K must be one int64 value");
      out.dtypes = {types[0], i64};
      out.capacities = {shapes[0], shapes[0]};
      out.dynamic_dims = {static_cast<int32_t>(axis), static_cast<int32_t>(axis)};
      return out;
    }
    case StepKind::ExtentOf: {
      expect_inputs(shapes.size(), 1, "ExtentOf");
      if (params.size() != 1 || params[0] < 0 ||
          params[0] >= static_cast<int64_t>(shapes[0].size()))
        throw Error("ExtentOf takes 1 parameter, a dimension of its input of rank " +
                    std::to_string(shapes[0].size()));
      out.dtypes = {i64};
      out.capacities = {{}};
      out.dynamic_dims = {-1};
      return out;
    }
    default:
      throw Error(std::string("step kind '") + step_kind_name(kind) + "' is not data-dependent");
  }
}

std::vector<std::vector<int64_t>> run_data_dependent(
    StepKind kind, const std::vector<int64_t>& params, const std::vector<std::string>& strings,
    const std::vector<ConstView>& inputs, const OutputAllocator& allocate, StringStore& store) {
  switch (kind) {
    case StepKind::NonZero:
      return nonzero(inputs[0], allocate);
    case StepKind::Unique:
      return unique(inputs[0], params[0], params[1] != 0, allocate);
    case StepKind::NonMaxSuppression:
      return non_max_suppression(params, inputs, allocate);
    case StepKind::Compress:
      return compress(inputs[0], inputs[1], params[0], allocate);
    case StepKind::TopK:
      return topk(inputs[0], inputs[1], params[0], params[1] != 0, allocate);
    case StepKind::StringNormalizer:
    case StepKind::CastString:
      return {run_string_step(kind, params, strings, inputs[0], allocate, store)};
    case StepKind::ExtentOf: {
      int64_t extent = inputs[0].shape[static_cast<size_t>(params[0])];
      std::memcpy(allocate(0, {}), &extent, sizeof extent);
      return {{}};
    }
    default:
      throw Error(std::string("step kind '") + step_kind_name(kind) + "' is not data-dependent");
  }
}

}  // namespace tessel::runtime
