// RNN, GRU and LSTM unrolled over their (static) sequence into ordinary nodes: per
// direction, one product of the whole sequence by the input weights (plus both biases), then
// per step a product of the hidden state by the recurrence weights and the gates'
// element-wise arithmetic. Fusion and tuning then treat these nodes like any others: the
// products take their additions, the gates' arithmetic forms element-wise groups.
//
// With sequence_lens, step t of batch entry b runs only where t < sequence_lens[b]: the
// states keep their values (Where) and Y is zero past the end, so that Y_h and Y_c are the
// states after each entry's last step; run backwards, a direction starts from each entry's
// last step the same way.
#include "ops/nn/recurrent.h"
#include "ops/op_def.h"
#include "ops/registry.h"
#include "passes/rules/rules.h"
#include "support/error.h"

namespace tessel::passes {
namespace {

using ops::nn::Activation;
using ops::nn::Cell;
using ops::nn::Recurrent;
using Attrs = std::map<std::string, graph::Attribute>;

Recurrent recurrent_of_node(const graph::Node& node) {
  const ops::OpDef* def = ops::OpRegistry::global().find(node.op_type);
  TESSEL_ICHECK(def, node.describe(), ": no operator definition");
  std::vector<graph::TensorType> types;
  for (const graph::Value* in : node.inputs) types.push_back(in ? in->type : graph::TensorType{});
  std::vector<const runtime::NDArray*> values(node.inputs.size(), nullptr);
  return ops::nn::recurrent_of(ops::OpContext(node, *def, types, values));
}

/// Builds the unrolled cell of one anchor.
class Unroller {
 public:
  Unroller(Rewriter& rw, const graph::Node& node)
      : rw_(rw), node_(node), r_(recurrent_of_node(node)) {}

  void run() {
    std::vector<graph::Value*> ys, hs, cs;
    for (int64_t d = 0; d < r_.directions; ++d) {
      Direction out = direction(d);
      ys.push_back(unsqueeze(out.y, 1));  // [seq, 1, batch, hidden]
      hs.push_back(unsqueeze(out.h, 0));  // [1, batch, hidden]
      if (out.c) cs.push_back(unsqueeze(out.c, 0));
    }
    define(0, ys, {2, 0, 1, 3});
    define(1, hs, {1, 0, 2});
    if (r_.cell == Cell::Lstm) define(2, cs, {1, 0, 2});
  }

 private:
  struct Direction {
    graph::Value *y = nullptr, *h = nullptr, *c = nullptr;
  };

  graph::Value* input(size_t i) {
    return i < node_.inputs.size() && node_.inputs[i] ? rw_.value(node_.inputs[i]) : nullptr;
  }
  graph::Value* scalar(double v) { return rw_.fill(v, {}, r_.dtype); }
  graph::Value* op(const std::string& type, std::vector<graph::Value*> inputs, Attrs attrs = {}) {
    return rw_.op(type, std::move(inputs), std::move(attrs));
  }
  graph::Value* slice(graph::Value* x, int64_t axis, int64_t begin, int64_t end) {
    return op("Slice", {x, rw_.ints({begin}), rw_.ints({end}), rw_.ints({axis})});
  }
  graph::Value* squeeze(graph::Value* x, int64_t axis) {
    return op("Squeeze", {x, rw_.ints({axis})});
  }
  graph::Value* unsqueeze(graph::Value* x, int64_t axis) {
    return op("Unsqueeze", {x, rw_.ints({axis})});
  }
  /// Entry `d` of axis `axis` of x, without the axis.
  graph::Value* pick(graph::Value* x, int64_t axis, int64_t d) {
    return squeeze(slice(x, axis, d, d + 1), axis);
  }
  graph::Value* transpose(graph::Value* x, std::vector<int64_t> perm) {
    return op("Transpose", {x}, {{"perm", graph::Attribute::of_ints(std::move(perm))}});
  }
  graph::Value* gate(graph::Value* x, int64_t k) {
    return slice(x, 1, k * r_.hidden, (k + 1) * r_.hidden);
  }

  /// Activation `a` of a gate's pre-activation x, clipped first when the node has a clip.
  graph::Value* activate_gate(const Activation& a, graph::Value* x) {
    if (r_.clip) x = op("Clip", {x, scalar(-*r_.clip), scalar(*r_.clip)});
    return activate(a, x);
  }

