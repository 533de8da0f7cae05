// convert_conv_layout: a walk over the nodes in order that keeps, per source value, its
// blocked form in the new graph (see convert_conv_layout.h).
#include "passes/convert_conv_layout.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "executor/node_kernel.h"
#include "ops/conv2d_nchwc.h"
#include "ops/conv2d_winograd.h"
#include "passes/graph_builder.h"
#include "runtime/ndarray_element.h"
#include "support/error.h"

namespace tessel::passes {
namespace {

/// Channels per block of a tensor of `channels` channels and `pixels` pixels per channel:
/// 16 where the padding to a multiple of 16 adds at most 1/16 of the channels (1000 ->
/// 1008), or on AVX-512 at most 1/3 (116 -> 128, 40 -> 48, 24 -> 32: a block of 8 fills
/// half of each vector, which costs more than the padded channels); else 8 where the
/// padding to a multiple of 8 adds at most 1/8 (24, 116 -> 120 on AVX2); a tensor of one
/// pixel (a squeeze-and-excitation vector, whose padding costs nothing to speak of) takes 8
/// or 16 whatever its channels; else 0: the tensor stays NCHW.
int64_t block_for(int64_t channels, int64_t pixels, const target::Target& target) {
  int64_t padding16 = (16 - channels % 16) % 16, padding8 = (8 - channels % 8) % 8;
  if (padding16 * (target.float_lanes() >= 16 ? 3 : 16) <= channels) return 16;
  if (padding8 * 8 <= channels) return 8;
  if (pixels == 1) return channels <= 8 ? 8 : 16;
  return 0;
}

/// block_for a 4-d NCHW shape.
int64_t block_for(const std::vector<int64_t>& nchw, const target::Target& target) {
  return block_for(nchw[1], nchw[2] * nchw[3], target);
}

bool is_onnx(const graph::Node& node) {
  return node.domain.empty() || node.domain == "ai.onnx";
}

bool is_static_float(const graph::Value* v, int rank) {
  return v && v->type.dtype == ir::DataType::Float(32) && v->type.rank() == rank &&
         v->type.has_static_shape();
}

/// `name` of `node`: all its values equal to `expected` (true when absent).
bool ints_all(const graph::Node& node, const char* name, int64_t expected, size_t count) {
  const graph::Attribute* a = node.attribute(name);
  if (!a) return true;
  if (a->ints.size() != count) return false;
  for (int64_t v : a->ints)
    if (v != expected) return false;
  return true;
}

struct BlockedConv {
  int64_t stride = 1, pad = 0, dilation = 1, block = 0;
  bool depthwise = false;
  int64_t groups = 1;  ///< of a grouped convolution that is not depthwise
};

/// How `node` runs blocked, when it is a Conv that can.
std::optional<BlockedConv> blocked_conv(const graph::Node& node, const target::Target& target) {
  if (node.op_type != "Conv" || !is_onnx(node) || node.inputs.size() < 2 ||
      !is_static_float(node.inputs[0], 4) || !is_static_float(node.inputs[1], 4) ||
      !is_static_float(node.outputs[0], 4))
    return std::nullopt;
  if (node.inputs.size() > 2 && node.inputs[2] && !is_static_float(node.inputs[2], 1))
    return std::nullopt;
  const graph::Attribute* auto_pad = node.attribute("auto_pad");
  if (auto_pad && auto_pad->s != "NOTSET") return std::nullopt;
  std::vector<int64_t> x = node.inputs[0]->type.shape(), w = node.inputs[1]->type.shape(),
                       y = node.outputs[0]->type.shape();
  BlockedConv conv;
  if (const graph::Attribute* strides = node.attribute("strides"))
    conv.stride = strides->ints.empty() ? 1 : strides->ints[0];
  if (const graph::Attribute* pads = node.attribute("pads"))
    conv.pad = pads->ints.empty() ? 0 : pads->ints[0];
  if (const graph::Attribute* dilations = node.attribute("dilations"))
    conv.dilation = dilations->ints.empty() ? 1 : dilations->ints[0];
  if (!ints_all(node, "strides", conv.stride, 2) || !ints_all(node, "pads", conv.pad, 4) ||
      !ints_all(node, "dilations", conv.dilation, 2) || conv.dilation < 1)
    return std::nullopt;
  for (int d = 0; d < 2; ++d)
    if (y[2 + d] !=
        (x[2 + d] + 2 * conv.pad - (w[2 + d] - 1) * conv.dilation - 1) / conv.stride + 1)
      return std::nullopt;
  const graph::Attribute* group = node.attribute("group");
  int64_t groups = group ? group->i : 1;
  conv.depthwise = groups != 1 && groups == x[1] && groups == w[0] && w[1] == 1;
  if (groups != 1 && !conv.depthwise) conv.groups = groups;
  conv.block = block_for(y, target);
  if (conv.block == 0) return std::nullopt;
  return conv;
}

/// Whether element-wise `node` keeps the padding channels of blocked tensors finite, its
/// operands aside (the readers of a blocked tensor multiply its padding channels by zero
/// weights, pool them per channel or drop them: any finite value will do). Bounded
/// functions and arithmetic qualify; Div only by a constant other than zero (see
/// operand_form).
bool keeps_padding_finite(const graph::Node& node) {
  static const std::set<std::string> unary = {
      "Relu", "LeakyRelu", "Tanh", "HardSwish", "Sigmoid", "HardSigmoid", "Erf", "Neg", "Abs"};
  static const std::set<std::string> binary = {"Add", "Sub", "Mul", "Div"};
  if (unary.count(node.op_type)) return node.inputs.size() == 1;
  return node.op_type == "Clip" || (binary.count(node.op_type) && node.inputs.size() == 2);
}

/// Whether `v` broadcasts to the 4-d NCHW shape `y` per channel: its channels are y's and
/// each other extent is 1 or y's.
bool per_channel_of(const graph::Value& v, const graph::TensorType& y) {
  if (v.type.rank() != 4 || !v.type.has_static_shape()) return false;
  std::vector<int64_t> s = v.type.shape(), t = y.shape();
  if (s[1] != t[1]) return false;
  for (int d : {0, 2, 3})
    if (s[d] != 1 && s[d] != t[d]) return false;
  return true;
}

/// Whether the layout change of source value `v` (4-d, NCHW) into the blocked layout would
/// join the kernel that computes it: an element-wise or injective operator's output (a
/// Transpose back from channels-last, the scaling after it), whose kernel then writes the
/// blocks instead of the NCHW tensor.
bool blocks_in_its_kernel(const graph::Value& v) {
  if (!v.producer || v.constant || !is_onnx(*v.producer) || v.producer->outputs.size() != 1)
    return false;
  try {
    ops::PatternKind kind = executor::find_op(*v.producer).pattern;
    return kind == ops::PatternKind::Elementwise || kind == ops::PatternKind::Broadcast ||
           kind == ops::PatternKind::Injective;
  } catch (const CompileError&) {
    return false;
  }
}

/// Whether `v` is a constant of one finite element, other than zero when `nonzero`.
bool finite_scalar(const graph::Value& v, bool nonzero) {
  if (!v.is_constant() || v.type.num_elements() != 1) return false;
  double x = runtime::element_as_double(*v.constant, 0);
  return std::isfinite(x) && (!nonzero || x != 0);
}

class LayoutConverter {
 public:
  LayoutConverter(const graph::Graph& graph, const target::Target& target,
                  const ConvLayoutOptions& options)
      : builder_(graph), target_(target), options_(options) {}

