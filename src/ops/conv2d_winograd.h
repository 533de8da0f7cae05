// 3x3 convolutions of stride 1 in the blocked layout NCHW[x]c by Winograd's minimal
// filtering F(m x m, 3 x 3): each m x m tile of the output is A^T [(G g G^T) . (B^T d B)] A
// with d the (m + 2) x (m + 2) input window of the tile, so the multiply-adds over the
// input channels (the bulk of the work) fall from 9 m^2 per tile to (m + 2)^2: 2.25x fewer
// for m = 2, 4x for m = 4. The transform matrices come from the Toom-Cook construction on
// the points 0, 1, -1, 1/2, -2, 2, -1/2 (the first m + 1 of them) and infinity. The CPU
// schedule is in schedules/cpu/conv2d_winograd.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/conv2d_nchwc.h"

namespace tessel::ops {

/// The matrices of F(m, r) (alpha = m + r - 1 points): at [m][alpha], g [alpha][r] and
/// bt [alpha][alpha], so that for an input run d of alpha values and a filter g of r,
///   sum_k d[i + k] g[k] = sum_j at[i][j] (sum_k g[j][k] g_k) (sum_l bt[j][l] d[l]).
/// m + r - 1 may be at most 8.
struct WinogradMatrices {
  int64_t m = 0, r = 0, alpha = 0;
  std::vector<std::vector<double>> at, g, bt;
};
WinogradMatrices winograd_matrices(int64_t m, int64_t r);

/// The output tile m of a Winograd convolution by `weight` [K, C, R, S] into out_h x out_w
/// pixels, or 0 where the direct one fits better: 3x3, stride 1, no dilation, one group,
/// blocked input, at least 32 input and output channels (with fewer, the transforms cost
/// more than the multiplies they save). m = 4 where the tiles are many and the inputs at
/// most 128 channels (F(4, 3) rounds more the more channels it sums); m = 2 elsewhere, and
/// where the transformed weights ((m + 2)^2 per filter, read once per run) would cost more
/// to stream than the products they save (ResNet's 7x7 layers).
int64_t default_winograd_tile(const Conv2dNchwcParams& p, const std::vector<int64_t>& weight,
                              int64_t out_h, int64_t out_w, bool blocked_input);

/// The convolution of conv2d_nchwc (data blocked [N, C/xi, H, W, xi], weight [K, C, 3, 3],
/// stride 1, dilation 1, one group) by F(tile x tile, 3 x 3), as stages
///  "<name>.wino_weight" U[e][n][K/x][C/xi][xi][x] = G w G^T (folded for constant weights),
///  "<name>.wino_pad"    the data with the pad before and zeros up to the last tile's window,
///  "<name>.wino_input"  V[e][n][C/xi][P][xi] = B^T d B of each of the P tiles,
///  "<name>.wino_gemm"   M[e][n][K/x][P][x] = sum over channels of V * U,
///  `name`               [N, K/x, OH, OW, x] = A^T M A,
/// the transforms computed in float64 where they take the weights, float32 elsewhere.
te::Tensor conv2d_winograd_nchwc(const te::Tensor& data, const te::Tensor& weight,
                                 const Conv2dNchwcParams& p, int64_t tile,
                                 const std::string& name = "conv");

}  // namespace tessel::ops