  graph::Value* activate(const Activation& a, graph::Value* x) {
    auto with = [](std::initializer_list<std::pair<const char*, double>> values) {
      Attrs attrs;
      for (auto [name, v] : values) attrs[name] = graph::Attribute::of_float(v);
      return attrs;
    };
    if (a.name == "Affine") return op("Add", {op("Mul", {x, scalar(a.alpha)}), scalar(a.beta)});
    if (a.name == "ScaledTanh")
      return op("Mul", {op("Tanh", {op("Mul", {x, scalar(a.beta)})}), scalar(a.alpha)});
    if (a.name == "LeakyRelu" || a.name == "ThresholdedRelu" || a.name == "Elu")
      return op(a.name, {x}, with({{"alpha", a.alpha}}));
    if (a.name == "HardSigmoid")
      return op(a.name, {x}, with({{"alpha", a.alpha}, {"beta", a.beta}}));
    return op(a.name, {x});  // Relu, Tanh, Sigmoid, Softsign, Softplus
  }

  /// The state input `i` (initial_h, initial_c) of direction d, or zeros.
  graph::Value* initial_state(size_t i, int64_t d) {
    graph::Value* given = input(i);
    if (!given) return rw_.fill(0, {r_.batch, r_.hidden}, r_.dtype);
    return pick(given, r_.batch_major ? 1 : 0, d);
  }

  Direction direction(int64_t d) {
    const std::vector<Activation>& act = r_.activations[static_cast<size_t>(d)];
    int64_t hidden = r_.hidden, rows = r_.gates * hidden;
    bool backwards = r_.reverse || d == 1;
    graph::Value* w_t = transpose(pick(input(1), 0, d), {1, 0});  // [input, rows]
    graph::Value* r_t = transpose(pick(input(2), 0, d), {1, 0});  // [hidden, rows]
    graph::Value* x = input(0);
    if (r_.batch_major) x = transpose(x, {1, 0, 2});
    graph::Value* xw = op("MatMul", {x, w_t});  // [seq, batch, rows]
    // Both biases join the input product, but GRU's recurrence bias of the h gate, which
    // linear_before_reset puts under the reset gate.
    graph::Value* rb_h = nullptr;
    if (graph::Value* b = input(3)) {
      graph::Value* bd = pick(b, 0, d);
      graph::Value *wb = slice(bd, 0, 0, rows), *rb = slice(bd, 0, rows, 2 * rows);
      if (r_.cell == Cell::Gru && r_.linear_before_reset) {
        rb_h = slice(rb, 0, 2 * hidden, 3 * hidden);
        rb = op("Concat", {slice(rb, 0, 0, 2 * hidden), rw_.fill(0, {hidden}, r_.dtype)},
                {{"axis", graph::Attribute::of_int(0)}});
      }
      xw = op("Add", {xw, op("Add", {wb, rb})});
    }
    graph::Value *pi = nullptr, *po = nullptr, *pf = nullptr;
    if (r_.cell == Cell::Lstm && input(7)) {
      graph::Value* p = pick(input(7), 0, d);
      pi = slice(p, 0, 0, hidden);
      po = slice(p, 0, hidden, 2 * hidden);
      pf = slice(p, 0, 2 * hidden, 3 * hidden);
    }
    graph::Value* lengths = input(4);
    graph::Value* h = initial_state(5, d);
    graph::Value* c = r_.cell == Cell::Lstm ? initial_state(6, d) : nullptr;
    graph::Value* zeros = rw_.fill(0, {r_.batch, hidden}, r_.dtype);
    std::vector<graph::Value*> ys(static_cast<size_t>(r_.seq_length));
    for (int64_t k = 0; k < r_.seq_length; ++k) {
      int64_t t = backwards ? r_.seq_length - 1 - k : k;
      graph::Value* xw_t = pick(xw, 0, t);  // [batch, rows]
      graph::Value *h_new = nullptr, *c_new = nullptr;
      if (r_.cell == Cell::Rnn) {
        h_new = activate_gate(act[0], op("Add", {xw_t, op("MatMul", {h, r_t})}));
      } else if (r_.cell == Cell::Lstm) {
        graph::Value* g = op("Add", {xw_t, op("MatMul", {h, r_t})});
        graph::Value *i = gate(g, 0), *o = gate(g, 1), *f = gate(g, 2), *cand = gate(g, 3);
        if (pi) {
          i = op("Add", {i, op("Mul", {pi, c})});
          f = op("Add", {f, op("Mul", {pf, c})});
        }
        i = activate_gate(act[0], i);
        f = r_.input_forget ? op("Sub", {scalar(1), i}) : activate_gate(act[0], f);
        c_new = op("Add", {op("Mul", {f, c}), op("Mul", {i, activate_gate(act[1], cand)})});
        if (po) o = op("Add", {o, op("Mul", {po, c_new})});
        h_new = op("Mul", {activate_gate(act[0], o), activate(act[2], c_new)});
      } else {
        h_new = gru_step(act, xw_t, h, r_t, rb_h);
      }
      if (lengths) {
        // Step t runs for the entries whose sequence is longer than t.
        runtime::NDArray step({}, runtime::DType::Int(32));
        step.data_as<int32_t>()[0] = static_cast<int32_t>(t);
        graph::Value* running = unsqueeze(op("Less", {rw_.constant(std::move(step)), lengths}), 1);
        ys[static_cast<size_t>(t)] = op("Where", {running, h_new, zeros});
        h = op("Where", {running, h_new, h});
        if (c) c = op("Where", {running, c_new, c});
      } else {
        ys[static_cast<size_t>(t)] = h = h_new;
        c = c_new;
      }
    }
    for (graph::Value*& y : ys) y = unsqueeze(y, 0);
    Direction out;
    out.y = ys.size() == 1 ? ys[0] : op("Concat", ys, {{"axis", graph::Attribute::of_int(0)}});
    out.h = h;
    out.c = c;
    return out;
  }