  graph::Graph run() {
    for (const auto& node : builder_.source().nodes())
      for (const graph::Value* in : node->inputs) users_[in].push_back(node.get());
    for (const graph::Value* out : builder_.source().outputs()) users_[out].push_back(nullptr);
    for (const auto& node : builder_.source().nodes()) {
      if (absorbed_.count(node.get())) continue;
      std::optional<BlockedConv> conv = blocked_conv(*node, target_);
      if (conv && convert_conv(*node, *conv)) continue;
      if (!convert_elementwise(*node) && !convert_pool(*node) && !convert_global_pool(*node) &&
          !convert_concat(*node) && !convert_channel_shuffle(*node) &&
          !convert_channel_slice(*node)) {
        to_nchw(node->inputs);
        builder_.copy_node(*node);
      }
    }
    to_nchw(builder_.source().outputs());
    return builder_.finish();
  }

 private:
  static graph::Node tessel_node(const std::string& op, const std::string& name,
                                 std::vector<graph::Value*> inputs,
                                 std::map<std::string, graph::Attribute> attributes) {
    graph::Node node;
    node.name = name;
    node.op_type = op;
    node.domain = executor::kTesselDomain;
    node.opset = 1;
    node.attributes = std::move(attributes);
    node.inputs = std::move(inputs);
    return node;
  }

