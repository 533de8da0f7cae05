#!/usr/bin/env python3
"""Writes ONNX test cases of If, Loop and Scan for what the ONNX node suite leaves out:
bodies that read values of the enclosing graphs (also two levels out), loop-carried values
with scan outputs, a loop that stops on its condition, one without a trip count, carried
values swapped by the body, zero trips, a loop inside a loop, an If inside a loop, Scan over
other axes and in reverse, and opset 8's Scan over a batch.

usage: .venv/bin/python3 scripts/make-control-flow-cases.py OUT_DIR

Each case is a folder in the node suite's layout (model.onnx, test_data_set_*/input_*.pb and
output_*.pb) whose expected outputs are ONNX Runtime's, so that `tessel test-onnx OUT_DIR`
compares tessel with an independent implementation. The inputs are drawn from a fixed seed;
the cases are checked in under tests/onnx-cases/control-flow.
"""
import sys
import zlib

import numpy
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

from onnx_case_files import write_case

FLOAT, INT64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
node = helper.make_node


def info(name, elem_type, shape):
    return helper.make_tensor_value_info(name, elem_type, shape)


def const(name, value):
    return numpy_helper.from_array(numpy.asarray(value), name)


def rng_for(name):
    return numpy.random.default_rng(zlib.crc32(name.encode()))


def floats(rng, *shape):
    return rng.uniform(-1, 1, shape).astype(numpy.float32)


def scalar_bool(value):
    return numpy.array(value, dtype=numpy.bool_)


def scalar_int(value):
    return numpy.array(value, dtype=numpy.int64)


def loop_body(name, carried, nodes, outputs, initializers=()):
    """A Loop body taking (i, cond, carried...) and giving `outputs` (cond first)."""
    inputs = [info("i", INT64, []), info("cond", BOOL, [])] + carried
    return helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))


def model_of(name, nodes, inputs, outputs, initializers=(), opset=16):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def if_captures():
    name = "if_captures"
    rng = rng_for(name)
    then_branch = helper.make_graph(
        [node("Add", ["t", "x"], ["then_out"]), node("Tanh", ["x"], ["then_second"])],
        "then", [], [info("then_out", FLOAT, [3, 4]), info("then_second", FLOAT, [3, 4])])
    else_branch = helper.make_graph(
        [node("Relu", ["x"], ["r"]), node("Sub", ["r", "w"], ["else_out"]),
         node("Sigmoid", ["t"], ["else_second"])],
        "else", [], [info("else_out", FLOAT, [3, 4]), info("else_second", FLOAT, [3, 4])])
    model = model_of(
        name,
        [node("Mul", ["x", "w"], ["t"]),
         node("If", ["cond"], ["y", "z"], then_branch=then_branch, else_branch=else_branch)],
        [info("cond", BOOL, []), info("x", FLOAT, [3, 4])],
        [info("y", FLOAT, [3, 4]), info("z", FLOAT, [3, 4])], [const("w", floats(rng, 3, 4))])
    x = floats(rng, 3, 4)
    return name, model, [{"cond": scalar_bool(True), "x": x}, {"cond": scalar_bool(False), "x": x}]


def loop_carried_scan():
    name = "loop_carried_scan"
    rng = rng_for(name)
    body = loop_body(
        "body", [info("h_in", FLOAT, [2, 4]), info("acc_in", FLOAT, [1, 1])],
        [node("MatMul", ["h_in", "W"], ["hw"]), node("Cast", ["i"], ["fi"], to=FLOAT),
         node("Add", ["hw", "fi"], ["pre"]), node("Tanh", ["pre"], ["h_out"]),
         node("ReduceSum", ["h_out"], ["s"], keepdims=1), node("Add", ["acc_in", "s"], ["acc_out"]),
         node("Mul", ["h_in", "two"], ["doubled"]), node("Identity", ["cond"], ["cond_out"])],
        [info("cond_out", BOOL, []), info("h_out", FLOAT, [2, 4]), info("acc_out", FLOAT, [1, 1]),
         info("h_out", FLOAT, [2, 4]), info("doubled", FLOAT, [2, 4])],
        [const("two", numpy.float32(2.0))])
    model = model_of(
        name, [node("Loop", ["M", "true", "x", "zero"], ["h", "acc", "hs", "ds"], body=body)],
        [info("x", FLOAT, [2, 4])],
        [info("h", FLOAT, [2, 4]), info("acc", FLOAT, [1, 1]), info("hs", FLOAT, [5, 2, 4]),
         info("ds", FLOAT, [5, 2, 4])],
        [const("M", scalar_int(5)), const("true", scalar_bool(True)),
         const("zero", numpy.zeros([1, 1], numpy.float32)), const("W", floats(rng, 4, 4))])
    return name, model, [{"x": floats(rng, 2, 4)}]