  /// h' = (1 - z) h~ + z h: z and r from the input and recurrence products, h~ from the
  /// input product and the recurrence of r * h (or r * (h R^T + Rb) when
  /// linear_before_reset).
  graph::Value* gru_step(const std::vector<Activation>& act, graph::Value* xw_t, graph::Value* h,
                         graph::Value* r_t, graph::Value* rb_h) {
    int64_t hidden = r_.hidden;
    graph::Value* zr_t = slice(r_t, 1, 0, 2 * hidden);
    graph::Value* h_t = slice(r_t, 1, 2 * hidden, 3 * hidden);
    graph::Value* zr = op("Add", {slice(xw_t, 1, 0, 2 * hidden), op("MatMul", {h, zr_t})});
    graph::Value* z = activate_gate(act[0], gate(zr, 0));
    graph::Value* reset = activate_gate(act[0], gate(zr, 1));
    graph::Value* recurrence = nullptr;
    if (r_.linear_before_reset) {
      recurrence = op("MatMul", {h, h_t});
      if (rb_h) recurrence = op("Add", {recurrence, rb_h});
      recurrence = op("Mul", {reset, recurrence});
    } else {
      recurrence = op("MatMul", {op("Mul", {reset, h}), h_t});
    }
    graph::Value* candidate = activate_gate(act[1], op("Add", {gate(xw_t, 2), recurrence}));
    // (1 - z) h~ + z h == h~ + z (h - h~)
    return op("Add", {candidate, op("Mul", {z, op("Sub", {h, candidate})})});
  }

  /// Defines anchor output k (when used) from the directions' values, joined on axis 0 of
  /// `parts` and, for layout 1, transposed by `batch_major_perm`.
  void define(size_t k, std::vector<graph::Value*> parts, std::vector<int64_t> batch_major_perm) {
    if (k >= node_.outputs.size() || !node_.outputs[k]) return;
    size_t axis = k == 0 ? 1 : 0;
    graph::Value* joined =
        parts.size() == 1
            ? parts[0]
            : op("Concat", parts, {{"axis", graph::Attribute::of_int(static_cast<int64_t>(axis))}});
    if (r_.batch_major) {
      rw_.add_node("Transpose", {joined}, {rw_.output(k)},
                   {{"perm", graph::Attribute::of_ints(std::move(batch_major_perm))}});
    } else {
      rw_.add_node("Identity", {joined}, {rw_.output(k)});
    }
  }

  Rewriter& rw_;
  const graph::Node& node_;
  Recurrent r_;
};

std::optional<Match> match_recurrent(const MatchContext&, const graph::Node&) {
  return Match{};
}

void replace_recurrent(const Match& match, Rewriter& rw) {
  Unroller(rw, *match.anchor).run();
}

}  // namespace

std::vector<RewriteRule> recurrent_rules() {
  std::vector<RewriteRule> rules;
  for (const char* cell : {"RNN", "GRU", "LSTM"})
    rules.push_back({std::string("unroll_") + cell, cell, match_recurrent, replace_recurrent});
  return rules;
}

}  // namespace tessel::passes