  /// Appends `node` with one new output of `type` named after `hint`; returns the output.
  graph::Value* add(graph::Node node, const graph::TensorType& type, const std::string& hint) {
    node.outputs = {builder_.add_value(hint, type)};
    return builder_.add_node(std::move(node))->outputs[0];
  }

  /// Runs `node` (one output, of the source graph) on blocked `inputs` with `attributes`:
  /// its output is blocked.
  void add_blocked(const graph::Node& node, std::vector<graph::Value*> inputs,
                   std::map<std::string, graph::Attribute> attributes, int64_t block) {
    graph::Node copy = node;
    copy.inputs = std::move(inputs);
    copy.attributes = std::move(attributes);
    const graph::Value* y = node.outputs[0];
    blocked_[y] = add(std::move(copy), blocked_type(y->type, block), y->name + "_nchwc");
  }

  static graph::TensorType blocked_type(const graph::TensorType& nchw, int64_t block) {
    std::vector<int64_t> s = nchw.shape();
    return graph::TensorType::of(nchw.dtype, {s[0], (s[1] + block - 1) / block, s[2], s[3], block});
  }

  /// The blocked form of source value `v` (NCHW, channels that take a block), made once.
  graph::Value* blocked(const graph::Value* v) {
    auto it = blocked_.find(v);
    if (it != blocked_.end()) return it->second;
    int64_t block = block_for(v->type.shape(), target_);
    graph::Node to = tessel_node("LayoutToNCHWc", v->name + ".to_nchwc", {builder_.value(v)},
                                 {{"block", graph::Attribute::of_int(block)}});
    return blocked_[v] = add(std::move(to), blocked_type(v->type, block), v->name + "_nchwc");
  }

  /// Gives each of `vs` that exists only blocked its NCHW form.
  void to_nchw(const std::vector<graph::Value*>& vs) {
    for (const graph::Value* v : vs) {
      auto it = blocked_.find(v);
      if (!v || it == blocked_.end() || builder_.has_value(v)) continue;
      graph::Node node = tessel_node("LayoutFromNCHWc", v->name + ".from_nchwc", {it->second},
                                     {{"channels", graph::Attribute::of_int(v->type.shape()[1])}});
      node.outputs = {builder_.define(v)};
      builder_.add_node(std::move(node));
    }
  }