def loop_early_exit():
    name = "loop_early_exit"
    body = loop_body(
        "body", [info("v_in", FLOAT, [3])],
        [node("Mul", ["v_in", "factor"], ["v_out"]),
         node("ReduceMax", ["v_out"], ["top"], keepdims=0),
         node("Less", ["top", "limit"], ["cond_out"])],
        [info("cond_out", BOOL, []), info("v_out", FLOAT, [3])],
        [const("factor", numpy.float32(1.5)), const("limit", numpy.float32(50.0))])
    model = model_of(name, [node("Loop", ["M", "go", "x"], ["v"], body=body)],
                     [info("go", BOOL, []), info("x", FLOAT, [3])], [info("v", FLOAT, [3])],
                     [const("M", scalar_int(100))])
    return name, model, [
        {"go": scalar_bool(True), "x": numpy.array([1, 2, 3], numpy.float32)},
        {"go": scalar_bool(True), "x": numpy.array([0.1, 0.2, 0.05], numpy.float32)},
        {"go": scalar_bool(False), "x": numpy.array([1, 2, 3], numpy.float32)}]


def loop_swap():
    """The body swaps two carried values (and sums one of them into a third)."""
    name = "loop_swap"
    body = loop_body(
        "body", [info("a_in", FLOAT, [2]), info("b_in", FLOAT, [2]), info("s_in", FLOAT, [2])],
        [node("Add", ["s_in", "a_in"], ["s_out"]), node("Identity", ["cond"], ["cond_out"])],
        [info("cond_out", BOOL, []), info("b_in", FLOAT, [2]), info("a_in", FLOAT, [2]),
         info("s_out", FLOAT, [2])])
    model = model_of(name, [node("Loop", ["M", "", "a", "b", "a"], ["a_final", "b_final", "s"],
                                 body=body)],
                     [info("M", INT64, []), info("a", FLOAT, [2]), info("b", FLOAT, [2])],
                     [info("a_final", FLOAT, [2]), info("b_final", FLOAT, [2]),
                      info("s", FLOAT, [2])])
    a, b = numpy.array([0, 1], numpy.float32), numpy.array([1, -1], numpy.float32)
    return name, model, [{"M": scalar_int(5), "a": a, "b": b}, {"M": scalar_int(0), "a": a, "b": b}]


def loop_without_trip_count():
    name = "loop_without_trip_count"
    body = loop_body(
        "body", [info("x_in", FLOAT, [2]), info("n_in", INT64, [])],
        [node("Mul", ["x_in", "two"], ["x_out"]), node("Add", ["n_in", "one"], ["n_out"]),
         node("ReduceSum", ["x_out"], ["s"], keepdims=0), node("Less", ["s", "limit"], ["cond_out"])],
        [info("cond_out", BOOL, []), info("x_out", FLOAT, [2]), info("n_out", INT64, [])],
        [const("two", numpy.float32(2.0)), const("one", scalar_int(1)),
         const("limit", numpy.float32(100.0))])
    model = model_of(name, [node("Loop", ["", "true", "x", "zero"], ["x_final", "n"], body=body)],
                     [info("x", FLOAT, [2])], [info("x_final", FLOAT, [2]), info("n", INT64, [])],
                     [const("true", scalar_bool(True)), const("zero", scalar_int(0))])
    return name, model, [{"x": numpy.array([0.5, 1.5], numpy.float32)}]


def loop_nested_if():
    """An If inside a Loop: its branches read the loop body's values and the main graph's."""
    name = "loop_nested_if"
    rng = rng_for(name)
    then_branch = helper.make_graph([node("MatMul", ["h_in", "W"], ["then_out"])], "then", [],
                                    [info("then_out", FLOAT, [2, 3])])
    else_branch = helper.make_graph([node("Add", ["h_in", "fi"], ["else_out"])], "else", [],
                                    [info("else_out", FLOAT, [2, 3])])
    body = loop_body(
        "body", [info("h_in", FLOAT, [2, 3])],
        [node("Cast", ["i"], ["fi"], to=FLOAT), node("Mod", ["i", "two"], ["parity"]),
         node("Equal", ["parity", "zero"], ["even"]),
         node("If", ["even"], ["picked"], then_branch=then_branch, else_branch=else_branch),
         node("Tanh", ["picked"], ["h_out"]), node("Identity", ["cond"], ["cond_out"])],
        [info("cond_out", BOOL, []), info("h_out", FLOAT, [2, 3]), info("picked", FLOAT, [2, 3])],
        [const("two", scalar_int(2)), const("zero", scalar_int(0))])
    model = model_of(name, [node("Loop", ["M", "true", "x"], ["h", "picks"], body=body)],
                     [info("x", FLOAT, [2, 3])],
                     [info("h", FLOAT, [2, 3]), info("picks", FLOAT, [4, 2, 3])],
                     [const("M", scalar_int(4)), const("true", scalar_bool(True)),
                      const("W", floats(rng, 3, 3))])
    return name, model, [{"x": floats(rng, 2, 3)}]


