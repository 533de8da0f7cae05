// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear and the integer / quantized
// contractions (MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv) against naive
// references: rounding half to even, saturation, per-axis parameters, zero points.
#include "unit/ops_nn/nn_test_util.h"

namespace tessel::ops::testing {
namespace {

/// Reference quantisation: round half to even, add the zero point, saturate.
template <class Q>
Q quantize(double x, double scale, int zero_point) {
  double v = std::nearbyint(x / scale) + zero_point;
  v = std::min<double>(std::max<double>(v, std::numeric_limits<Q>::min()),
                       std::numeric_limits<Q>::max());
  return static_cast<Q>(v);
}

TEST(QuantizeLinear, RoundsHalfToEvenAndSaturates) {
  // x / 2: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> 0, -1.5 -> -2, -2.5 -> -2, then saturation.
  std::vector<float> x = {1, 3, 5, -1, -3, -5, 1000, -1000, 0.2f, 7.4f};
  NDArray xa = array_of<float>({10}, x);
  NDArray scale = array_of<float>({}, {2});
  NDArray zp_u8 = array_of<uint8_t>({}, {128});
  NDArray zp_i8 = array_of<int8_t>({}, {-3});
  std::vector<uint8_t> u8;
  std::vector<int8_t> i8;
  for (float v : x) {
    u8.push_back(quantize<uint8_t>(v, 2, 128));
    i8.push_back(quantize<int8_t>(v, 2, -3));
  }
  EXPECT_EQ(u8[0], 128);  // 0.5 rounds to 0
  EXPECT_EQ(u8[1], 130);  // 1.5 rounds to 2
  EXPECT_EQ(u8[2], 130);  // 2.5 rounds to 2
  expect_array(run_op("QuantizeLinear", {&xa, &scale, &zp_u8}, {}, 10), {10}, u8);
  expect_array(run_op("QuantizeLinear", {&xa, &scale, &zp_i8}), {10}, i8);
  // Without a zero point: uint8 with zero point 0.
  std::vector<uint8_t> plain;
  for (float v : x) plain.push_back(quantize<uint8_t>(v, 2, 0));
  expect_array(run_op("QuantizeLinear", {&xa, &scale}), {10}, plain);
}

TEST(QuantizeLinear, PerAxisAndInt32Input) {
  Shape xs{2, 3, 2};
  std::vector<float> x = random_values<float>(xs, 1, -300, 300);
  std::vector<float> scales = {2, 0.5f, 3};
  std::vector<uint8_t> zps = {10, 128, 200};
  NDArray xa = array_of(xs, x), sa = array_of<float>({3}, scales), za = array_of<uint8_t>({3}, zps);
  std::vector<uint8_t> expected = generate<uint8_t>(xs, [&](const Shape& i) {
    return quantize<uint8_t>(x[ravel(i, xs)], scales[i[1]], zps[i[1]]);
  });
  expect_array(run_op("QuantizeLinear", {&xa, &sa, &za}), xs, expected);
  std::vector<float> s2 = {0.25f, 4};
  std::vector<uint8_t> z2 = {0, 255};
  NDArray s2a = array_of<float>({2}, s2), z2a = array_of<uint8_t>({2}, z2);
  expect_array(run_op("QuantizeLinear", {&xa, &s2a, &z2a}, {{"axis", Attribute::of_int(-1)}}), xs,
               generate<uint8_t>(xs, [&](const Shape& i) {
                 return quantize<uint8_t>(x[ravel(i, xs)], s2[i[2]], z2[i[2]]);
               }));
  std::vector<int32_t> xi = {-7, -5, 5, 7, 300};
  NDArray xia = array_of<int32_t>({5}, xi), s = array_of<float>({1}, {2});
  NDArray z = array_of<int8_t>({1}, {1});
  std::vector<int8_t> qi;
  for (int32_t v : xi) qi.push_back(quantize<int8_t>(v, 2, 1));
  expect_array(run_op("QuantizeLinear", {&xia, &s, &z}), {5}, qi);
  NDArray bad = array_of<float>({4}, {1, 2, 3, 4});
  expect_compile_error([&] { run_op("QuantizeLinear", {&xa, &bad}); }, {"scale", "[4]", "[3]"});
}

TEST(DequantizeLinear, PerTensorAndPerAxis) {
  Shape xs{2, 3};
  std::vector<uint8_t> x = {0, 3, 128, 255, 17, 200};
  NDArray xa = array_of(xs, x);
  NDArray scale = array_of<float>({}, {0.5f}), zp = array_of<uint8_t>({}, {128});
  std::vector<double> expected;
  for (uint8_t v : x) expected.push_back((double(v) - 128) * 0.5);
  expect_close(run_op("DequantizeLinear", {&xa, &scale, &zp}), xs, expected);
  std::vector<float> scales = {1, 2, 0.25f};
  std::vector<uint8_t> zps = {0, 10, 255};
  NDArray sa = array_of<float>({3}, scales), za = array_of<uint8_t>({3}, zps);
  expect_close(run_op("DequantizeLinear", {&xa, &sa, &za}), xs,
               generate<double>(xs, [&](const Shape& i) {
                 return (double(x[ravel(i, xs)]) - zps[i[1]]) * scales[i[1]];
               }));
  std::vector<int32_t> xi = {-1000, 0, 77};
  NDArray xia = array_of<int32_t>({3}, xi);
  expect_close(run_op("DequantizeLinear", {&xia, &scale}), {3}, {-500, 0, 38.5});
}

TEST(DynamicQuantizeLinear, ScaleZeroPointAndValues) {
  for (std::vector<float> x : {std::vector<float>{0, 2, -3, -2.5f, 1.34f, 0.5f},
                               std::vector<float>{-1, -2.1f, -1.3f, -2.5f, -3.34f, -4},
                               std::vector<float>{1, 2.1f, 1.3f, 2.5f, 3.34f, 4, 1.5f, 2.6f}}) {
    NDArray xa = array_of<float>({2, static_cast<int64_t>(x.size()) / 2}, x);
    float lo = std::min(0.0f, *std::min_element(x.begin(), x.end()));
    float hi = std::max(0.0f, *std::max_element(x.begin(), x.end()));
    float scale = (hi - lo) / 255.0f;
    uint8_t zp = quantize<uint8_t>(-lo / scale, 1, 0);
    std::vector<uint8_t> y;
    for (float v : x) y.push_back(quantize<uint8_t>(v / scale, 1, zp));
    std::vector<NDArray> out = run_op_outputs("DynamicQuantizeLinear", {&xa}, {}, 11, 3);
    expect_array(out[0], xa.shape(), y);
    expect_close(out[1], {}, {scale}, 1e-6);
    expect_array(out[2], {}, std::vector<uint8_t>{zp});
  }
}

TEST(MatMulInteger, ZeroPointsPerTensorRowAndColumn) {
  Shape as{2, 3, 4}, bs{4, 5};
  std::vector<uint8_t> a = random_values<uint8_t>(as, 2, 0, 256);
  std::vector<int8_t> b = random_values<int8_t>(bs, 3, -128, 128);
  std::vector<uint8_t> a_zp = {3, 200, 17};
  std::vector<int8_t> b_zp = {-1, 0, 5, 100, -128};
  NDArray aa = array_of(as, a), ba = array_of(bs, b);
  NDArray azp = array_of<uint8_t>({3}, a_zp), bzp = array_of<int8_t>({5}, b_zp);
  NDArray azp1 = array_of<uint8_t>({}, {12});
  auto reference = [&](bool per_row) {
    return generate<int32_t>({2, 3, 5}, [&](const Shape& o) {
      int32_t sum = 0;
      for (int64_t k = 0; k < 4; ++k)
        sum += (int32_t(a[(o[0] * 3 + o[1]) * 4 + k]) - (per_row ? a_zp[o[1]] : 12)) *
               (int32_t(b[k * 5 + o[2]]) - b_zp[o[2]]);
      return sum;
    });
  };
  expect_array(run_op("MatMulInteger", {&aa, &ba, &azp, &bzp}), {2, 3, 5}, reference(true));
  expect_array(run_op("MatMulInteger", {&aa, &ba, &azp1, &bzp}), {2, 3, 5}, reference(false));
  std::vector<int32_t> no_zp = generate<int32_t>({2, 3, 5}, [&](const Shape& o) {
    int32_t sum = 0;
    for (int64_t k = 0; k < 4; ++k) sum += int32_t(a[(o[0] * 3 + o[1]) * 4 + k]) * b[k * 5 + o[2]];
    return sum;
  });
  expect_array(run_op("MatMulInteger", {&aa, &ba}), {2, 3, 5}, no_zp);
}

TEST(QLinearMatMul, RequantizesTheProduct) {
  Shape as{3, 4}, bs{4, 2};
  std::vector<uint8_t> a = random_values<uint8_t>(as, 4, 0, 256);
  std::vector<int8_t> b = random_values<int8_t>(bs, 5, -128, 128);
  float a_scale = 0.02f, b_scale = 0.03f, y_scale = 0.5f;
  NDArray aa = array_of(as, a), ba = array_of(bs, b);
  NDArray as_ = array_of<float>({}, {a_scale}), bs_ = array_of<float>({1}, {b_scale});
  NDArray ys = array_of<float>({}, {y_scale});
  NDArray azp = array_of<uint8_t>({}, {120}), bzp = array_of<int8_t>({}, {-3});
  NDArray yzp = array_of<uint8_t>({}, {100});
  std::vector<uint8_t> expected = generate<uint8_t>({3, 2}, [&](const Shape& o) {
    int32_t sum = 0;
    for (int64_t k = 0; k < 4; ++k) sum += (int32_t(a[o[0] * 4 + k]) - 120) * (b[k * 2 + o[1]] + 3);
    float multiplier = a_scale * b_scale / y_scale;
    return quantize<uint8_t>(float(sum) * multiplier, 1, 100);
  });
  expect_array(run_op("QLinearMatMul", {&aa, &as_, &azp, &ba, &bs_, &bzp, &ys, &yzp}), {3, 2},
               expected);
}

TEST(ConvInteger, PadsWithTheZeroPoint) {
  // Padding is zero after the shift: positions outside x contribute nothing.
  Shape xs{1, 2, 4, 4}, ws{3, 2, 3, 3};
  std::vector<uint8_t> x = random_values<uint8_t>(xs, 6, 0, 256);
  std::vector<uint8_t> w = random_values<uint8_t>(ws, 7, 0, 256);
  NDArray xa = array_of(xs, x), wa = array_of(ws, w);
  NDArray xzp = array_of<uint8_t>({}, {100}), wzp = array_of<uint8_t>({3}, {1, 128, 255});
  std::vector<int32_t> w_zp = {1, 128, 255};
  std::vector<int32_t> expected = generate<int32_t>({1, 3, 4, 4}, [&](const Shape& o) {
    int32_t sum = 0;
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t r = 0; r < 3; ++r)
        for (int64_t s = 0; s < 3; ++s) {
          int64_t h = o[2] - 1 + r, v = o[3] - 1 + s;
          if (h < 0 || h >= 4 || v < 0 || v >= 4) continue;
          sum += (int32_t(x[(c * 4 + h) * 4 + v]) - 100) *
                 (int32_t(w[((o[1] * 2 + c) * 3 + r) * 3 + s]) - w_zp[o[1]]);
        }
    return sum;
  });
  expect_array(run_op("ConvInteger", {&xa, &wa, &xzp, &wzp}, {{"pads", ints({1, 1, 1, 1})}}),
               {1, 3, 4, 4}, expected);
}

TEST(QLinearConv, PerChannelScalesAndBias) {
  Shape xs{1, 2, 5, 5}, ws{2, 2, 2, 2};
  std::vector<int8_t> x = random_values<int8_t>(xs, 8, -128, 128);
  std::vector<int8_t> w = random_values<int8_t>(ws, 9, -128, 128);
  std::vector<float> w_scale = {0.01f, 0.05f};
  std::vector<int32_t> bias = {500, -700};
  float x_scale = 0.1f, y_scale = 0.2f;
  NDArray xa = array_of(xs, x), wa = array_of(ws, w);
  NDArray xsa = array_of<float>({}, {x_scale}), xzp = array_of<int8_t>({}, {-5});
  NDArray wsa = array_of<float>({2}, w_scale), wzp = array_of<int8_t>({}, {0});
  NDArray ysa = array_of<float>({}, {y_scale}), yzp = array_of<int8_t>({}, {7});
  NDArray ba = array_of<int32_t>({2}, bias);
  std::vector<int8_t> expected = generate<int8_t>({1, 2, 2, 2}, [&](const Shape& o) {
    int32_t sum = bias[o[1]];
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t s = 0; s < 2; ++s)
          sum += (int32_t(x[(c * 5 + o[2] * 2 + r) * 5 + o[3] * 2 + s]) + 5) *
                 int32_t(w[((o[1] * 2 + c) * 2 + r) * 2 + s]);
    float multiplier = x_scale * w_scale[o[1]] / y_scale;
    return quantize<int8_t>(float(sum) * multiplier, 1, 7);
  });
  expect_array(run_op("QLinearConv", {&xa, &xsa, &xzp, &wa, &wsa, &wzp, &ysa, &yzp, &ba},
                      {{"strides", ints({2, 2})}}),
               {1, 2, 2, 2}, expected);
}

}  // namespace
}  // namespace tessel::ops::testing