  /// Runs Conv `node` blocked as `conv` says, unless it is grouped in a way the blocks of
  /// its input and output cannot take (then false: it stays NCHW).
  bool convert_conv(const graph::Node& node, const BlockedConv& conv) {
    const graph::Value* x = node.inputs[0];
    int64_t in_block =
        blocked_.count(x) ? blocked_.at(x)->type.shape()[4] : block_for(x->type.shape(), target_);
    bool blocked_input = in_block != 0;
    // A depthwise convolution reads its input in the blocks it writes (an output of one
    // pixel may take a block its input does not).
    if (conv.depthwise && in_block != conv.block) return false;
    if (conv.groups > 1) {
      const std::vector<int64_t>& w = node.inputs[1]->type.shape();
      if (w[0] % conv.groups != 0 ||
          !ops::grouped_conv_fits(conv.groups, w[1], w[0] / conv.groups,
                                  blocked_input ? in_block : 1, conv.block))
        return false;
    }
    graph::Value* data = blocked_input ? blocked(x) : builder_.value(x);
    std::vector<graph::Value*> inputs = {data, builder_.value(node.inputs[1])};
    if (node.inputs.size() > 2 && node.inputs[2]) inputs.push_back(builder_.value(node.inputs[2]));
    graph::Node conv_node = tessel_node("Conv2dNCHWc", node.name, {}, {});
    conv_node.outputs = node.outputs;
    std::map<std::string, graph::Attribute> attributes = {
        {"stride", graph::Attribute::of_int(conv.stride)},
        {"pad", graph::Attribute::of_int(conv.pad)},
        {"block", graph::Attribute::of_int(conv.block)},
        {"depthwise", graph::Attribute::of_int(conv.depthwise ? 1 : 0)}};
    if (conv.groups > 1) attributes["groups"] = graph::Attribute::of_int(conv.groups);
    if (conv.dilation > 1) attributes["dilation"] = graph::Attribute::of_int(conv.dilation);
    if (options_.winograd) {
      const std::vector<int64_t>& y = node.outputs[0]->type.shape();
      ops::Conv2dNchwcParams params;
      params.stride = conv.stride;
      params.dilation = conv.dilation;
      params.groups = conv.groups;
      params.depthwise = conv.depthwise;
      int64_t tile = ops::default_winograd_tile(params, node.inputs[1]->type.shape(), y[2], y[3],
                                                blocked_input);
      if (tile > 0) attributes["winograd"] = graph::Attribute::of_int(tile);
    }
    add_blocked(conv_node, inputs, std::move(attributes), conv.block);
    return true;
  }

  /// Runs element-wise `node` on blocked tensors when one data input is blocked at the
  /// output's shape and each other is blocked or per-channel (broadcast over the pixels:
  /// a bias, a squeeze-and-excitation scale; blocked here when it is not yet) or a finite
  /// scalar constant (a divisor: one other than zero).
  bool convert_elementwise(const graph::Node& node) {
    if (!is_onnx(node) || !keeps_padding_finite(node) || node.outputs.size() != 1) return false;
    const graph::Value* y = node.outputs[0];
    if (y->type.rank() != 4 || !y->type.has_static_shape()) return false;
    size_t data_inputs = node.op_type == "Clip" ? 1 : node.inputs.size();
    std::vector<graph::Value*> inputs;
    int64_t block = 0;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const graph::Value* in = node.inputs[i];
      auto it = in ? blocked_.find(in) : blocked_.end();
      if (i < data_inputs && it != blocked_.end() && in->type.dims == y->type.dims)
        block = it->second->type.shape()[4];
    }
    if (block == 0) return false;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const graph::Value* in = node.inputs[i];
      bool divisor = node.op_type == "Div" && i == 1;
      if (i >= data_inputs || (in && finite_scalar(*in, divisor))) {
        inputs.push_back(in ? builder_.value(in) : nullptr);
        continue;
      }
      if (!in || divisor || !per_channel_of(*in, y->type)) return false;
      auto it = blocked_.find(in);
      bool small = in->type.shape()[2] * in->type.shape()[3] == 1;
      // A whole NCHW tensor is blocked where its layout change fuses into the kernel that
      // computes it; else y goes NCHW.
      if (it == blocked_.end() && !small && !blocks_in_its_kernel(*in)) return false;
      graph::Value* form = it != blocked_.end() ? it->second : blocked(in);
      if (form->type.shape()[4] != block) return false;
      inputs.push_back(form);
    }
    add_blocked(node, inputs, node.attributes, block);
    return true;
  }