def loop_in_loop():
    """A Loop inside a Loop; the inner body reads the outer body's carried value."""
    name = "loop_in_loop"
    inner = helper.make_graph(
        [node("Add", ["acc_in", "h_in"], ["acc_out"]), node("Identity", ["c2"], ["c2_out"])],
        "inner", [info("j", INT64, []), info("c2", BOOL, []), info("acc_in", FLOAT, [3])],
        [info("c2_out", BOOL, []), info("acc_out", FLOAT, [3])])
    body = loop_body(
        "outer", [info("h_in", FLOAT, [3])],
        [node("Loop", ["N", "true", "h_in"], ["inner_acc"], body=inner),
         node("Mul", ["inner_acc", "half"], ["h_out"]), node("Identity", ["cond"], ["cond_out"])],
        [info("cond_out", BOOL, []), info("h_out", FLOAT, [3]), info("inner_acc", FLOAT, [3])],
        [const("N", scalar_int(2)), const("half", numpy.float32(0.75))])
    model = model_of(name, [node("Loop", ["M", "true", "x"], ["h", "accs"], body=body)],
                     [info("x", FLOAT, [3])], [info("h", FLOAT, [3]), info("accs", FLOAT, [3, 3])],
                     [const("M", scalar_int(3)), const("true", scalar_bool(True))])
    return name, model, [{"x": numpy.array([1, -2, 0.5], numpy.float32)}]


def scan_axes_reverse():
    name = "scan_axes_reverse"
    rng = rng_for(name)
    body = helper.make_graph(
        [node("Mul", ["x_t", "y_t"], ["xy"]), node("Add", ["s_in", "xy"], ["s_out"]),
         node("Mul", ["s_out", "k"], ["z_t"])],
        "body", [info("s_in", FLOAT, [3]), info("x_t", FLOAT, [3]), info("y_t", FLOAT, [3])],
        [info("s_out", FLOAT, [3]), info("z_t", FLOAT, [3])])
    model = model_of(
        name, [node("Scan", ["s", "X", "Y"], ["s_final", "Z"], body=body, num_scan_inputs=2,
                    scan_input_axes=[1, 0], scan_input_directions=[0, 1], scan_output_axes=[-1],
                    scan_output_directions=[1])],
        [info("s", FLOAT, [3]), info("X", FLOAT, [3, 5]), info("Y", FLOAT, [5, 3])],
        [info("s_final", FLOAT, [3]), info("Z", FLOAT, [3, 5])], [const("k", floats(rng, 3))])
    return name, model, [{"s": floats(rng, 3), "X": floats(rng, 3, 5), "Y": floats(rng, 5, 3)}]


def scan8_batched():
    """Scan of opset 8: each batch entry scanned on its own, one input walked in reverse."""
    name = "scan8_batched"
    rng = rng_for(name)
    body = helper.make_graph(
        [node("Add", ["s_in", "x_t"], ["s_out"]), node("Mul", ["s_out", "y_t"], ["z_t"])],
        "body", [info("s_in", FLOAT, [3]), info("x_t", FLOAT, [3]), info("y_t", FLOAT, [3])],
        [info("s_out", FLOAT, [3]), info("z_t", FLOAT, [3])])
    model = model_of(
        name, [node("Scan", ["", "s", "X", "Y"], ["s_final", "Z"], body=body, num_scan_inputs=2,
                    directions=[0, 1])],
        [info("s", FLOAT, [2, 3]), info("X", FLOAT, [2, 4, 3]), info("Y", FLOAT, [2, 4, 3])],
        [info("s_final", FLOAT, [2, 3]), info("Z", FLOAT, [2, 4, 3])], opset=8)
    return name, model, [{"s": floats(rng, 2, 3), "X": floats(rng, 2, 4, 3),
                          "Y": floats(rng, 2, 4, 3)}]


CASES = [if_captures, loop_carried_scan, loop_early_exit, loop_swap, loop_without_trip_count,
         loop_nested_if, loop_in_loop, scan_axes_reverse, scan8_batched]


def expected(model, data_sets):
    """The data sets with ONNX Runtime's outputs: (inputs, outputs) pairs for write_case."""
    session = onnxruntime.InferenceSession(model.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    names = [o.name for o in model.graph.output]
    return [(list(feeds.items()), list(zip(names, session.run(None, feeds))))
            for feeds in data_sets]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for make in CASES:
        name, model, data_sets = make()
        write_case(sys.argv[1], name, model, expected(model, data_sets))
        print(name)


if __name__ == "__main__":
    main()
