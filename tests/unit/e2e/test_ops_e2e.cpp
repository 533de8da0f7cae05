// End to end: operators built from tensor expressions, scheduled, JIT-compiled and run,
// compared with naive C++ loops over randomised shapes (non-divisible and size-1 included).
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "driver/build.h"
#include "ir/functor.h"
#include "ops/conv2d.h"
#include "ops/conv2d_nchwc.h"
#include "ops/conv2d_winograd.h"
#include "ops/matmul.h"
#include "ops/reference.h"
#include "ops/softmax.h"
#include "runtime/module.h"
#include "runtime/tessel_runtime.h"
#include "schedules/cpu/conv2d.h"
#include "schedules/cpu/conv2d_nchwc.h"
#include "schedules/cpu/conv2d_winograd.h"
#include "schedules/cpu/matmul.h"
#include "schedules/cpu/softmax.h"
#include "schedules/cpu/target_budget.h"
#include "target/parse_target.h"
#include "unit/target_test_util.h"

namespace tessel {
namespace {

using ops::reference::Floats;

std::vector<void*> pointers(std::vector<Floats>& buffers) {
  std::vector<void*> out;
  for (Floats& b : buffers) out.push_back(b.data());
  return out;
}

struct MatmulShape {
  int64_t m, n, k;
};

class MatmulE2E : public ::testing::TestWithParam<MatmulShape> {};

TEST_P(MatmulE2E, BlockedScheduleMatchesNaiveLoops) {
  auto [m, n, k] = GetParam();
  te::Tensor a = te::placeholder({m, k}, ir::DataType::Float(32), "A");
  te::Tensor b = te::placeholder({k, n}, ir::DataType::Float(32), "B");
  for (int64_t tile_m : {1, 3, 4}) {
    for (int64_t tile_n : {8, 16}) {
      for (bool prefetch : {false, true}) {
        te::Tensor c = ops::matmul(a, b, tile_n, "C");
        schedule::Schedule s({c});
        schedules::MatmulConfig config;
        config.tile_m = tile_m;
        config.tile_k = k > 4 && tile_m != 3 ? 4 : 0;
        config.prefetch = prefetch;
        schedules::schedule_matmul_cpu(s, c, config);
        driver::Kernel kernel = driver::build(s, {a, b, c}, "matmul");
        std::vector<Floats> bufs = {ops::reference::random_values(m * k, 11),
                                    ops::reference::random_values(k * n, 12),
                                    Floats(m * n, -7.0f)};
        kernel.run(pointers(bufs));
        Floats expected = ops::reference::matmul(bufs[0], bufs[1], m, n, k);
        EXPECT_LE(ops::reference::max_scaled_error(bufs[2], expected, 1e-5, 1e-5), 1.0)
            << m << "x" << n << "x" << k << " tile " << tile_m << "x" << tile_n << " k block "
            << config.tile_k << (prefetch ? ", prefetching" : "");
      }
    }
  }
}

TEST(MatmulSchedule, PrefetchesRightOperandsOfAMebibyteOrMoreByDefault) {
  for (const char* description : testing::kVectorTargets) {
    const target::Target target = target::parse_target(description);
    auto prefetches = [&](int64_t m, int64_t n, int64_t k) {
      te::Tensor a = te::placeholder({m, k}, ir::DataType::Float(32), "A");
      te::Tensor b = te::placeholder({k, n}, ir::DataType::Float(32), "B");
      te::Tensor c = ops::matmul(a, b, schedules::matmul_panel(target), "C");
      schedule::Schedule s({c});
      schedules::schedule_matmul_cpu(s, c, schedules::default_matmul_config(target));
      int count = 0;
      for (const schedule::Stage& stage : s.stages())
        count += static_cast<int>(stage.prefetches.size());
      return count;
    };
    EXPECT_EQ(prefetches(128, 768, 768), 1) << description;  // 2.25 MiB, BERT's attention output
    EXPECT_EQ(prefetches(1, 4096, 1024), 1) << description;  // 16 MiB, a recurrent step
    EXPECT_EQ(prefetches(128, 256, 768), 0) << description;  // 0.75 MiB: stays cached
    EXPECT_EQ(prefetches(128, 48, 8192), 0) << description;  // 1.5-2 MiB, too few column tiles
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, MatmulE2E,
                         ::testing::Values(MatmulShape{1, 16, 1}, MatmulShape{7, 16, 5},
                                           MatmulShape{13, 32, 17}, MatmulShape{64, 48, 33},
                                           MatmulShape{5, 64, 1}, MatmulShape{33, 16, 64}),
                         [](const auto& info) {
                           const MatmulShape& p = info.param;
                           return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
                                  std::to_string(p.k);
                         });

struct ConvShape {
  int64_t c, hw, k, r, stride, pad;
};

class Conv2dE2E : public ::testing::TestWithParam<ConvShape> {};

TEST_P(Conv2dE2E, DirectScheduleMatchesNaiveLoops) {
  auto [c, hw, k, r, stride, pad] = GetParam();
  int64_t out = (hw + 2 * pad - r) / stride + 1;
  te::Tensor x = te::placeholder({1, c, hw, hw}, ir::DataType::Float(32), "data");
  te::Tensor w = te::placeholder({k, c, r, r}, ir::DataType::Float(32), "weight");
  // Blocks of 4 output channels (k = 5 and 9 leave a partial block) and 4-column tiles.
  te::Tensor y = ops::conv2d_nchw(x, w, {stride, pad, 4}, "conv");
  schedule::Schedule s({y});
  schedules::Conv2dConfig config;
  config.tile_ow = 4;
  schedules::schedule_conv2d_cpu(s, y, target::host(), config);
  driver::Kernel kernel = driver::build(s, {x, w, y}, "conv2d");
  std::vector<Floats> bufs = {ops::reference::random_values(c * hw * hw, 21),
                              ops::reference::random_values(k * c * r * r, 22),
                              Floats(k * out * out, -7.0f)};
  kernel.run(pointers(bufs));
  Floats expected =
      ops::reference::conv2d_nchw(bufs[0], bufs[1], 1, c, hw, hw, k, r, r, stride, pad);
  EXPECT_LE(ops::reference::max_scaled_error(bufs[2], expected, 1e-5, 1e-5), 1.0);
}

INSTANTIATE_TEST_SUITE_P(Shapes, Conv2dE2E,
                         ::testing::Values(ConvShape{3, 9, 5, 3, 1, 1}, ConvShape{8, 8, 8, 3, 1, 1},
                                           ConvShape{1, 7, 1, 1, 1, 0}, ConvShape{4, 11, 6, 3, 2, 1},
                                           ConvShape{5, 10, 9, 5, 1, 2}),
                         [](const auto& info) {
                           const ConvShape& p = info.param;
                           return "c" + std::to_string(p.c) + "_hw" + std::to_string(p.hw) + "_k" +
                                  std::to_string(p.k) + "_r" + std::to_string(p.r) + "_s" +
                                  std::to_string(p.stride) + "_p" + std::to_string(p.pad);
                         });

struct NchwcConvCase {
  int64_t c, hw, k, r, stride, pad;
  int64_t in_block;  ///< 0: NCHW data
  int64_t block;
  bool depthwise;
  int64_t groups = 1;  ///< of a grouped convolution (not depthwise)
  int64_t dilation = 1;
};

/// [C, H*W] NCHW values in [ceil(C/x), H*W, x] blocks, padding channels `fill`.
Floats to_blocks(const Floats& nchw, int64_t c, int64_t hw, int64_t x, float fill) {
  int64_t blocks = (c + x - 1) / x;
  Floats out(blocks * hw * x, fill);
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t p = 0; p < hw; ++p) out[(ch / x * hw + p) * x + ch % x] = nchw[ch * hw + p];
  return out;
}

class Conv2dNchwcE2E : public ::testing::TestWithParam<NchwcConvCase> {};

TEST_P(Conv2dNchwcE2E, BlockedScheduleMatchesNaiveLoops) {
  NchwcConvCase p = GetParam();
  int64_t span = (p.r - 1) * p.dilation + 1;  // the dilated kernel's extent
  int64_t out = (p.hw + 2 * p.pad - span) / p.stride + 1;
  int64_t wc = p.depthwise ? 1 : p.c / p.groups;
  te::Tensor x = p.in_block == 0
                     ? te::placeholder({1, p.c, p.hw, p.hw}, ir::DataType::Float(32), "data")
                     : te::placeholder({1, (p.c + p.in_block - 1) / p.in_block, p.hw, p.hw,
                                        p.in_block},
                                       ir::DataType::Float(32), "data");
  te::Tensor w = te::placeholder({p.k, wc, p.r, p.r}, ir::DataType::Float(32), "weight");
  te::Tensor y = ops::conv2d_nchwc(
      x, w, {p.stride, p.pad, p.block, p.depthwise, p.groups, p.dilation}, "conv");
  Floats data = ops::reference::random_values(p.c * p.hw * p.hw, 41);
  Floats weight = ops::reference::random_values(p.k * wc * p.r * p.r, 42);
  int64_t out_blocks = (p.k + p.block - 1) / p.block;

  // Depthwise and grouped: the full convolution by a weight that is zero outside each output
  // channel's group (depthwise: its own channel); dilated: by the kernel spread out, zeros
  // between its taps.
  int64_t in_per_group = p.depthwise ? 1 : p.c / p.groups;
  int64_t out_per_group = p.depthwise ? 1 : p.k / p.groups;
  Floats full(p.k * p.c * span * span, 0.0f);
  for (int64_t o = 0; o < p.k; ++o)
    for (int64_t i = 0; i < in_per_group; ++i)
      for (int64_t ty = 0; ty < p.r; ++ty)
        for (int64_t tx = 0; tx < p.r; ++tx) {
          int64_t ch = o / out_per_group * in_per_group + i;
          full[((o * p.c + ch) * span + ty * p.dilation) * span + tx * p.dilation] =
              weight[((o * wc + i) * p.r + ty) * p.r + tx];
        }
  Floats expected = ops::reference::conv2d_nchw(data, full, 1, p.c, p.hw, p.hw, p.k, span, span,
                                                p.stride, p.pad);
  Floats expected_blocks = to_blocks(expected, p.k, out * out, p.block, 0.0f);

  // A padded copy of the input first, or the input read in place (borders zeroed); the
  // reduction over input blocks whole, or blocked by one or two blocks (the last block
  // partial where two do not divide them).
  for (auto [pad_in_place, tile_ci] :
       {std::pair{false, 0}, std::pair{true, 0}, std::pair{false, 1}, std::pair{true, 2}}) {
    schedule::Schedule s({y});
    schedules::Conv2dNchwcConfig config;
    config.pad_in_place = pad_in_place;
    config.tile_ci = tile_ci;
    schedules::schedule_conv2d_nchwc_cpu(s, y, target::host(), {}, config);
    driver::Kernel kernel = driver::build(s, {x, w, y}, "conv2d_nchwc");
    // Padding channels of blocked data hold zeros, as the layout guarantees.
    std::vector<Floats> bufs = {
        p.in_block == 0 ? data : to_blocks(data, p.c, p.hw * p.hw, p.in_block, 0.0f), weight,
        Floats(out_blocks * out * out * p.block, -7.0f)};
    kernel.run(pointers(bufs));
    EXPECT_LE(ops::reference::max_scaled_error(bufs[2], expected_blocks, 1e-5, 1e-5), 1.0)
        << "pad in place: " << pad_in_place << ", tile_ci " << tile_ci;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Conv2dNchwcE2E,
    ::testing::Values(NchwcConvCase{3, 9, 16, 3, 2, 1, 0, 16, false},    // NCHW image stem
                      NchwcConvCase{16, 7, 16, 3, 1, 1, 16, 16, false},  // blocked in and out
                      NchwcConvCase{8, 6, 24, 1, 1, 0, 8, 8, false},     // 1x1, blocks of 8
                      NchwcConvCase{48, 7, 32, 1, 1, 0, 16, 16, false},  // 1x1, 3 input blocks
                      NchwcConvCase{12, 8, 20, 3, 2, 1, 8, 16, false},   // partial blocks
                      NchwcConvCase{5, 11, 9, 5, 1, 2, 0, 8, false},     // 5x5, partial out
                      NchwcConvCase{16, 9, 16, 3, 1, 1, 16, 16, true},   // depthwise
                      NchwcConvCase{24, 10, 24, 3, 2, 1, 16, 16, true},  // depthwise, strided,
                                                                         // partial block
                      NchwcConvCase{8, 5, 8, 5, 1, 2, 8, 8, true},
                      // Groups of 4 channels, 4 to a block; groups of a block each; 17 groups
                      // of 8 in 136 channels (the last block half padding).
                      NchwcConvCase{32, 6, 32, 3, 1, 1, 16, 16, false, 8},
                      NchwcConvCase{32, 7, 32, 3, 2, 1, 16, 16, false, 2},
                      NchwcConvCase{136, 4, 136, 3, 1, 1, 16, 16, false, 17},
                      // Groups in lanes: 8 groups of 8 strided (a group per vector of 8),
                      // 4 input and 8 output channels per group from input blocks of 8,
                      // groups of 4 in blocks of 8 (AVX2's).
                      NchwcConvCase{64, 9, 64, 3, 2, 1, 16, 16, false, 8},
                      NchwcConvCase{16, 6, 32, 3, 1, 1, 8, 16, false, 4},
                      NchwcConvCase{16, 5, 16, 3, 1, 1, 8, 8, false, 4},
                      // Dilated: a depthwise 5x5, a strided 3x3 from NCHW data.
                      NchwcConvCase{16, 11, 16, 5, 1, 4, 16, 16, true, 1, 2},
                      NchwcConvCase{5, 12, 16, 3, 2, 3, 0, 16, false, 1, 3}),
    [](const auto& info) {
      const NchwcConvCase& p = info.param;
      return std::string(p.depthwise ? "dw" : "conv") + "_c" + std::to_string(p.c) + "_hw" +
             std::to_string(p.hw) + "_k" + std::to_string(p.k) + "_r" + std::to_string(p.r) +
             "_s" + std::to_string(p.stride) + "_p" + std::to_string(p.pad) + "_in" +
             std::to_string(p.in_block) + "_x" + std::to_string(p.block) + "_g" +
             std::to_string(p.groups) + "_d" + std::to_string(p.dilation);
    });

// F(m, 3) in one dimension against the correlation it stands for, in double precision:
// sum_k d[i + k] g[k] = sum_j at[i][j] (G g)[j] (B^T d)[j].
TEST(WinogradMatrices, ComputeTheCorrelationOfEachTile) {
  for (int64_t m : {1, 2, 3, 4, 6}) {
    ops::WinogradMatrices w = ops::winograd_matrices(m, 3);
    ASSERT_EQ(w.alpha, m + 2);
    std::mt19937 rng(static_cast<unsigned>(m));
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> d(w.alpha), g(3);
    for (double& x : d) x = dist(rng);
    for (double& x : g) x = dist(rng);
    for (int64_t i = 0; i < m; ++i) {
      double direct = 0.0, fast = 0.0;
      for (int64_t k = 0; k < 3; ++k) direct += d[i + k] * g[k];
      for (int64_t j = 0; j < w.alpha; ++j) {
        double gj = 0.0, dj = 0.0;
        for (int64_t k = 0; k < 3; ++k) gj += w.g[j][k] * g[k];
        for (int64_t l = 0; l < w.alpha; ++l) dj += w.bt[j][l] * d[l];
        fast += w.at[i][j] * gj * dj;
      }
      EXPECT_NEAR(fast, direct, 1e-12) << "F(" << m << ", 3) output " << i;
    }
  }
}

TEST(WinogradTile, TradesProductsAgainstWeightsAndRounding) {
  ops::Conv2dNchwcParams p;
  auto tile = [&](int64_t k, int64_t c, int64_t r, int64_t hw) {
    return ops::default_winograd_tile(p, {k, c, r, r}, hw, hw, true);
  };
  EXPECT_EQ(tile(64, 64, 3, 56), 4);     // many tiles
  EXPECT_EQ(tile(128, 128, 3, 28), 4);
  EXPECT_EQ(tile(256, 256, 3, 28), 2);   // F(4, 3) would round too much over 256 channels
  EXPECT_EQ(tile(128, 128, 3, 7), 2);    // few tiles: the weights cost more than the products
  EXPECT_EQ(tile(16, 16, 3, 56), 0);     // too few channels
  EXPECT_EQ(tile(64, 64, 1, 56), 0);     // not 3x3
  EXPECT_EQ(ops::default_winograd_tile(p, {64, 64, 3, 3}, 56, 56, false), 0);  // NCHW data
  p.stride = 2;
  EXPECT_EQ(tile(64, 64, 3, 28), 0);
}

/// Counts the stores of a function whose value reads buffer `data` and selects nothing.
class DataReads : public ir::IRVisitor {
 public:
  void visit_Store(const ir::StoreNode* op) override {
    reads_ = selects_ = false;
    visit(op->value);
    plain += reads_ && !selects_;
  }
  void visit_Load(const ir::LoadNode* op) override {
    reads_ = reads_ || op->buffer->name == "data";
    IRVisitor::visit_Load(op);
  }
  void visit_Select(const ir::SelectNode* op) override {
    selects_ = true;
    IRVisitor::visit_Select(op);
  }
  int plain = 0;

 private:
  bool reads_ = false, selects_ = false;
};

// A depthwise layer reads its padded input in place: the border positions select zero from
// a clamped load, and loop_partition gives the interior tiles plain loads of their own
// (without it, every load of the data sits under the selects of its row).
TEST(Conv2dNchwcInPlace, InteriorTilesLoadWithoutSelects) {
  te::Tensor x = te::placeholder({1, 1, 12, 12, 16}, ir::DataType::Float(32), "data");
  te::Tensor w = te::placeholder({16, 1, 5, 5}, ir::DataType::Float(32), "weight");
  te::Tensor y = ops::conv2d_nchwc(x, w, {1, 2, 16, true, 1, 1}, "conv");
  for (const char* target : {"x86-64-avx2", "x86-64-avx512"}) {
    schedule::Schedule s({y});
    schedules::Conv2dNchwcConfig config;
    config.pad_in_place = true;
    schedules::schedule_conv2d_nchwc_cpu(s, y, target::parse_target(target), {}, config);
    DataReads reads;
    reads.visit(driver::lower_and_optimize(s, {x, w, y}, "dw").body);
    EXPECT_GT(reads.plain, 0) << target;
  }
}

TEST(ConvTile, BlocksPerRegisterTileFeedTheMostFmasPerLoad) {
  const target::Target avx512 = target::parse_target("x86-64-avx512");
  const target::Target avx2 = target::parse_target("x86-64-avx2");
  // AVX-512's 16-channel block is one vector: 4 blocks x 6 columns (24 of its accumulators).
  EXPECT_EQ(schedules::default_conv_tile_kb(8, false, 1, 28, avx512), 4);
  EXPECT_EQ(schedules::default_conv_tile_kb(6, false, 1, 7, avx512), 2);  // 4 does not divide 6
  // AVX2's is two: 4 blocks would leave one column; 1 block x 6 columns loads 8 operands
  // per 12 FMAs.
  EXPECT_EQ(schedules::default_conv_tile_kb(8, false, 2, 28, avx2), 1);
  // Two columns in all: 2 blocks x 2 columns.
  EXPECT_EQ(schedules::default_conv_tile_kb(8, false, 2, 2, avx2), 2);
  // Blocks that share no input (grouped, depthwise) take one block per tile.
  EXPECT_EQ(schedules::default_conv_tile_kb(8, true, 1, 28, avx512), 1);
}

TEST(ConvTile, SpatialTileFillsTheAccumulatorsAndPadsTheOutputLeast) {
  const target::Target avx512 = target::parse_target("x86-64-avx512");
  const target::Target avx2 = target::parse_target("x86-64-avx2");
  auto tile = [](int64_t oh, int64_t ow, int64_t vectors, const target::Target& t) {
    schedules::ConvSpatialTile s = schedules::default_conv_spatial_tile(oh, ow, vectors, t);
    return std::to_string(s.rows) + "x" + std::to_string(s.columns);
  };
  // AVX2: 12 of 16 registers accumulate, 6 positions of a 16-channel block (two vectors).
  EXPECT_EQ(tile(28, 28, 2, avx2), "1x6");  // 30 columns
  EXPECT_EQ(tile(14, 14, 2, avx2), "2x3");  // 15 columns, not 18
  EXPECT_EQ(tile(7, 7, 2, avx2), "2x3");
  EXPECT_EQ(tile(1, 4, 2, avx2), "1x4");  // one row, 4 columns
  // AVX-512: 24 of 32, beside 4 blocks of one vector: 6 positions; beside 2, at most 8.
  EXPECT_EQ(tile(28, 28, 4, avx512), "1x6");
  EXPECT_EQ(tile(112, 112, 2, avx512), "1x8");
}

TEST(ConvTile, PaddedInputIsReadInPlaceBelow256MultiplyAddsPerElement) {
  EXPECT_TRUE(schedules::default_conv_pad_in_place(25));              // a 5x5 depthwise window
  EXPECT_TRUE(schedules::default_conv_pad_in_place(32 * 9 / 4.0));    // 3x3 stem to 32, stride 2
  EXPECT_FALSE(schedules::default_conv_pad_in_place(64 * 9));         // 3x3, 64 channels to 64
  EXPECT_FALSE(schedules::default_conv_pad_in_place(64 * 49 / 4.0));  // 7x7 stem to 64
}

struct WinogradCase {
  int64_t c, hw, k, pad, in_block, block, tile;
  int64_t n = 1;  ///< images in the batch
};

/// Each of `n` images of `c` channels x `hw` pixels in blocks of `x` (to_blocks).
Floats batch_to_blocks(const Floats& nchw, int64_t n, int64_t c, int64_t hw, int64_t x) {
  Floats out;
  for (int64_t b = 0; b < n; ++b) {
    Floats image(nchw.begin() + b * c * hw, nchw.begin() + (b + 1) * c * hw);
    Floats blocks = to_blocks(image, c, hw, x, 0.0f);
    out.insert(out.end(), blocks.begin(), blocks.end());
  }
  return out;
}

class Conv2dWinogradE2E : public ::testing::TestWithParam<WinogradCase> {};

TEST_P(Conv2dWinogradE2E, MatchesNaiveLoops) {
  WinogradCase p = GetParam();
  int64_t out = p.hw + 2 * p.pad - 2, blocks_in = (p.c + p.in_block - 1) / p.in_block;
  te::Tensor x = te::placeholder({p.n, blocks_in, p.hw, p.hw, p.in_block},
                                 ir::DataType::Float(32), "data");
  te::Tensor w = te::placeholder({p.k, p.c, 3, 3}, ir::DataType::Float(32), "weight");
  ops::Conv2dNchwcParams params;
  params.pad = p.pad;
  params.block = p.block;
  te::Tensor y = ops::conv2d_winograd_nchwc(x, w, params, p.tile, "conv");
  Floats data = ops::reference::random_values(p.n * p.c * p.hw * p.hw, 51);
  Floats weight = ops::reference::random_values(p.k * p.c * 9, 52);
  Floats expected = ops::reference::conv2d_nchw(data, weight, p.n, p.c, p.hw, p.hw, p.k, 3, 3, 1,
                                                p.pad);
  Floats expected_blocks = batch_to_blocks(expected, p.n, p.k, out * out, p.block);
  // The default register tiles, and a narrow one with the channels unrolled, prefetching
  // the next point's transformed weights.
  schedules::Conv2dWinogradConfig narrow;
  narrow.tile_p = 3;
  narrow.tile_kb = 1;
  narrow.unroll_ci = 2;
  narrow.prefetch = true;
  for (const schedules::Conv2dWinogradConfig& config :
       {schedules::Conv2dWinogradConfig{}, narrow}) {
    schedule::Schedule s({y});
    schedules::schedule_conv2d_winograd_cpu(s, y, target::host(), {}, config);
    driver::Kernel kernel = driver::build(s, {x, w, y}, "conv2d_winograd");
    std::vector<Floats> bufs = {
        batch_to_blocks(data, p.n, p.c, p.hw * p.hw, p.in_block), weight,
        Floats(p.n * ((p.k + p.block - 1) / p.block) * out * out * p.block, -7.0f)};
    kernel.run(pointers(bufs));
    // The transforms round differently from the direct sum: a looser tolerance for F(4, 3).
    EXPECT_LE(ops::reference::max_scaled_error(bufs[2], expected_blocks, 1e-4, 1e-4), 1.0)
        << "tile_p " << config.tile_p;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Conv2dWinogradE2E,
    ::testing::Values(WinogradCase{16, 8, 16, 1, 16, 16, 4},   // tiles fit the output
                      WinogradCase{16, 7, 32, 1, 16, 16, 4},   // a partial last tile
                      WinogradCase{20, 9, 20, 1, 8, 16, 2},    // partial blocks, F(2, 3)
                      WinogradCase{8, 10, 8, 0, 8, 8, 6},      // unpadded, F(6, 3)
                      WinogradCase{32, 5, 16, 2, 16, 16, 3},   // pad 2, odd tile
                      WinogradCase{16, 6, 16, 1, 16, 16, 4, 2}),  // two images
    [](const auto& info) {
      const WinogradCase& p = info.param;
      return "c" + std::to_string(p.c) + "_hw" + std::to_string(p.hw) + "_k" +
             std::to_string(p.k) + "_p" + std::to_string(p.pad) + "_in" +
             std::to_string(p.in_block) + "_x" + std::to_string(p.block) + "_m" +
             std::to_string(p.tile) + "_n" + std::to_string(p.n);
    });

class SoftmaxE2E : public ::testing::TestWithParam<std::pair<int64_t, int64_t>> {};

TEST_P(SoftmaxE2E, RowParallelScheduleMatchesNaiveLoops) {
  auto [rows, cols] = GetParam();
  te::Tensor x = te::placeholder({rows, cols}, ir::DataType::Float(32), "X");
  te::Tensor y = ops::softmax(x, "softmax");
  for (int lanes : {4, 8}) {
    schedule::Schedule s({y});
    schedules::schedule_softmax_cpu(s, y, lanes);
    driver::Kernel kernel = driver::build(s, {x, y}, "softmax");
    std::vector<Floats> bufs = {ops::reference::random_values(rows * cols, 31),
                                Floats(rows * cols, -7.0f)};
    for (float& v : bufs[0]) v *= 20.0f;  // exercise exp over a wide range
    kernel.run(pointers(bufs));
    Floats expected = ops::reference::softmax(bufs[0], rows, cols);
    EXPECT_LE(ops::reference::max_scaled_error(bufs[1], expected, 1e-5, 1e-7), 1.0)
        << rows << "x" << cols << " lanes " << lanes;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, SoftmaxE2E,
                         ::testing::Values(std::pair<int64_t, int64_t>{1, 1},
                                           std::pair<int64_t, int64_t>{3, 13},
                                           std::pair<int64_t, int64_t>{16, 128},
                                           std::pair<int64_t, int64_t>{5, 1000}),
                         [](const auto& info) {
                           return std::to_string(info.param.first) + "x" +
                                  std::to_string(info.param.second);
                         });

TEST(KernelRun, RejectsMisalignedAndMiscountedArguments) {
  te::Tensor a = te::placeholder({8}, ir::DataType::Float(32), "a");
  te::Tensor b = te::compute({8}, [&](te::Var i) { return a(i) * 2.0f; }, "b", {"i"});
  schedule::Schedule s({b});
  driver::Kernel kernel = driver::build(s, {a, b}, "twice");
  Floats x(16, 1.0f), y(16);
  EXPECT_THROW(kernel.run({x.data()}), std::invalid_argument);
  try {
    kernel.run({x.data() + 1, y.data()});
    FAIL() << "a misaligned argument was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("argument 0 ('a')"), std::string::npos) << e.what();
  }
  kernel.run({x.data(), y.data()});
  for (int i = 0; i < 8; ++i) EXPECT_EQ(y[i], 2.0f);
}

}  // namespace
}  // namespace tessel

namespace tessel {
namespace {

TEST(ExportLibrary, ScheduledMatmulRunsFromASharedLibrary) {
  const int64_t m = 20, n = 32, k = 9;
  te::Tensor a = te::placeholder({m, k}, ir::DataType::Float(32), "A");
  te::Tensor b = te::placeholder({k, n}, ir::DataType::Float(32), "B");
  te::Tensor c = ops::matmul(a, b, schedules::matmul_panel(target::host()), "C");
  schedule::Schedule s({c});
  schedules::schedule_matmul_cpu(s, c, schedules::MatmulConfig{});
  std::string path = ::testing::TempDir() + "tessel_export_matmul.so";
  driver::export_library(s, {a, b, c}, "exported_matmul", path);

  runtime::Module module = runtime::Module::load(path);
  tessel_kernel kernel = module.get_function("exported_matmul");
  std::vector<Floats> bufs = {ops::reference::random_values(m * k, 41),
                              ops::reference::random_values(k * n, 42), Floats(m * n, -7.0f)};
  std::vector<void*> args = pointers(bufs);
  ASSERT_EQ(kernel(args.data()), TESSEL_OK);
  Floats expected = ops::reference::matmul(bufs[0], bufs[1], m, n, k);
  EXPECT_LE(ops::reference::max_scaled_error(bufs[2], expected, 1e-5, 1e-5), 1.0);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tessel
