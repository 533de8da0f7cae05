#!/usr/bin/env python3
"""Writes ONNX test cases of the seeded random operators against NumPy's legacy generator,
numpy.random.RandomState(seed), whose numbers tessel's random operators draw: RandomUniform
and RandomNormal (a pair-drawing generator with an odd count), their Like forms in float64,
Bernoulli of probabilities 0, 1/2 and 1 among others, and Dropout in training with its mask.

usage: /usr/bin/python3 scripts/make-random-cases.py OUT_DIR

Each case is a folder in the node suite's layout (model.onnx, test_data_set_0/input_*.pb and
output_*.pb) whose expected outputs come from NumPy (independent of tessel); the cases are
checked in under tests/onnx-cases/random.
"""
import sys

import numpy
import onnx
from onnx import TensorProto, helper

from onnx_case_files import write_case

NUMPY_TYPES = {numpy.float32: TensorProto.FLOAT, numpy.float64: TensorProto.DOUBLE,
               numpy.int32: TensorProto.INT32, numpy.bool_: TensorProto.BOOL}


def info(name, array):
    return helper.make_tensor_value_info(name, NUMPY_TYPES[array.dtype.type], list(array.shape))


def case(name, node, feeds, expected, opset=17):
    """`expected`: (output name, array) pairs in the node's output order."""
    graph = helper.make_graph([node], name, [info(n, v) for n, v in feeds],
                              [info(n, v) for n, v in expected])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return name, model, feeds, expected


def cases():
    state = numpy.random.RandomState
    yield case("random_uniform_seeded",
               helper.make_node("RandomUniform", [], ["y"], shape=[3, 5], low=-2.0, high=3.0, seed=7.0),
               [], [("y", state(7).uniform(-2.0, 3.0, (3, 5)).astype(numpy.float32))])
    yield case("random_normal_seeded_odd_count",
               helper.make_node("RandomNormal", [], ["y"], shape=[3, 5], mean=1.5, scale=0.5, seed=3.0),
               [], [("y", state(3).normal(1.5, 0.5, (3, 5)).astype(numpy.float32))])
    x = numpy.zeros((2, 3, 4), numpy.float64)
    yield case("random_uniform_like_double",
               helper.make_node("RandomUniformLike", ["x"], ["y"], seed=11.0),
               [("x", x)], [("y", state(11).random_sample((2, 3, 4)))])
    yield case("random_normal_like_to_double",
               helper.make_node("RandomNormalLike", ["x"], ["y"], seed=0.0, dtype=TensorProto.DOUBLE),
               [("x", numpy.zeros((7,), numpy.float32))], [("y", state(0).standard_normal(7))])

    p = state(1).uniform(0, 1, 40).astype(numpy.float32)
    p[:4] = [0, 1, 0.5, 0.25]
    yield case("bernoulli_seeded",
               helper.make_node("Bernoulli", ["p"], ["y"], seed=4.0),
               [("p", p)], [("y", state(4).binomial(1, p.astype(numpy.float64)).astype(numpy.float32))])
    q = state(2).uniform(0, 1, (4, 6))
    yield case("bernoulli_double_to_int32",
               helper.make_node("Bernoulli", ["p"], ["y"], seed=9.0, dtype=TensorProto.INT32),
               [("p", q)], [("y", state(9).binomial(1, q).astype(numpy.int32))])

    x = state(5).uniform(-1, 1, (4, 6)).astype(numpy.float32)
    ratio = numpy.array(0.3, numpy.float32)
    kept = state(21).uniform(0, 1, x.shape) >= float(ratio)
    y = (kept * x.astype(numpy.float64) / (1 - float(ratio))).astype(numpy.float32)
    yield case("dropout_training_seeded_mask",
               helper.make_node("Dropout", ["x", "ratio", "training"], ["y", "mask"], seed=21),
               [("x", x), ("ratio", ratio), ("training", numpy.array(True))],
               [("y", y), ("mask", kept)], opset=13)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for name, model, inputs, expected in cases():
        write_case(sys.argv[1], name, model, [(inputs, expected)])
        print(name)


if __name__ == "__main__":
    main()