  /// Runs a global pool of a blocked tensor, or a ReduceMean / ReduceMax over its image
  /// (axes 2 and 3), as the pool of the blocked tensor whose window spans the image and one
  /// channel of a block. A reduction that drops the image axes gives its [N, C] output from
  /// the pooled blocks: the layout change then moves one value per channel.
  bool convert_global_pool(const graph::Node& node) {
    static const std::map<std::string, std::string> as_pool = {{"GlobalAveragePool", "AveragePool"},
                                                               {"GlobalMaxPool", "MaxPool"},
                                                               {"ReduceMean", "AveragePool"},
                                                               {"ReduceMax", "MaxPool"}};
    auto pool = as_pool.find(node.op_type);
    if (!is_onnx(node) || pool == as_pool.end() || node.inputs.size() != 1 ||
        node.outputs.size() != 1)
      return false;
    auto it = blocked_.find(node.inputs[0]);
    if (it == blocked_.end()) return false;
    bool keep_dims = true;
    if (node.op_type.rfind("Reduce", 0) == 0) {
      const graph::Attribute* axes = node.attribute("axes");
      if (!axes || axes->ints.size() != 2) return false;
      std::set<int64_t> image;
      for (int64_t a : axes->ints) image.insert(a < 0 ? a + 4 : a);
      if (image != std::set<int64_t>{2, 3}) return false;
      const graph::Attribute* keep = node.attribute("keepdims");
      keep_dims = !keep || keep->i != 0;
    }
    std::vector<int64_t> shape = it->second->type.shape();
    graph::Node windowed = node;
    windowed.op_type = pool->second;
    std::map<std::string, graph::Attribute> window = {
        {"kernel_shape", graph::Attribute::of_ints({shape[2], shape[3], 1})}};
    const graph::Value* y = node.outputs[0];
    if (keep_dims) {
      add_blocked(windowed, {it->second}, std::move(window), shape[4]);
      return true;
    }
    std::vector<int64_t> nc = y->type.shape();
    graph::TensorType per_channel = graph::TensorType::of(y->type.dtype, {nc[0], nc[1], 1, 1});
    windowed.inputs = {it->second};
    windowed.attributes = std::move(window);
    graph::Value* pooled =
        add(std::move(windowed), blocked_type(per_channel, shape[4]), y->name + "_nchwc");
    graph::Value* unblocked = add(tessel_node("LayoutFromNCHWc", y->name + ".from_nchwc", {pooled},
                                              {{"channels", graph::Attribute::of_int(nc[1])}}),
                                  per_channel, y->name + "_nchw");
    graph::Node flatten;
    flatten.name = y->name + ".flatten";
    flatten.op_type = "Flatten";
    flatten.opset = 13;
    flatten.inputs = {unblocked};
    flatten.outputs = {builder_.define(y)};
    builder_.add_node(std::move(flatten));
    return true;
  }

  /// Runs a 2-d MaxPool or AveragePool of a blocked tensor as the 3-d pool of the blocked
  /// tensor whose window spans one channel of a block (a pool of zeros is zero).
  bool convert_pool(const graph::Node& node) {
    if (!is_onnx(node) || (node.op_type != "MaxPool" && node.op_type != "AveragePool") ||
        node.inputs.size() != 1 || node.outputs.size() != 1)
      return false;
    auto it = blocked_.find(node.inputs[0]);
    const graph::Attribute* kernel = node.attribute("kernel_shape");
    const graph::Attribute* auto_pad = node.attribute("auto_pad");
    if (it == blocked_.end() || !kernel || kernel->ints.size() != 2 ||
        (auto_pad && auto_pad->s != "NOTSET"))
      return false;
    std::map<std::string, graph::Attribute> attributes = node.attributes;
    for (const char* name : {"kernel_shape", "strides", "dilations"})
      if (auto a = attributes.find(name); a != attributes.end()) a->second.ints.push_back(1);
    if (auto pads = attributes.find("pads"); pads != attributes.end()) {
      std::vector<int64_t>& p = pads->second.ints;
      if (p.size() != 4) return false;
      p = {p[0], p[1], 0, p[2], p[3], 0};
    }
    add_blocked(node, {it->second}, std::move(attributes), it->second->type.shape()[4]);
    return true;
  }

