#!/usr/bin/env python3
"""Writes ONNX test cases of RNN, GRU and LSTM nodes for what the ONNX node suite leaves out:
both directions, reverse, sequence_lens of different lengths, linear_before_reset, clip,
input_forget, peepholes with sequence lengths, activations with alpha and beta. (The node
suite has layout 1, which ONNX Runtime does not run.)

usage: .venv/bin/python3 scripts/make-recurrent-cases.py OUT_DIR

Each case is a folder in the node suite's layout (model.onnx, test_data_set_0/input_*.pb and
output_*.pb) whose expected outputs are ONNX Runtime's, so that `tessel test-onnx OUT_DIR`
compares tessel with an independent implementation. The inputs are drawn from a fixed seed;
the cases are checked in under tests/onnx-cases/recurrent.
"""
import sys
import zlib

import numpy
import onnx
import onnxruntime
from onnx import TensorProto, helper

from onnx_case_files import write_case

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def case(name, cell, seq, batch, inputs, hidden, *, directions=1, layout=0, lengths=None,
         initial=False, peepholes=False, outputs=("Y", "Y_h"), **attributes):
    """A case of one `cell` node; `lengths` (sequence_lens) and `initial` (initial states)
    are graph inputs when given."""
    rng = numpy.random.default_rng(zlib.crc32(name.encode()))
    gates = GATES[cell]
    x_shape = [batch, seq, inputs] if layout else [seq, batch, inputs]
    state_shape = [batch, directions, hidden] if layout else [directions, batch, hidden]
    feeds = {
        "X": rng.uniform(-1, 1, x_shape),
        "W": rng.uniform(-0.6, 0.6, [directions, gates * hidden, inputs]),
        "R": rng.uniform(-0.6, 0.6, [directions, gates * hidden, hidden]),
        "B": rng.uniform(-0.3, 0.3, [directions, 2 * gates * hidden]),
    }
    names = ["X", "W", "R", "B"]
    if lengths is not None:
        feeds["sequence_lens"] = numpy.array(lengths, dtype=numpy.int32)
        names.append("sequence_lens")
    else:
        names.append("")
    if initial:
        feeds["initial_h"] = rng.uniform(-1, 1, state_shape)
        names.append("initial_h")
        if cell == "LSTM":
            feeds["initial_c"] = rng.uniform(-1, 1, state_shape)
            names.append("initial_c")
    if peepholes:
        if not initial:
            names += ["", ""]
        feeds["P"] = rng.uniform(-0.5, 0.5, [directions, 3 * hidden])
        names.append("P")
    while names and names[-1] == "":
        names.pop()
    for key, value in feeds.items():
        if value.dtype == numpy.float64:
            feeds[key] = value.astype(numpy.float32)
    if directions == 2:
        attributes["direction"] = "bidirectional"
    node = helper.make_node(cell, names, list(outputs), hidden_size=hidden, layout=layout,
                            **attributes)
    graph_inputs = [helper.make_tensor_value_info(
        n, TensorProto.INT32 if n == "sequence_lens" else TensorProto.FLOAT, list(feeds[n].shape))
        for n in names if n]
    y_shape = [batch, seq, directions, hidden] if layout else [seq, directions, batch, hidden]
    shapes = {"Y": y_shape, "Y_h": state_shape, "Y_c": state_shape}
    graph_outputs = [helper.make_tensor_value_info(o, TensorProto.FLOAT, shapes[o])
                     for o in outputs]
    graph = helper.make_graph([node], name, graph_inputs, graph_outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    session = onnxruntime.InferenceSession(model.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    results = session.run(None, {n: feeds[n] for n in names if n})
    return name, model, [(n, feeds[n]) for n in names if n], list(zip(outputs, results))


def cases():
    yield case("lstm_bidirectional_lengths", "LSTM", 5, 3, 4, 6, directions=2, lengths=[5, 2, 3],
               initial=True, outputs=("Y", "Y_h", "Y_c"))
    yield case("lstm_reverse_peepholes_clip", "LSTM", 4, 2, 3, 5, direction="reverse",
               lengths=[3, 4], initial=True, peepholes=True, clip=0.7,
               outputs=("Y", "Y_h", "Y_c"))
    # A clip below the cell state: it bounds the gates' pre-activations, not c under h.
    yield case("lstm_clip_below_cell_state", "LSTM", 5, 3, 4, 4, directions=2, initial=True,
               clip=0.3, outputs=("Y", "Y_h", "Y_c"))
    yield case("lstm_input_forget_activations", "LSTM", 4, 2, 3, 4, input_forget=1,
               activations=["HardSigmoid", "LeakyRelu", "ScaledTanh"],
               activation_alpha=[0.3, 0.05, 0.9], activation_beta=[0.45, 1.3],
               outputs=("Y", "Y_h", "Y_c"))
    yield case("gru_bidirectional_reset_after", "GRU", 5, 3, 4, 5, directions=2,
               linear_before_reset=1, lengths=[2, 5, 4], initial=True)
    yield case("gru_reverse_activations", "GRU", 4, 2, 3, 4, direction="reverse",
               activations=["Sigmoid", "Softsign"], clip=1.5)
    yield case("gru_lengths_initial_state", "GRU", 4, 3, 2, 3, lengths=[4, 1, 3], initial=True,
               linear_before_reset=1)
    yield case("rnn_bidirectional_activations", "RNN", 4, 2, 3, 5, directions=2,
               activations=["Relu", "Affine"], activation_alpha=[0.7], activation_beta=[0.2],
               initial=True)
    yield case("rnn_reverse_lengths", "RNN", 5, 3, 2, 4, direction="reverse",
               lengths=[5, 3, 1])


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for name, model, inputs, outputs in cases():
        write_case(sys.argv[1], name, model, [(inputs, outputs)])
        print(name)


if __name__ == "__main__":
    main()
