// RNN, GRU and LSTM: the recurrent operators' inputs and attributes, checked once for type
// inference and for the graph rewrite that unrolls them over the sequence
// (passes/rules/recurrent_rules.cpp) into products and element-wise nodes, which then fuse
// and tune like any others. The operators have no kernel of their own.
//
// Inputs: X [seq, batch, input] ([batch, seq, input] with layout 1), W [dirs, gates*hidden,
// input], R [dirs, gates*hidden, hidden], then optional B [dirs, 2*gates*hidden] (input and
// recurrence biases), sequence_lens [batch] (int32), initial_h [dirs, batch, hidden]
// ([batch, dirs, hidden] with layout 1), and for LSTM initial_c like initial_h and the
// peepholes P [dirs, 3*hidden]. Gates in ONNX's order: LSTM i, o, f, c; GRU z, r, h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ops/op_context.h"

namespace tessel::ops::nn {

enum class Cell { Rnn, Gru, Lstm };

/// One of a cell's activation functions, with its alpha and beta (ONNX's defaults of the
/// operator of that name where the node gives none).
struct Activation {
  std::string name;  ///< Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ...
  double alpha = 0, beta = 0;
};

struct Recurrent {
  Cell cell = Cell::Lstm;
  int64_t gates = 4;  ///< 1 (RNN), 3 (GRU), 4 (LSTM)
  int64_t seq_length = 0, batch = 0, input_size = 0, hidden = 0;
  int64_t directions = 1;
  bool reverse = false;      ///< direction "reverse" (one direction, run from the end)
  bool batch_major = false;  ///< layout 1
  /// Bounds every gate's pre-activation to [-clip, clip]; not the cell state under LSTM's h
  /// (as ONNX Runtime reads the specification's "the input of activations").
  std::optional<double> clip;
  bool input_forget = false;         ///< LSTM: the forget gate is 1 - the input gate
  bool linear_before_reset = false;  ///< GRU: the reset gate scales h R^T + Rb, not h
  /// Per direction, the cell's functions: RNN f; GRU f, g; LSTM f, g, h.
  std::vector<std::vector<Activation>> activations;
  ir::DataType dtype;

  /// Output shapes: Y, Y_h, and for LSTM Y_c.
  std::vector<std::vector<int64_t>> output_shapes() const;
};

/// The recurrent operator of `ctx`'s node, with every input shape and attribute checked
/// (CompileError naming what is wrong).
Recurrent recurrent_of(const OpContext& ctx);

}  // namespace tessel::ops::nn