  /// Runs a Concat along the channels of blocked tensors: of one block that divides their
  /// channels, as the Concat of their blocks (no padding channels there); else as a
  /// channel gather into the blocks the output's channels take.
  bool convert_concat(const graph::Node& node) {
    const graph::Attribute* axis = node.attribute("axis");
    if (!is_onnx(node) || node.op_type != "Concat" || !axis || (axis->i != 1 && axis->i != -3) ||
        node.outputs.size() != 1 || node.outputs[0]->type.rank() != 4)
      return false;
    std::vector<graph::Value*> inputs;
    std::vector<int64_t> channels;
    bool whole_blocks = true;
    for (const graph::Value* in : node.inputs) {
      auto it = in ? blocked_.find(in) : blocked_.end();
      if (it == blocked_.end()) return false;
      int64_t block = it->second->type.shape()[4];
      whole_blocks &= in->type.shape()[1] % block == 0 &&
                      (inputs.empty() || inputs[0]->type.shape()[4] == block);
      inputs.push_back(it->second);
      channels.push_back(in->type.shape()[1]);
    }
    if (whole_blocks) {
      add_blocked(node, inputs, {{"axis", graph::Attribute::of_int(1)}},
                  inputs[0]->type.shape()[4]);
      return true;
    }
    return add_channel_gather(node.outputs[0], node.name, inputs, channels, 1, 0);
  }

  /// Runs a channel shuffle of a blocked tensor, Reshape [N, C, H, W] -> [N, g, C/g, H, W],
  /// Transpose (0, 2, 1, 3, 4) and Reshape back to [N, C, H, W] (ShuffleNet), as one channel
  /// gather; `node` is the first Reshape, each of the three the only reader of the one before.
  bool convert_channel_shuffle(const graph::Node& node) {
    if (!is_onnx(node) || node.op_type != "Reshape" || node.outputs.size() != 1 ||
        !blocked_.count(node.inputs[0]))
      return false;
    const graph::Value* x = node.inputs[0];
    const graph::Value* split = node.outputs[0];
    const graph::Node* transpose = only_reader(split, "Transpose");
    const graph::Node* merge = transpose ? only_reader(transpose->outputs[0], "Reshape") : nullptr;
    if (!merge || merge->outputs.size() != 1 || !split->type.has_static_shape() ||
        !merge->outputs[0]->type.has_static_shape())
      return false;
    const graph::Attribute* perm = transpose->attribute("perm");
    std::vector<int64_t> xs = x->type.shape(), ss = split->type.shape();
    if (!perm || perm->ints != std::vector<int64_t>{0, 2, 1, 3, 4} || ss.size() != 5 ||
        ss[0] != xs[0] || ss[1] * ss[2] != xs[1] || ss[3] != xs[2] || ss[4] != xs[3] ||
        merge->outputs[0]->type.shape() != xs)
      return false;
    absorbed_.insert(transpose);
    absorbed_.insert(merge);
    return add_channel_gather(merge->outputs[0], merge->name, {blocked_.at(x)}, {xs[1]}, ss[1], 0);
  }

  /// Runs a Slice of the channels (axis 1, step 1, constant bounds) of a blocked tensor as
  /// a channel gather.
  bool convert_channel_slice(const graph::Node& node) {
    if (!is_onnx(node) || node.op_type != "Slice" || node.opset < 10 || node.inputs.size() < 4 ||
        node.outputs.size() != 1 || !blocked_.count(node.inputs[0]))
      return false;
    for (size_t i = 1; i < node.inputs.size(); ++i)
      if (!node.inputs[i] || !node.inputs[i]->is_constant() ||
          node.inputs[i]->type.num_elements() != 1)
        return false;
    auto scalar = [&](size_t i) {
      return runtime::element_as_double(*node.inputs[i]->constant, 0);
    };
    if ((scalar(3) != 1 && scalar(3) != -3) || (node.inputs.size() > 4 && scalar(4) != 1))
      return false;
    const graph::Value* x = node.inputs[0];
    const graph::Value* y = node.outputs[0];
    int64_t channels = x->type.shape()[1];
    double start = scalar(1);
    if (start < 0) start += static_cast<double>(channels);
    start = std::clamp(start, 0.0, static_cast<double>(channels));
    if (y->type.rank() != 4 || y->type.shape()[1] == 0) return false;
    return add_channel_gather(y, node.name, {blocked_.at(x)}, {channels}, 1,
                              static_cast<int64_t>(start));
  }

