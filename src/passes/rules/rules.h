// The rewrite rules tessel applies by default, grouped by theme (one file per group), and
// the helpers the groups share.
#pragma once

#include <cstdint>
#include <vector>

#include "passes/rewrite.h"

namespace tessel::passes {

/// Dropout in training, Bernoulli and Multinomial given their draws as constants.
std::vector<RewriteRule> random_rules();
/// RNN, GRU and LSTM unrolled over their sequence into products and element-wise nodes.
std::vector<RewriteRule> recurrent_rules();
/// BatchNormalization (inference) after Conv or Gemm folded into their weights and bias;
/// elsewhere a per-channel Mul and Add.
std::vector<RewriteRule> batch_norm_rules();
/// Identity removed; Dropout in inference removed; a Pad of zero pads removed.
std::vector<RewriteRule> passthrough_rules();
/// Transpose chains merged, identity transposes removed; chains of Reshape, Flatten, Squeeze,
/// Unsqueeze made one Reshape, no-op reshapes removed.
std::vector<RewriteRule> layout_rules();
/// MatMul + bias into Gemm or tessel.MatMulAdd; a per-channel Mul or Add by a constant after
/// Conv, Gemm or MatMul folded into its weights and bias.
std::vector<RewriteRule> linear_rules();
/// The Erf form of GELU recognised as Gelu.
std::vector<RewriteRule> gelu_rules();
/// The ReduceMean form of layer normalisation recognised as LayerNormalization; a Mul or Add
/// by a constant after it folded into its scale and bias.
std::vector<RewriteRule> layer_norm_rules();

/// Every rule above, in that order.
std::vector<RewriteRule> default_rules();

// ---- Helpers shared by the rules ----------------------------------------------------------

/// Whether `v` has a floating-point element type (float16, float32, float64).
bool is_float(const graph::Value* v);

/// Whether |a - b| <= rtol * |b|.
bool near(double a, double b, double rtol = 1e-5);

/// Whether a value of type `c` broadcasts onto `out` along axis `axis` of `out` only: its
/// rank is at most out's and its dimensions, aligned on the right, are 1 except at `axis`,
/// where it may be out's extent.
bool varies_along(const graph::TensorType& c, const graph::TensorType& out, int axis);

/// `c` (one element, or one per channel) as a vector of `channels` elements: Expand of
/// Reshape(c, [-1]).
graph::Value* channel_vector(Rewriter& rw, const graph::Value* c, int64_t channels);

/// Whether `node` is a Conv, Gemm or MatMul whose output channels (Conv: axis 1; Gemm and
/// MatMul: the last axis) can take a per-channel scale and shift in their weights and bias:
/// float, weights and bias static, MatMul's weights a matrix.
bool takes_channel_affine(const MatchContext& ctx, const graph::Node& node);
/// The axis of `node`'s output that holds its channels (for takes_channel_affine nodes).
int channel_axis(const graph::Node& node);

/// Emits `node` (a takes_channel_affine node) with its output y replaced by y * scale +
/// shift, the channel vectors folded into its weights and bias; `scale` and `shift` are
/// vectors of one element per output channel, each may be nullptr. The new node defines the
/// anchor's output. A MatMul takes no shift.
void emit_channel_affine(Rewriter& rw, const graph::Node& node, graph::Value* scale,
                         graph::Value* shift);

}  // namespace tessel::passes
