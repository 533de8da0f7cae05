// Transpose, Concat, Split, Slice, Expand and Tile against naive index-mapping references.
#include <algorithm>
#include <limits>
#include <numeric>

#include "unit/ops_shape/shape_test_util.h"

namespace tessel::ops::testing {
namespace {

TEST(TransposeOp, DefaultReversesAxes) {
  Shape in = {2, 3, 4};
  NDArray x = iota<float>(in);
  auto expected = gather_reference<float>(values_of<float>(x), in, {4, 3, 2}, [](const Shape& o) {
    return Shape{o[2], o[1], o[0]};
  });
  expect_array<float>(run_op("Transpose", {&x}), {4, 3, 2}, expected);
}

TEST(TransposeOp, EveryPermutationOfRank4) {
  Shape in = {2, 3, 1, 5};
  NDArray x = iota<int32_t>(in);
  std::vector<int64_t> perm = {0, 1, 2, 3};
  do {
    Shape out;
    for (int64_t p : perm) out.push_back(in[p]);
    auto expected = gather_reference<int32_t>(values_of<int32_t>(x), in, out, [&](const Shape& o) {
      Shape at(4);
      for (size_t d = 0; d < 4; ++d) at[perm[d]] = o[d];
      return at;
    });
    auto result = run_op_outputs("Transpose", {&x}, {{"perm", Attribute::of_ints(perm)}});
    expect_array<int32_t>(result[0], out, expected);
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(TransposeOp, MovesEveryElementType) {
  Shape in = {3, 2, 4}, out = {4, 3, 2};
  auto source = [](const Shape& o) { return Shape{o[1], o[2], o[0]}; };
  std::vector<uint16_t> bits = {0x3c00, 0xc000, 0x7e00, 0x0001, 0x7bff, 0x8000};
  for (DType dtype : {DType::Float(16), DType::UInt(16)}) {
    std::vector<uint16_t> values;
    for (int64_t k = 0; k < count(in); ++k) values.push_back(bits[k % bits.size()] + k);
    NDArray x = array_of<uint16_t>(in, values, dtype);
    auto out_values = run_op_outputs("Transpose", {&x}, {{"perm", Attribute::of_ints({2, 0, 1})}});
    expect_array<uint16_t>(out_values[0], out, gather_reference(values, in, out, source), dtype);
  }
  std::vector<uint8_t> flags;
  for (int64_t k = 0; k < count(in); ++k) flags.push_back(k % 3 == 0);
  NDArray b = array_of<uint8_t>(in, flags, DType::Bool());
  auto out_flags = run_op_outputs("Transpose", {&b}, {{"perm", Attribute::of_ints({2, 0, 1})}});
  expect_array<uint8_t>(out_flags[0], out, gather_reference(flags, in, out, source), DType::Bool());
  NDArray d = iota<double>(in);
  auto out_doubles = run_op_outputs("Transpose", {&d}, {{"perm", Attribute::of_ints({2, 0, 1})}});
  expect_array<double>(out_doubles[0], out,
                       gather_reference(values_of<double>(d), in, out, source));
}

/// Concatenation of `parts` along `axis`, element by element; sets `out_shape`.
std::vector<float> concat_reference(const std::vector<NDArray>& parts, int64_t axis,
                                    Shape& out_shape) {
  out_shape = parts[0].shape();
  out_shape[axis] = 0;
  for (const NDArray& p : parts) out_shape[axis] += p.shape()[axis];
  std::vector<float> out;
  for (int64_t k = 0; k < count(out_shape); ++k) {
    Shape at = unravel(k, out_shape);
    size_t part = 0;
    while (at[axis] >= parts[part].shape()[axis]) at[axis] -= parts[part++].shape()[axis];
    out.push_back(values_of<float>(parts[part])[ravel(at, parts[part].shape())]);
  }
  return out;
}

TEST(ConcatOp, AxesIncludingNegativeAndEmptyInputs) {
  for (int64_t axis : {0, 1, 2, -1, -3}) {
    int64_t a = axis < 0 ? axis + 3 : axis;
    std::vector<NDArray> parts;
    for (int64_t extent : {2, 0, 3, 1}) {
      Shape shape = {2, 3, 4};
      shape[a] = extent;
      parts.push_back(iota<float>(shape));
    }
    // Make the parts distinguishable.
    for (size_t i = 0; i < parts.size(); ++i) {
      auto* data = parts[i].data_as<float>();
      for (int64_t k = 0; k < parts[i].size(); ++k) data[k] += 100.0f * static_cast<float>(i);
    }
    Shape out_shape;
    auto expected = concat_reference(parts, a, out_shape);
    std::vector<const NDArray*> inputs;
    for (const NDArray& p : parts) inputs.push_back(&p);
    auto out = run_op_outputs("Concat", inputs, {{"axis", Attribute::of_int(axis)}}, 13);
    expect_array<float>(out[0], out_shape, expected);
  }
}

/// Checks Split's outputs: output k holds the input's positions [offset_k, offset_k + size_k)
/// along `axis`.
void expect_split(const std::vector<NDArray>& out, const NDArray& x, int64_t axis,
                  const std::vector<int64_t>& sizes) {
  ASSERT_EQ(out.size(), sizes.size());
  int64_t offset = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    Shape shape = x.shape();
    shape[axis] = sizes[k];
    auto expected =
        gather_reference<float>(values_of<float>(x), x.shape(), shape, [&](const Shape& o) {
          Shape at = o;
          at[axis] += offset;
          return at;
        });
    SCOPED_TRACE("output " + std::to_string(k));
    expect_array<float>(out[k], shape, expected);
    offset += sizes[k];
  }
}

TEST(SplitOp, AttributeBeforeOpset13) {
  NDArray x = iota<float>({2, 6});
  auto out = run_op_outputs(
      "Split", {&x}, {{"axis", Attribute::of_int(1)}, {"split", Attribute::of_ints({1, 3, 2})}}, 11,
      3);
  expect_split(out, x, 1, {1, 3, 2});
}

TEST(SplitOp, InputFromOpset13WithEmptyPart) {
  NDArray x = iota<float>({5, 2});
  NDArray split = ints({2, 0, 3});
  auto out = run_op_outputs("Split", {&x, &split}, {}, 13, 3);
  expect_split(out, x, 0, {2, 0, 3});
}

TEST(SplitOp, EqualPartsWhenNoSizes) {
  NDArray x = iota<float>({2, 3, 6});
  expect_split(run_op_outputs("Split", {&x}, {{"axis", Attribute::of_int(-1)}}, 13, 3), x, 2,
               {2, 2, 2});
  expect_split(run_op_outputs("Split", {&x}, {{"axis", Attribute::of_int(1)}}, 11, 3), x, 1,
               {1, 1, 1});
}

/// The positions along an axis of extent `dim` that a slice selects, by walking from the
/// normalised, clamped start in steps (ONNX's definition).
std::vector<int64_t> slice_positions(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
  }
  std::vector<int64_t> positions;
  // 128-bit positions: a step near the int64 limits must not overflow the walk.
  for (__int128 p = start; step > 0 ? p < end : p > end; p += step)
    positions.push_back(static_cast<int64_t>(p));
  return positions;
}

/// The reference slice of an iota of `in` (float), per axis of `in`: (start, end, step).
struct AxisSlice {
  int64_t start, end, step;
};
void expect_slice(const NDArray& out, const NDArray& x,
                  const std::map<int64_t, AxisSlice>& slices) {
  Shape in = x.shape();
  std::vector<std::vector<int64_t>> positions(in.size());
  Shape out_shape;
  for (size_t d = 0; d < in.size(); ++d) {
    auto it = slices.find(static_cast<int64_t>(d));
    if (it == slices.end()) {
      positions[d].resize(static_cast<size_t>(in[d]));
      std::iota(positions[d].begin(), positions[d].end(), 0);
    } else {
      positions[d] = slice_positions(in[d], it->second.start, it->second.end, it->second.step);
    }
    out_shape.push_back(static_cast<int64_t>(positions[d].size()));
  }
  auto expected = gather_reference<float>(values_of<float>(x), in, out_shape, [&](const Shape& o) {
    Shape at(o.size());
    for (size_t d = 0; d < o.size(); ++d) at[d] = positions[d][o[d]];
    return at;
  });
  expect_array<float>(out, out_shape, expected);
}

TEST(SliceOp, AttributesBeforeOpset10) {
  NDArray x = iota<float>({4, 5, 3});
  auto out = run_op_outputs("Slice", {&x},
                            {{"starts", Attribute::of_ints({1, -4})},
                             {"ends", Attribute::of_ints({100, -1})},
                             {"axes", Attribute::of_ints({0, 1})}},
                            9);
  expect_slice(out[0], x, {{0, {1, 100, 1}}, {1, {-4, -1, 1}}});
  auto no_axes = run_op_outputs(
      "Slice", {&x}, {{"starts", Attribute::of_ints({2})}, {"ends", Attribute::of_ints({3})}}, 7);
  expect_slice(no_axes[0], x, {{0, {2, 3, 1}}});
}

TEST(SliceOp, InputsWithStepsFromOpset10) {
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  NDArray x = iota<float>({6, 7});
  struct Case {
    std::vector<int64_t> starts, ends, axes, steps;
  };
  std::vector<Case> cases = {
      {{0, 1}, {6, 7}, {0, 1}, {2, 3}},
      {{-1, 5}, {kMin, 0}, {0, 1}, {-1, -2}},       // backwards to the front / before 0
      {{100, -100}, {-100, 100}, {0, 1}, {-2, 1}},  // out-of-range starts and ends clamp
      {{2}, {kMax}, {-1}, {kMax}},                  // one element, negative axis
      {{3}, {3}, {1}, {1}},                         // selects nothing
      {{0}, {5}, {-2}, {-1}},                       // negative step from 0: nothing
      {{kMax}, {kMin}, {1}, {kMin}},                // huge negative step: the last element
  };
  for (const Case& c : cases) {
    NDArray starts = ints(c.starts), ends = ints(c.ends), axes = ints(c.axes),
            steps = ints(c.steps);
    std::map<int64_t, AxisSlice> slices;
    for (size_t k = 0; k < c.starts.size(); ++k)
      slices[c.axes[k] < 0 ? c.axes[k] + 2 : c.axes[k]] = {c.starts[k], c.ends[k], c.steps[k]};
    auto out = run_op_outputs("Slice", {&x, &starts, &ends, &axes, &steps}, {}, 13);
    expect_slice(out[0], x, slices);
  }
}

TEST(SliceOp, OptionalAxesAndSteps) {
  NDArray x = iota<float>({4, 4});
  NDArray starts = ints({1, 2}), ends = ints({3, 4});
  expect_slice(run_op("Slice", {&x, &starts, &ends}, {}, 10), x, {{0, {1, 3, 1}}, {1, {2, 4, 1}}});
  NDArray steps = ints({1, -1}), starts2 = ints({0, -1}), ends2 = ints({4, -5});
  expect_slice(run_op("Slice", {&x, &starts2, &ends2, nullptr, &steps}, {}, 13), x,
               {{0, {0, 4, 1}}, {1, {-1, -5, -1}}});
}

TEST(ExpandOp, BidirectionalBroadcast) {
  struct Case {
    Shape in, shape, out;
  };
  for (const Case& c :
       {Case{{3, 1}, {2, 1, 4}, {2, 3, 4}}, Case{{3, 1}, {1}, {3, 1}}, Case{{1, 4}, {3, 1}, {3, 4}},
        Case{{}, {2, 2}, {2, 2}}, Case{{2, 1}, {2, 0}, {2, 0}}}) {
    NDArray x = iota<float>(c.in);
    NDArray shape = ints(c.shape);
    auto expected = gather_reference<float>(values_of<float>(x), c.in, c.out, [&](const Shape& o) {
      Shape at;
      size_t offset = o.size() - c.in.size();
      for (size_t d = 0; d < c.in.size(); ++d) at.push_back(c.in[d] == 1 ? 0 : o[offset + d]);
      return at;
    });
    expect_array<float>(run_op("Expand", {&x, &shape}), c.out, expected);
  }
}

TEST(TileOp, RepeatsPerAxis) {
  struct Case {
    Shape in, repeats;
  };
  for (const Case& c :
       {Case{{2, 3}, {2, 2}}, Case{{2, 1, 3}, {1, 4, 2}}, Case{{3}, {0}}, Case{{2, 2}, {1, 1}}}) {
    NDArray x = iota<int64_t>(c.in);
    NDArray repeats = ints(c.repeats);
    Shape out;
    for (size_t d = 0; d < c.in.size(); ++d) out.push_back(c.in[d] * c.repeats[d]);
    auto expected =
        gather_reference<int64_t>(values_of<int64_t>(x), c.in, out, [&](const Shape& o) {
          Shape at;
          for (size_t d = 0; d < o.size(); ++d) at.push_back(o[d] % c.in[d]);
          return at;
        });
    expect_array<int64_t>(run_op("Tile", {&x, &repeats}), out, expected);
  }
}

}  // namespace
}  // namespace tessel::ops::testing