  /// The one node reading `v` when it is an `op_type` of the ONNX domain; nullptr otherwise.
  const graph::Node* only_reader(const graph::Value* v, const char* op_type) const {
    auto it = users_.find(v);
    if (it == users_.end() || it->second.size() != 1 || !it->second[0]) return nullptr;
    const graph::Node* reader = it->second[0];
    return is_onnx(*reader) && reader->op_type == op_type ? reader : nullptr;
  }

  /// What a tessel.ChannelGatherNCHWc reads: channels start to start + count - 1 of the
  /// concatenation of `inputs` (of `channels` channels each), shuffled in `groups` first.
  struct ChannelGather {
    std::vector<graph::Value*> inputs;
    std::vector<int64_t> channels;
    int64_t groups = 1, start = 0, count = 0;

    bool whole_concatenation() const {
      int64_t total = 0;
      for (int64_t c : channels) total += c;
      return groups == 1 && start == 0 && count == total;
    }
  };

  /// `gather` read through the gather that computes its only input, where one gather can
  /// do both: a gather of a plain concatenation, or a window of any gather's channels (a
  /// Concat, its channel shuffle and the Split after it become one gather per part).
  ChannelGather through_inner_gather(ChannelGather gather) const {
    if (gather.inputs.size() != 1) return gather;
    auto inner = gathers_.find(gather.inputs[0]);
    if (inner == gathers_.end()) return gather;
    const ChannelGather& a = inner->second;
    bool window = !a.whole_concatenation();
    if (window && gather.groups != 1) return gather;
    if (window) {
      gather.groups = a.groups;
      gather.start += a.start;
    }
    gather.inputs = a.inputs;
    gather.channels = a.channels;
    return gather;
  }

  /// Makes source value `y` (NCHW) the tessel.ChannelGatherNCHWc of blocked `inputs` (of
  /// `channels` channels each) in `groups` groups from channel `start`, in the blocks its
  /// channels take; false (nothing made) when they take none. A gather of a gather's
  /// output reads the inner gather's inputs where it can (the inner one then goes when
  /// nothing else reads it).
  bool add_channel_gather(const graph::Value* y, const std::string& name,
                          std::vector<graph::Value*> inputs, std::vector<int64_t> channels,
                          int64_t groups, int64_t start) {
    int64_t block = block_for(y->type.shape(), target_);
    if (block == 0) return false;
    ChannelGather g = through_inner_gather(
        {std::move(inputs), std::move(channels), groups, start, y->type.shape()[1]});
    graph::Node gather = tessel_node("ChannelGatherNCHWc", name, g.inputs,
                                     {{"channels", graph::Attribute::of_ints(g.channels)},
                                      {"groups", graph::Attribute::of_int(g.groups)},
                                      {"start", graph::Attribute::of_int(g.start)},
                                      {"count", graph::Attribute::of_int(g.count)},
                                      {"block", graph::Attribute::of_int(block)}});
    graph::Value* out = add(std::move(gather), blocked_type(y->type, block), y->name + "_nchwc");
    blocked_[y] = out;
    gathers_[out] = std::move(g);
    return true;
  }

  GraphBuilder builder_;
  const target::Target& target_;
  ConvLayoutOptions options_;
  /// Source value -> its blocked form in the new graph.
  std::map<const graph::Value*, graph::Value*> blocked_;
  /// Source value -> the nodes reading it (nullptr for a graph output).
  std::map<const graph::Value*, std::vector<const graph::Node*>> users_;
  /// What each gather made reads, by its output.
  std::map<const graph::Value*, ChannelGather> gathers_;
  /// Source nodes a conversion of an earlier node took in (a channel shuffle's Transpose
  /// and second Reshape).
  std::set<const graph::Node*> absorbed_;
};

}  // namespace

graph::Graph convert_conv_layout(const graph::Graph& graph, const target::Target& target,
                                 const ConvLayoutOptions& options) {
  return LayoutConverter(graph, target, options).run();
}

}  // namespace tessel::passes
