#!/usr/bin/env python3
"""Differential testing of tessel against ONNX Runtime on random ONNX models.

Generates valid opset-17 graphs of 5 to 60 nodes from operators tessel supports (convolution
blocks, element-wise chains, residual adds, concatenations, MatMul + bias + GELU, attention,
normalisations, layout changes, If / Loop / Scan with bodies reading outer values, ...), computes the expected outputs with ONNX Runtime, writes
each model as an ONNX node-test case and runs `tessel test-onnx` on batches of cases with
fusion and the blocked layout on and off (and through a compiled library for every tenth
model). A case that does not pass is shrunk (nodes removed while it still fails the same
way) and can be kept as a regression case.

  fuzz-models.py --count N --seed S [--out DIR] [--tessel PATH] [--keep-failures DIR]
                 [--configs default,no-fusion,...] [--batch N] [--max-nodes N] [--timeout S]
                 [--shrink-budget S]

Exit status: 0 when every case passed or was skipped as unsupported, 1 otherwise.
"""
import argparse
import collections
import concurrent.futures
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
ort.set_default_logger_severity(3)
# Tolerances: the node suite's rtol; its atol (1e-7) is meant for single operators, while
# these graphs chain convolutions and matrix products whose float32 rounding leaves errors
# of a few 1e-6 on results near zero (from operands of magnitude 1 to 100), so atol is 1e-4.
RTOL, ATOL = 1e-3, 1e-4
# A generated model is kept only if every intermediate value is finite and at most this
# large, and ONNX Runtime agrees with itself (optimised and not) within RTOL/ATOL / 10.
MAX_MAGNITUDE = 1e4
CONFIGS = {
    "default": [],
    "no-fusion": ["--no-fusion"],
    "no-blocked-layout": ["--no-blocked-layout"],
    "no-fusion-no-blocked": ["--no-fusion", "--no-blocked-layout"],
    "compiled": ["--compiled"],
}
COMPILED_EVERY = 10  # the compiled-library config runs every tenth model only


# ---- Model generation ----------------------------------------------------------------------

class Value:
    """A tensor of the graph being built: its name, static shape and element type."""

    def __init__(self, name, shape, dtype=np.float32):
        self.name, self.shape, self.dtype = name, tuple(int(d) for d in shape), dtype

    @property
    def rank(self):
        return len(self.shape)


class GenerationFailed(Exception):
    """A template does not apply to the chosen values."""


class ModelBuilder:
    """Builds one random model: graph inputs with their data, initializers, nodes."""

    def __init__(self, rng):
        self.rng = rng
        self.nodes, self.inputs, self.inits = [], [], []
        self.input_data = {}
        self.values = []          # float values that templates may consume
        self.terminal = []        # outputs nothing may read: (name, elem type, shape)
        self.consumed = set()
        self.counter = 0

    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    # -- leaves --
    def graph_input(self, shape, low=-2.0, high=2.0):
        """A float input; its values lie on a grid of 1/8 offset by 1/16 (exact in float32,
        at least 1/16 away from integers, half-integers and zero)."""
        v = Value(self.fresh("in"), shape)
        steps = self.rng.integers(int(low * 8), int(high * 8), size=v.shape)
        self.input_data[v.name] = (steps / 8.0 + 1 / 16).astype(np.float32)
        self.inputs.append(v)
        self.values.append(v)
        return v

    def const(self, array, prefix="c"):
        array = np.asarray(array)
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        v = Value(self.fresh(prefix), array.shape, array.dtype.type)
        self.inits.append(numpy_helper.from_array(array, v.name))
        return v

    def ints(self, values):
        return self.const(np.array(values, dtype=np.int64), "shape")

    def weights(self, shape, fan_in):
        scale = 1.0 / np.sqrt(max(fan_in, 1))
        return self.const(self.rng.uniform(-scale, scale, size=shape).astype(np.float32), "w")

    def uniform(self, shape, low, high):
        return self.const(self.rng.uniform(low, high, size=shape).astype(np.float32))

    # -- nodes --
    def op(self, op_type, inputs, out_shapes, dtypes=None, **attrs):
        """Adds a node; returns its output values (float unless `dtypes` says otherwise)."""
        outs = [Value(self.fresh("v"), s, (dtypes or [np.float32] * len(out_shapes))[k])
                for k, s in enumerate(out_shapes)]
        names = [i.name if i is not None else "" for i in inputs]
        self.nodes.append(helper.make_node(op_type, names, [o.name for o in outs],
                                           name=self.fresh(op_type + "_"), **attrs))
        for i in inputs:
            if i is not None:
                self.consumed.add(i.name)
        self.values.extend(o for o in outs if o.dtype == np.float32)
        return outs

    def op1(self, op_type, inputs, shape, **attrs):
        return self.op(op_type, inputs, [shape], **attrs)[0]

    # -- choosing operands --
    def pick(self, accept=lambda v: True):
        """A float value, most often a recent one (deep chains), sometimes an older one (DAGs)."""
        candidates = [v for v in self.values if v.rank >= 1 and accept(v)]
        if not candidates:
            raise GenerationFailed()
        weights = np.array([1.6 ** k for k in range(len(candidates))])
        return candidates[self.rng.choice(len(candidates), p=weights / weights.sum())]

    def choice(self, options):
        return options[self.rng.integers(len(options))]

    def chance(self, p):
        return self.rng.random() < p

    def model(self):
        """The model; its outputs are the values nothing consumes and, now and then, a value
        that other nodes also read (it must then be kept whole, not only fused). Now and then
        the inputs declare a symbolic first extent, as exported models declare the batch
        (tessel then takes the extents of the data it is given)."""
        computed = [v for v in self.values if v.name not in self.input_data]
        outputs = [v for v in computed if v.name not in self.consumed or self.chance(0.05)]
        symbolic = self.chance(0.3)
        inputs = [helper.make_tensor_value_info(
            v.name, TensorProto.FLOAT, (f"n{k}",) + v.shape[1:] if symbolic else v.shape)
            for k, v in enumerate(self.inputs)]
        graph = helper.make_graph(
            self.nodes, "fuzz", inputs,
            [helper.make_tensor_value_info(v.name, TensorProto.FLOAT, v.shape) for v in outputs] +
            [helper.make_tensor_value_info(*t) for t in self.terminal],
            self.inits)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                 ir_version=8, producer_name="fuzz-models")


def broadcast_shape(a, b):
    rank = max(len(a), len(b))
    a, b = (1,) * (rank - len(a)) + tuple(a), (1,) * (rank - len(b)) + tuple(b)
    return tuple(max(x, y) for x, y in zip(a, b))


def is4d(v):
    return v.rank == 4


def is_seq(v):
    return v.rank in (2, 3)


# Guards keep values inside each operator's domain: the results are positive (and at least
# about 0.1) whatever the input, so Log, Sqrt, Div, Reciprocal and Pow stay well conditioned.
def positive(b, x):
    kind = b.choice(["abs", "square", "sigmoid", "exp", "softplus"])
    if kind == "abs":
        t = b.op1("Abs", [x], x.shape)
    elif kind == "square":
        t = b.op1("Mul", [x, x], x.shape)
    elif kind == "sigmoid":
        t = b.op1("Sigmoid", [x], x.shape)
    elif kind == "exp":
        t = b.op1("Exp", [b.op1("Tanh", [x], x.shape)], x.shape)
    else:
        t = b.op1("Softplus", [x], x.shape)
    return b.op1("Add", [t, b.const(np.float32(b.choice([0.25, 0.5, 1.0])))], x.shape)


def bounded(b, x):
    """x squashed into a modest range (Exp's argument)."""
    if b.chance(0.5):
        return b.op1("Tanh", [x], x.shape)
    return b.op1("Clip", [x, b.const(np.float32(-3)), b.const(np.float32(3))], x.shape)


# ---- Templates: each adds a few nodes consuming existing values ------------------------------

UNARY_SAFE = ["Relu", "Sigmoid", "Tanh", "Abs", "Neg", "Erf", "Softsign", "Softplus", "Sin",
              "Cos", "Atan", "HardSwish", "Identity"]


def t_unary(b):
    x = b.pick()
    op = b.choice(UNARY_SAFE + ["LeakyRelu", "Elu", "Selu", "HardSigmoid", "Celu", "Clip",
                                "Exp", "Log", "Sqrt", "Reciprocal", "Pow", "Gelu-erf"])
    if op == "LeakyRelu":
        return b.op1(op, [x], x.shape, alpha=float(b.choice([0.01, 0.1, 0.2])))
    if op in ("Elu", "Celu"):
        return b.op1(op, [x], x.shape, alpha=float(b.choice([1.0, 0.5])))
    if op == "Selu":
        return b.op1(op, [x], x.shape)
    if op == "HardSigmoid":
        return b.op1(op, [x], x.shape, alpha=float(b.choice([0.2, 1 / 6])), beta=0.5)
    if op == "Clip":
        lo, hi = b.choice([(0.0, 6.0), (-1.0, 1.0), (-0.5, 2.0)])
        bounds = [b.const(np.float32(lo)), b.const(np.float32(hi))]
        if b.chance(0.3):
            bounds = [bounds[0], None] if b.chance(0.5) else [None, bounds[1]]
        return b.op1("Clip", [x] + bounds, x.shape)
    if op == "Exp":
        return b.op1("Exp", [bounded(b, x)], x.shape)
    if op in ("Log", "Sqrt", "Reciprocal"):
        return b.op1(op, [positive(b, x)], x.shape)
    if op == "Pow":
        exponent = b.choice([2.0, 3.0, 0.5, 1.5, -1.0])
        base = x if exponent in (2.0, 3.0) and b.chance(0.5) else positive(b, x)
        return b.op1("Pow", [base, b.const(np.float32(exponent))], x.shape)
    if op == "Gelu-erf":
        return gelu(b, x)
    return b.op1(op, [x], x.shape)


def gelu(b, x):
    """The Erf form of GELU as torch.onnx.export writes it (tessel rewrites it into Gelu)."""
    d = b.op1("Div", [x, b.const(np.float32(1.4142135))], x.shape)
    e = b.op1("Add", [b.op1("Erf", [d], x.shape), b.const(np.float32(1.0))], x.shape)
    m = b.op1("Mul", [x, e], x.shape)
    return b.op1("Mul", [m, b.const(np.float32(0.5))], x.shape)


def activation(b, x):
    kind = b.choice(["Relu", "swish", "Clip6", "Sigmoid", "LeakyRelu", "HardSwish", "gelu",
                     "Tanh", "none"])
    if kind == "swish":
        return b.op1("Mul", [x, b.op1("Sigmoid", [x], x.shape)], x.shape)
    if kind == "Clip6":
        return b.op1("Clip", [x, b.const(np.float32(0)), b.const(np.float32(6))], x.shape)
    if kind == "LeakyRelu":
        return b.op1("LeakyRelu", [x], x.shape, alpha=0.1)
    if kind == "gelu":
        return gelu(b, x)
    if kind == "none":
        return x
    return b.op1(kind, [x], x.shape)


def broadcast_operand(b, x):
    """Another operand for a binary op on x: a same-shaped value or a broadcast constant."""
    same = [v for v in b.values if v.shape == x.shape and v is not x]
    if same and b.chance(0.5):
        return b.pick(lambda v: v.shape == x.shape and v is not x)
    kind = b.choice(["scalar", "last", "channel", "channel", "full", "leading1", "trailing2",
                     "some1"])
    if kind == "scalar":
        shape = ()
    elif kind == "last":
        shape = (x.shape[-1],)
    elif kind == "channel" and x.rank >= 3:
        shape = (x.shape[1],) + (1,) * (x.rank - 2)
        if b.chance(0.5):
            shape = (1,) + shape
    elif kind == "leading1":
        shape = (1,) + x.shape[1:]
    elif kind == "trailing2" and x.rank >= 2:
        shape = x.shape[-2:]
    elif kind == "some1":  # ones in random places, e.g. [N, 1, H, 1]
        shape = tuple(1 if b.chance(0.5) else d for d in x.shape)
    else:
        shape = x.shape
    if b.chance(0.3) and shape:
        return b.graph_input(shape)
    return b.uniform(shape, -1.5, 1.5)


def t_binary(b):
    x = b.pick()
    y = broadcast_operand(b, x)
    if b.chance(0.5):
        x, y = y, x
    shape = broadcast_shape(x.shape, y.shape)
    op = b.choice(["Add", "Sub", "Mul", "Max", "Min", "Div", "Sum", "Mean", "PRelu"])
    if op == "Div":
        return b.op1("Div", [x, positive(b, y)], shape)
    if op in ("Sum", "Mean"):
        third = b.uniform(shape[-1:], -1, 1)
        return b.op1(op, [x, y, third], shape)
    if op == "PRelu":
        if y.shape != shape and broadcast_shape(y.shape, x.shape) == x.shape:
            return b.op1("PRelu", [x, y], x.shape)
        op = "Add"
    return b.op1(op, [x, y], shape)


def t_image_input(b):
    n = b.choice([1, 1, 2, 3])
    c = b.choice([1, 3, 4, 5, 8, 16, 17])
    h = b.choice([1, 5, 7, 8, 12, 16, 19])
    w = h if b.chance(0.7) else b.choice([6, 9, 14, 23])
    return b.graph_input((n, c, h, w))


def conv_out(size, k, stride, dilation, pad_total):
    return (size + pad_total - dilation * (k - 1) - 1) // stride + 1


def conv(b, x, out_c=None, k=None, stride=None, group=None, pads_same=False):
    n, c, h, w = x.shape
    k = k or b.choice([1, 1, 3, 3, 3, 5])
    stride = stride or b.choice([1, 1, 1, 2])
    dilation = 2 if k == 3 and b.chance(0.1) else 1  # ONNX Runtime: not with auto_pad
    out_c = out_c or b.choice([3, 4, 6, 8, 8, 13, 16, 16, 24, 32, 40])
    if group is None:
        r = b.rng.random()
        if r < 0.2:
            group, out_c = c, c * b.choice([1, 1, 2])          # depthwise
        elif r < 0.3 and c % 2 == 0 and out_c % 2 == 0:
            group = 2
        elif r < 0.35 and c % 4 == 0 and out_c % 4 == 0:
            group = 4
        else:
            group = 1
    attrs = dict(kernel_shape=[k, k], strides=[stride, stride])
    if dilation > 1:
        attrs["dilations"] = [dilation, dilation]
    if group > 1:
        attrs["group"] = group
    eff = dilation * (k - 1)
    mode = "same" if pads_same else b.choice(["same", "same", "explicit", "asym", "valid"] + (
        ["auto_upper", "auto_lower"] if dilation == 1 else []))
    if mode in ("auto_upper", "auto_lower"):
        attrs["auto_pad"] = "SAME_UPPER" if mode == "auto_upper" else "SAME_LOWER"
        oh, ow = -(-h // stride), -(-w // stride)
    else:
        if mode == "same":
            pads = [eff // 2, eff // 2, eff // 2, eff // 2]
        elif mode == "explicit":
            p = b.choice([0, 1, 2])
            pads = [p, p, p, p]
        elif mode == "asym":
            pads = [int(b.rng.integers(0, 3)) for _ in range(4)]
        else:
            pads = [0, 0, 0, 0]
        attrs["pads"] = pads
        oh = conv_out(h, k, stride, dilation, pads[0] + pads[2])
        ow = conv_out(w, k, stride, dilation, pads[1] + pads[3])
    if oh < 1 or ow < 1:
        raise GenerationFailed()
    wt = b.weights((out_c, c // group, k, k), c // group * k * k)
    inputs = [x, wt]
    if b.chance(0.7):
        inputs.append(b.uniform((out_c,), -0.5, 0.5))
    return b.op1("Conv", inputs, (n, out_c, oh, ow), **attrs)


def batch_norm(b, x):
    c = x.shape[1]
    params = [b.uniform((c,), 0.5, 1.5), b.uniform((c,), -0.5, 0.5),
              b.uniform((c,), -0.5, 0.5), b.uniform((c,), 0.5, 2.0)]
    return b.op1("BatchNormalization", [x] + params, x.shape,
                 epsilon=float(b.choice([1e-5, 1e-3])))


def t_conv_block(b):
    x = b.pick(is4d)
    y = conv(b, x)
    if b.chance(0.5):
        y = batch_norm(b, y)
    elif b.chance(0.3):
        c = y.shape[1]
        y = b.op1("Mul", [y, b.uniform((c, 1, 1), 0.5, 1.5)], y.shape)
        y = b.op1("Add", [y, b.uniform((c, 1, 1), -0.5, 0.5)], y.shape)
    return activation(b, y)


def t_residual(b):
    x = b.pick(is4d)
    c = x.shape[1]
    y = activation(b, conv(b, x, out_c=c, k=3, stride=1, group=1, pads_same=True))
    y = conv(b, y, out_c=c, k=b.choice([1, 3]), stride=1, group=1, pads_same=True)
    if b.chance(0.5):
        y = batch_norm(b, y)
    y = b.op1("Add", [y, x] if b.chance(0.5) else [x, y], x.shape)
    return activation(b, y)


def t_concat_convs(b):
    x = b.pick(is4d)
    branches = []
    for _ in range(b.choice([2, 2, 3])):
        k = b.choice([1, 3, 5])
        branches.append(activation(b, conv(b, x, k=k, stride=1, group=1, pads_same=True)))
    if b.chance(0.3):
        branches.append(x)
    n, _, h, w = x.shape
    return b.op1("Concat", branches, (n, sum(v.shape[1] for v in branches), h, w), axis=1)


def t_concat(b):
    x = b.pick()
    axis = int(b.rng.integers(x.rank))
    others = [v for v in b.values if v is not x and v.rank == x.rank and all(
        v.shape[d] == x.shape[d] for d in range(x.rank) if d != axis)]
    parts = [x] + ([b.choice(others)] if others and b.chance(0.7) else
                   [b.uniform(x.shape[:axis] + (2,) + x.shape[axis + 1:], -1, 1)])
    shape = list(x.shape)
    shape[axis] = sum(p.shape[axis] for p in parts)
    return b.op1("Concat", parts, shape, axis=axis - x.rank if b.chance(0.3) else axis)


def t_squeeze_excite(b):
    x = b.pick(is4d)
    n, c, h, w = x.shape
    mid = max(2, c // 4)
    s = b.op1("GlobalAveragePool", [x], (n, c, 1, 1))
    s = conv(b, s, out_c=mid, k=1, stride=1, group=1, pads_same=True)
    s = b.op1("Relu", [s], (n, mid, 1, 1))
    s = conv(b, s, out_c=c, k=1, stride=1, group=1, pads_same=True)
    s = b.op1(b.choice(["Sigmoid", "HardSigmoid"]), [s], (n, c, 1, 1))
    return b.op1("Mul", [x, s], x.shape)


def t_pool(b):
    x = b.pick(is4d)
    n, c, h, w = x.shape
    op = b.choice(["MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "LpPool"])
    if op.startswith("Global"):
        return b.op1(op, [x], (n, c, 1, 1))
    k = b.choice([2, 3])
    stride = b.choice([1, 2, 2])
    p = b.choice([0, 0, 1]) if k == 3 else 0
    ceil = 1 if op != "LpPool" and b.chance(0.25) else 0
    pads = [p, p, p, p]
    if not ceil and b.chance(0.2):  # asymmetric, as exporters write for "same" pooling
        pads = [0, 0, 1, 1] if k == 2 else [p, p, p + 1, p + 1]
    attrs = dict(kernel_shape=[k, k], strides=[stride, stride], pads=pads)
    if ceil:
        attrs["ceil_mode"] = 1
    if op == "AveragePool" and p and b.chance(0.5):
        attrs["count_include_pad"] = 1
    if op == "LpPool":
        attrs["p"] = 2
    if ceil:
        oh = -(-(h + 2 * p - k) // stride) + 1
        ow = -(-(w + 2 * p - k) // stride) + 1
        # ONNX drops a last window that would start in the right padding.
        oh -= (oh - 1) * stride >= h + p
        ow -= (ow - 1) * stride >= w + p
    else:
        oh = (h + pads[0] + pads[2] - k) // stride + 1
        ow = (w + pads[1] + pads[3] - k) // stride + 1
    if oh < 1 or ow < 1 or max(pads) >= k:
        raise GenerationFailed()
    return b.op1(op, [x], (n, c, oh, ow), **attrs)


def t_norm(b):
    x = b.pick(is4d)
    c = x.shape[1]
    op = b.choice(["InstanceNormalization", "LRN", "BatchNormalization", "MeanVarianceNormalization"])
    if op == "InstanceNormalization":
        return b.op1(op, [x, b.uniform((c,), 0.5, 1.5), b.uniform((c,), -0.5, 0.5)], x.shape,
                     epsilon=1e-3)
    if op == "LRN":
        return b.op1(op, [x], x.shape, size=b.choice([3, 5]), alpha=1e-2, beta=0.75, bias=1.0)
    if op == "MeanVarianceNormalization":
        return b.op1(op, [b.op1("Add", [x, b.graph_input(x.shape)], x.shape)], x.shape)
    return batch_norm(b, x)


def float32_nearest_agrees(length, size):
    """Whether ONNX Runtime's float32 map of nearest, asymmetric, floor resizing from
    `length` to `size` (x / float32(size / length)) picks the input index of the exact map
    floor(x * length / size) for every x: 16 / float32(64 / 60) is 14.999999, not 15."""
    x = np.arange(size, dtype=np.float32)
    ort = np.floor(x / (np.float32(size) / np.float32(length))).astype(np.int64)
    return np.array_equal(ort, np.arange(size) * length // size)


def t_resize(b):
    x = b.pick(lambda v: is4d(v) and v.shape[2] * v.shape[3] <= 256)
    n, c, h, w = x.shape
    mode = b.choice(["nearest", "linear", "linear", "cubic"])
    attrs = dict(mode=mode)
    if mode == "nearest":
        attrs["coordinate_transformation_mode"] = "asymmetric"
        attrs["nearest_mode"] = "floor"
    else:
        attrs["coordinate_transformation_mode"] = b.choice(["half_pixel", "align_corners",
                                                            "asymmetric", "pytorch_half_pixel"])
    if b.chance(0.5):
        scale = 0.5 if h % 2 == 0 and w % 2 == 0 and b.chance(0.3) else 2.0
        scales = b.const(np.array([1, 1, scale, scale], dtype=np.float32))
        return b.op1("Resize", [x, None, scales], (n, c, int(h * scale), int(w * scale)), **attrs)
    size = (n, c, h + int(b.rng.integers(1, 6)), w + int(b.rng.integers(-min(w - 1, 3), 6)))
    if mode == "nearest" and not (float32_nearest_agrees(h, size[2]) and
                                  float32_nearest_agrees(w, size[3])):
        raise GenerationFailed()  # ONNX Runtime's rounding, not the specification's map
    return b.op1("Resize", [x, None, None, b.ints(size)], size, **attrs)


def t_pad(b):
    x = b.pick(lambda v: v.rank >= 2 and min(v.shape[-2:]) >= 3)
    r = x.rank
    pads = [0] * (2 * r)
    for d in (r - 2, r - 1) if r != 4 or b.chance(0.7) else (1,):  # (1,): the channels
        pads[d], pads[d + r] = int(b.rng.integers(0, 3)), int(b.rng.integers(0, 3))
    mode = b.choice(["constant", "reflect", "edge"])
    if mode == "reflect" and any(pads[d] >= x.shape[d] or pads[d + r] >= x.shape[d]
                                 for d in range(r)):
        mode = "edge"
    inputs = [x, b.ints(pads)]
    if mode == "constant" and b.chance(0.5):
        inputs.append(b.const(np.float32(b.choice([0.0, 0.5, -1.0]))))
    shape = tuple(x.shape[d] + pads[d] + pads[d + r] for d in range(r))
    return b.op1("Pad", inputs, shape, mode=mode)


def t_depth_space(b):
    x = b.pick(is4d)
    n, c, h, w = x.shape
    if h % 2 == 0 and w % 2 == 0 and (c % 4 or b.chance(0.5)):
        return b.op1("SpaceToDepth", [x], (n, 4 * c, h // 2, w // 2), blocksize=2)
    if c % 4:
        raise GenerationFailed()
    return b.op1("DepthToSpace", [x], (n, c // 4, 2 * h, 2 * w), blocksize=2,
                 mode=b.choice(["DCR", "CRD"]))


def t_channel_ops(b):
    """Operators that work across the channels of a convolution's output (the blocked
    layout must convert or handle them): slices, gathers, splits, softmax, reductions, a
    channel shuffle."""
    x = conv(b, b.pick(is4d))
    n, c, h, w = x.shape
    kind = b.choice(["slice", "gather", "split", "softmax", "reduce", "transpose", "reshape",
                     "shuffle"])
    groups = [g for g in (2, 3, 4) if c % g == 0 and c > g]
    if kind == "slice" and c >= 2:
        start = int(b.rng.integers(0, c - 1))
        y = b.op1("Slice", [x, b.ints([start]), b.ints([c]), b.ints([1])], (n, c - start, h, w))
    elif kind == "gather":
        idx = b.const(b.rng.integers(0, c, size=(b.choice([1, 3, 5]),)).astype(np.int64), "idx")
        y = b.op1("Gather", [x, idx], (n, idx.shape[0], h, w), axis=1)
    elif kind == "split" and c >= 2:
        first = int(b.rng.integers(1, c))
        outs = b.op("Split", [x, b.ints([first, c - first])],
                    [(n, first, h, w), (n, c - first, h, w)], axis=1)
        y = outs[int(b.rng.integers(2))]
    elif kind == "softmax":
        y = b.op1(b.choice(["Softmax", "LogSoftmax"]), [x], x.shape, axis=1)
    elif kind == "reduce":
        y = b.op1(b.choice(["ReduceMean", "ReduceMax", "ReduceL2"]), [x], (n, 1, h, w),
                  axes=[1], keepdims=1)
    elif kind == "transpose":
        y = b.op1("Transpose", [x], (n, h, w, c), perm=[0, 2, 3, 1])
    elif kind == "shuffle" and groups:
        g = b.choice(groups)
        split = b.op1("Reshape", [x, b.ints([n, g, c // g, h, w])], (n, g, c // g, h, w))
        swapped = b.op1("Transpose", [split], (n, c // g, g, h, w), perm=[0, 2, 1, 3, 4])
        y = b.op1("Reshape", [swapped, b.ints([n, c, h, w])], (n, c, h, w))
    else:
        y = b.op1("Reshape", [x, b.ints([n, c, h * w])], (n, c, h * w))
    return activation(b, y)


def t_image_head(b):
    x = b.pick(is4d)
    n, c, h, w = x.shape
    if b.chance(0.5):
        x = b.op1("GlobalAveragePool", [x], (n, c, 1, 1))
        feats = c
    else:
        feats = c * h * w
        if feats > 2048:
            raise GenerationFailed()
    f = b.op1("Flatten", [x], (n, feats), axis=1)
    classes = b.choice([10, 16, 5])
    y = b.op1("Gemm", [f, b.weights((classes, feats), feats), b.uniform((classes,), -0.5, 0.5)],
              (n, classes), transB=1)
    if b.chance(0.5):
        y = b.op1(b.choice(["Softmax", "LogSoftmax"]), [y], y.shape, axis=-1)
    return y


def t_image_to_sequence(b):
    x = b.pick(lambda v: is4d(v) and v.shape[2] * v.shape[3] <= 256)
    n, c, h, w = x.shape
    r = b.op1("Reshape", [x, b.ints([n, c, -1] if b.chance(0.5) else [0, 0, h * w])],
              (n, c, h * w))
    return b.op1("Transpose", [r], (n, h * w, c), perm=[0, 2, 1])


def t_sequence_input(b):
    shape = b.choice([(2, 8, 16), (1, 12, 32), (4, 6, 8), (8, 24), (3, 5, 12), (1, 7, 33),
                      (2, 3, 65), (13, 20), (1, 16, 64)])
    return b.graph_input(shape)


def t_linear(b):
    x = b.pick(is_seq)
    d = x.shape[-1]
    d2 = b.choice([8, 16, 32, 24, 5, 17, 48])
    if x.rank == 2 and b.chance(0.5):
        trans = b.chance(0.5)
        wt = b.weights((d2, d) if trans else (d, d2), d)
        inputs = [x, wt]
        if b.chance(0.8):
            inputs.append(b.uniform(b.choice([(d2,), (1, d2), (x.shape[0], d2)]), -0.5, 0.5))
        trans_a = b.chance(0.2)
        if trans_a:
            inputs[0] = b.op1("Transpose", [x], x.shape[::-1], perm=[1, 0])
        y = b.op1("Gemm", inputs, (x.shape[0], d2), transA=int(trans_a), transB=int(trans),
                  alpha=float(b.choice([1.0, 0.5])), beta=float(b.choice([1.0, 2.0])))
    else:
        y = b.op1("MatMul", [x, b.weights((d, d2), d)], x.shape[:-1] + (d2,))
        if b.chance(0.8):
            y = b.op1("Add", [y, b.uniform((d2,), -0.5, 0.5)] if b.chance(0.7)
                      else [b.uniform((d2,), -0.5, 0.5), y], y.shape)
    return activation(b, y)


def t_matmul(b):
    """MatMul of two computed values (batched, broadcast)."""
    x = b.pick(lambda v: v.rank >= 2)
    k = x.shape[-1]
    others = [v for v in b.values if v.rank >= 2 and v.shape[-2] == k and v is not x and
              _batch_broadcasts(x.shape[:-2], v.shape[:-2])]
    y = b.choice(others) if others and b.chance(0.6) else b.weights(
        (x.shape[:-2] if b.chance(0.3) else ()) + (k, b.choice([4, 8, 12])), k)
    batch = broadcast_shape(x.shape[:-2], y.shape[:-2])
    return b.op1("MatMul", [x, y], batch + (x.shape[-2], y.shape[-1]))


def _batch_broadcasts(a, c):
    return all(p == q or p == 1 or q == 1 for p, q in zip(a[::-1], c[::-1]))


def t_layer_norm(b):
    x = b.pick(lambda v: v.rank >= 2 and v.shape[-1] >= 4)
    d = x.shape[-1]
    if b.chance(0.5):
        inputs = [x, b.uniform((d,), 0.5, 1.5)]
        if b.chance(0.7):
            inputs.append(b.uniform((d,), -0.5, 0.5))
        return b.op1("LayerNormalization", inputs, x.shape, axis=-1,
                     epsilon=float(b.choice([1e-5, 1e-3])))
    # The ReduceMean form that tessel recognises.
    reduced = x.shape[:-1] + (1,)
    mean = b.op1("ReduceMean", [x], reduced, axes=[-1])
    diff = b.op1("Sub", [x, mean], x.shape)
    sq = b.op1("Pow", [diff, b.const(np.float32(2.0))], x.shape)
    var = b.op1("ReduceMean", [sq], reduced, axes=[-1])
    std = b.op1("Sqrt", [b.op1("Add", [var, b.const(np.float32(1e-5))], reduced)], reduced)
    y = b.op1("Div", [diff, std], x.shape)
    if b.chance(0.7):
        y = b.op1("Mul", [y, b.uniform((d,), 0.5, 1.5)], x.shape)
        y = b.op1("Add", [y, b.uniform((d,), -0.5, 0.5)], x.shape)
    return y


def t_attention(b):
    x = b.pick(lambda v: v.rank == 3 and v.shape[-1] % 2 == 0)
    n, s, d = x.shape
    heads = 2 if d % 4 else b.choice([2, 4])
    dh = d // heads

    def project():
        p = b.op1("MatMul", [x, b.weights((d, d), d)], x.shape)
        p = b.op1("Add", [p, b.uniform((d,), -0.2, 0.2)], x.shape)
        p = b.op1("Reshape", [p, b.ints([n, s, heads, dh])], (n, s, heads, dh))
        return p

    q = b.op1("Transpose", [project()], (n, heads, s, dh), perm=[0, 2, 1, 3])
    k = b.op1("Transpose", [project()], (n, heads, dh, s), perm=[0, 2, 3, 1])
    v = b.op1("Transpose", [project()], (n, heads, s, dh), perm=[0, 2, 1, 3])
    scores = b.op1("MatMul", [q, k], (n, heads, s, s))
    if b.chance(0.5):
        scores = b.op1("Mul", [scores, b.const(np.float32(1 / np.sqrt(dh)))], scores.shape)
    else:
        scores = b.op1("Div", [scores, b.const(np.float32(np.sqrt(dh)))], scores.shape)
    probs = b.op1("Softmax", [scores], scores.shape, axis=-1)
    ctx = b.op1("MatMul", [probs, v], (n, heads, s, dh))
    ctx = b.op1("Transpose", [ctx], (n, s, heads, dh), perm=[0, 2, 1, 3])
    ctx = b.op1("Reshape", [ctx, b.ints([n, s, d])], (n, s, d))
    return b.op1("Add", [ctx, x], x.shape)


def t_softmax(b):
    x = b.pick(lambda v: v.rank >= 2)
    axis = int(b.rng.integers(-x.rank, x.rank))
    return b.op1(b.choice(["Softmax", "Softmax", "LogSoftmax", "Hardmax"]) if x.name in
                 b.input_data else b.choice(["Softmax", "LogSoftmax"]), [x], x.shape, axis=axis)


def t_reduce(b):
    x = b.pick(lambda v: v.rank >= 2)
    count = int(b.rng.integers(1, x.rank))
    axes = sorted(int(a) for a in b.rng.choice(x.rank, size=count, replace=False))
    keep = int(b.chance(0.6))
    shape = tuple((1 if d in axes else s) for d, s in enumerate(x.shape) if keep or d not in axes)
    op = b.choice(["ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceL2", "ReduceL1",
                   "ReduceSumSquare", "ReduceLogSumExp", "ReduceProd", "ReduceLogSum"])
    axes_attr = [a - x.rank if b.chance(0.3) else a for a in axes]
    if op == "ReduceLogSum":
        x = positive(b, x)
    elif op == "ReduceLogSumExp":
        x = bounded(b, x)
    elif op == "ReduceProd":
        if int(np.prod([x.shape[a] for a in axes])) > 8:
            op = "ReduceMean"
        else:
            x = b.op1("Add", [b.op1("Sigmoid", [x], x.shape), b.const(np.float32(0.5))], x.shape)
    if op == "ReduceSum":  # opset 13: the axes are an input
        return b.op1(op, [x, b.ints(axes_attr)], shape, keepdims=keep)
    return b.op1(op, [x], shape, axes=axes_attr, keepdims=keep)


def t_transpose(b):
    x = b.pick(lambda v: v.rank >= 2)
    perm = [int(p) for p in b.rng.permutation(x.rank)]
    y = b.op1("Transpose", [x], tuple(x.shape[p] for p in perm), perm=perm)
    if b.chance(0.3):  # a chain that tessel merges (or cancels)
        back = [int(p) for p in np.argsort(perm)] if b.chance(0.5) else \
            [int(p) for p in b.rng.permutation(x.rank)]
        y = b.op1("Transpose", [y], tuple(y.shape[p] for p in back), perm=back)
    return y


def factorization(rng, total, rank):
    """A random shape of `rank` dimensions with `total` elements."""
    dims = []
    rest = total
    for _ in range(rank - 1):
        divisors = [d for d in range(1, rest + 1) if rest % d == 0]
        dims.append(divisors[rng.integers(len(divisors))])
        rest //= dims[-1]
    return dims + [rest]


def t_reshape(b):
    x = b.pick()
    total = int(np.prod(x.shape))
    kind = b.choice(["reshape", "flatten", "unsqueeze", "squeeze"])
    if kind == "flatten" and x.rank >= 2:
        axis = int(b.rng.integers(0, x.rank + 1))
        outer = int(np.prod(x.shape[:axis]))
        return b.op1("Flatten", [x], (outer, total // outer), axis=axis)
    if kind == "unsqueeze" and x.rank <= 4:
        axis = int(b.rng.integers(0, x.rank + 1))
        shape = x.shape[:axis] + (1,) + x.shape[axis:]
        return b.op1("Unsqueeze", [x, b.ints([axis])], shape)
    if kind == "squeeze" and 1 in x.shape:
        axes = [d for d, s in enumerate(x.shape) if s == 1]
        return b.op1("Squeeze", [x, b.ints(axes)], tuple(s for s in x.shape if s != 1))
    rank = b.choice([2, 3, 4])
    shape = factorization(b.rng, total, rank)
    b.rng.shuffle(shape)
    spec = list(shape)
    if b.chance(0.4):
        spec[int(b.rng.integers(rank))] = -1
    if b.chance(0.2) and rank == x.rank and shape[0] == x.shape[0]:
        spec[0] = 0
    return b.op1("Reshape", [x, b.ints(spec)], tuple(shape))


def pick_divisible_axis(b):
    """A value, one of its axes of 2 or more elements and that axis' size (GenerationFailed
    when the drawn axis is shorter)."""
    x = b.pick()
    axis = int(b.rng.integers(x.rank))
    size = x.shape[axis]
    if size < 2:
        raise GenerationFailed()
    return x, axis, size


def t_slice(b):
    x, axis, size = pick_divisible_axis(b)
    step = b.choice([1, 1, 2, -1])
    if step > 0:
        start = int(b.rng.integers(0, size - 1))
        end = int(b.rng.integers(start + 1, size + 1))
        length = len(range(start, end, step))
        end_spec = end if b.chance(0.7) else (2 ** 62 if end == size else end - size)
    else:
        start = int(b.rng.integers(1, size))
        end = int(b.rng.integers(-1, start))
        length = len(range(start, end, -1))
        end_spec = end if end >= 0 else -(2 ** 62)
    shape = list(x.shape)
    shape[axis] = length
    inputs = [x, b.ints([start]), b.ints([end_spec]), b.ints([axis if b.chance(0.7) else axis - x.rank])]
    if step != 1 or b.chance(0.5):
        inputs.append(b.ints([step]))
    return b.op1("Slice", inputs, shape)


def t_split(b):
    x, axis, size = pick_divisible_axis(b)
    first = int(b.rng.integers(1, size))
    parts = [first, size - first]
    shapes = [x.shape[:axis] + (p,) + x.shape[axis + 1:] for p in parts]
    outs = b.op("Split", [x, b.ints(parts)], shapes, axis=axis)
    return outs[-1]


def t_sequence(b):
    """A list of tensors: a split into a sequence, an element inserted or erased, then one
    element taken or the list concatenated (or stacked) back; tessel resolves the list at
    compile time."""
    x = b.pick(lambda v: any(d >= 2 for d in v.shape))
    axis = b.choice([a for a, d in enumerate(x.shape) if d >= 2])
    size = x.shape[axis]
    if b.chance(0.5):
        first = int(b.rng.integers(1, size))
        parts = [first, size - first]
        split = [b.ints(parts)]
    else:
        parts = [1] * size
        split = []
    keep = bool(split) or b.chance(0.5)
    shapes = [x.shape[:axis] + ((p,) if keep else ()) + x.shape[axis + 1:] for p in parts]
    seq = b.fresh("seq")
    b.nodes.append(helper.make_node("SplitToSequence", [x.name] + [v.name for v in split], [seq],
                                    axis=axis, keepdims=int(keep), name=b.fresh("SplitToSequence_")))
    b.consumed.add(x.name)
    if b.chance(0.5):  # a constant like the first element inserted somewhere
        position = int(b.rng.integers(-len(shapes), len(shapes) + 1))
        extra = b.uniform(shapes[0], -1.0, 1.0)
        longer = b.fresh("seq")
        b.nodes.append(helper.make_node("SequenceInsert", [seq, extra.name,
                                                           b.const(np.int64(position)).name],
                                        [longer], name=b.fresh("SequenceInsert_")))
        shapes.insert(position if position >= 0 else len(shapes) + position, shapes[0])
        seq = longer
    if b.chance(0.3) and len(shapes) > 1:
        position = int(b.rng.integers(-len(shapes), len(shapes)))
        shorter = b.fresh("seq")
        b.nodes.append(helper.make_node("SequenceErase", [seq, b.const(np.int64(position)).name],
                                        [shorter], name=b.fresh("SequenceErase_")))
        del shapes[position]
        seq = shorter
    if b.chance(0.4):
        k = int(b.rng.integers(-len(shapes), len(shapes)))
        out = Value(b.fresh("v"), shapes[k])
        b.nodes.append(helper.make_node("SequenceAt", [seq, b.const(np.int64(k)).name], [out.name],
                                        name=b.fresh("SequenceAt_")))
    elif len(set(shapes)) == 1 and b.chance(0.5):  # stacked along a new axis
        at = int(b.rng.integers(0, len(shapes[0]) + 1))
        out = Value(b.fresh("v"), shapes[0][:at] + (len(shapes),) + shapes[0][at:])
        b.nodes.append(helper.make_node("ConcatFromSequence", [seq], [out.name], axis=at,
                                        new_axis=1, name=b.fresh("ConcatFromSequence_")))
    else:
        if not keep:
            raise GenerationFailed()
        total = sum(s[axis] for s in shapes)
        out = Value(b.fresh("v"), x.shape[:axis] + (total,) + x.shape[axis + 1:])
        b.nodes.append(helper.make_node("ConcatFromSequence", [seq], [out.name], axis=axis,
                                        name=b.fresh("ConcatFromSequence_")))
    b.values.append(out)
    return out


def t_gather(b):
    x = b.pick(lambda v: v.rank >= 1)
    axis = int(b.rng.integers(x.rank))
    size = x.shape[axis]
    if b.chance(0.2):  # a scalar index removes the axis
        idx = b.const(np.int64(b.rng.integers(-size, size)), "idx")
        shape = x.shape[:axis] + x.shape[axis + 1:]
    else:
        count = b.choice([1, 2, 3, 5])
        idx = b.const(b.rng.integers(-size, size, size=(count,)).astype(np.int64), "idx")
        shape = x.shape[:axis] + (count,) + x.shape[axis + 1:]
    if b.chance(0.2) and x.rank >= 2:
        idx2 = b.const(b.rng.integers(0, size, size=x.shape).astype(np.int64), "idx")
        return b.op1("GatherElements", [x, idx2], x.shape, axis=axis)
    return b.op1("Gather", [x, idx], shape, axis=axis)


def t_expand_tile(b):
    x = b.pick(lambda v: v.rank <= 3 and np.prod(v.shape) <= 512)
    if b.chance(0.5):
        reps = [b.choice([1, 2]) for _ in x.shape]
        return b.op1("Tile", [x, b.ints(reps)], tuple(s * r for s, r in zip(x.shape, reps)))
    target = (2,) + tuple(s if s != 1 or b.chance(0.5) else 3 for s in x.shape)
    return b.op1("Expand", [x, b.ints(target)], target)


def t_cumsum(b):
    x = b.pick()
    axis = int(b.rng.integers(x.rank))
    return b.op1("CumSum", [x, b.const(np.int64(axis), "axis")], x.shape,
                 exclusive=int(b.chance(0.3)), reverse=int(b.chance(0.3)))


def t_where(b):
    """A mask from comparing graph inputs (exact values: no rounding near the threshold)."""
    x = b.pick()
    a = b.graph_input(x.shape if b.chance(0.6) else x.shape[-1:])
    op = b.choice(["Greater", "Less", "GreaterOrEqual", "LessOrEqual", "Equal"])
    threshold = b.const(np.float32(b.choice([0.0, 0.5, -0.25]) + (0.0625 if op == "Equal" else 0)))
    mask = b.op(op, [a, threshold], [a.shape], dtypes=[np.bool_])[0]
    if b.chance(0.3):
        other = b.op(b.choice(["Less", "Greater"]), [a, b.const(np.float32(1.0))], [a.shape],
                     dtypes=[np.bool_])[0]
        op2 = b.choice(["And", "Or", "Xor"])
        mask = b.op(op2, [mask, other], [a.shape], dtypes=[np.bool_])[0]
        if b.chance(0.3):
            mask = b.op("Not", [mask], [a.shape], dtypes=[np.bool_])[0]
    y = b.choice([b.const(np.float32(-1.0)), b.uniform(x.shape[-1:], -1, 1)])
    if b.chance(0.5):
        return b.op1("Where", [mask, x, y], broadcast_shape(x.shape, a.shape))
    return b.op1("Where", [mask, y, x], broadcast_shape(x.shape, a.shape))


def t_discrete(b):
    """Rounding operators on a graph input (exact values, away from the rounding points)."""
    x = b.pick()
    a = b.graph_input(x.shape, -4.0, 4.0)
    op = b.choice(["Floor", "Ceil", "Round", "Sign", "cast", "Shrink", "ThresholdedRelu", "Mod"])
    if op == "cast":
        i = b.op("Cast", [a], [a.shape], dtypes=[np.int64], to=TensorProto.INT64)[0]
        r = b.op1("Cast", [i], a.shape, to=TensorProto.FLOAT)
    elif op == "Shrink":
        r = b.op1("Shrink", [a], a.shape, lambd=0.5, bias=float(b.choice([0.0, 0.5])))
    elif op == "ThresholdedRelu":
        r = b.op1("ThresholdedRelu", [a], a.shape, alpha=1.0)
    elif op == "Mod":
        r = b.op1("Mod", [a, b.const(np.float32(b.choice([1.0, 2.0])))], a.shape, fmod=1)
    else:
        r = b.op1(op, [a], a.shape)
    return b.op1(b.choice(["Add", "Mul"]), [x, r], x.shape)


def t_argmax(b):
    """ArgMax over a graph input of distinct values, used as gathered indices."""
    x = b.pick(lambda v: v.rank >= 2)
    n = x.shape[0]
    width = b.choice([4, 6, 8])
    a = b.graph_input((n, width))
    # Distinct values in each row (a permutation of the grid), so that no ties are possible.
    b.input_data[a.name] = np.stack([b.rng.permutation(width) / 8.0 + 1 / 16
                                     for _ in range(n)]).astype(np.float32)
    op = b.choice(["ArgMax", "ArgMin"])
    idx = b.op(op, [a], [(n,)], dtypes=[np.int64], axis=1, keepdims=0)[0]
    m = b.op1("Cast", [idx], (n,), to=TensorProto.FLOAT)
    m = b.op1("Reshape", [m, b.ints([n] + [1] * (x.rank - 1))], (n,) + (1,) * (x.rank - 1))
    return b.op1("Add", [x, m], x.shape)


def t_topk(b):
    x = b.pick(lambda v: v.rank >= 1 and v.shape[-1] >= 3)
    k = int(b.rng.integers(1, x.shape[-1]))
    shape = x.shape[:-1] + (k,)
    values, _ = b.op("TopK", [x, b.ints([k])], [shape, shape], dtypes=[np.float32, np.int64],
                     axis=-1, largest=int(b.chance(0.7)))
    return values


def t_conv_transpose(b):
    x = b.pick(lambda v: is4d(v) and v.shape[2] * v.shape[3] <= 144)
    n, c, h, w = x.shape
    k, stride = b.choice([(2, 2), (3, 2), (3, 1), (4, 2)])
    p = b.choice([0, 1]) if k > 2 else 0
    out_c = b.choice([4, 8])
    inputs = [x, b.weights((c, out_c, k, k), c * k * k / stride ** 2)]
    if b.chance(0.5):
        inputs.append(b.uniform((out_c,), -0.5, 0.5))
    oh, ow = (h - 1) * stride + k - 2 * p, (w - 1) * stride + k - 2 * p
    return b.op1("ConvTranspose", inputs, (n, out_c, oh, ow), kernel_shape=[k, k],
                 strides=[stride, stride], pads=[p, p, p, p])


def t_integer(b):
    """Integer arithmetic on int64 values made from a graph input (division truncates toward
    zero, Mod takes the divisor's sign), cast back to float."""
    x = b.pick()
    a = b.graph_input(x.shape if b.chance(0.7) else x.shape[-1:], -8.0, 8.0)
    i = b.op("Cast", [b.op1("Floor", [a], a.shape)], [a.shape], dtypes=[np.int64],
             to=TensorProto.INT64)[0]
    for _ in range(int(b.rng.integers(1, 4))):
        op = b.choice(["Add", "Sub", "Mul", "Div", "Mod", "Max", "Min", "Abs", "Neg"])
        if op in ("Abs", "Neg"):
            i = b.op(op, [i], [a.shape], dtypes=[np.int64])[0]
            continue
        divisor = int(b.choice([-3, -2, 2, 3, 5]))
        attrs = dict(fmod=int(b.chance(0.3))) if op == "Mod" else {}
        i = b.op(op, [i, b.const(np.int64(divisor), "k")], [a.shape], dtypes=[np.int64],
                 **attrs)[0]
    r = b.op1("Cast", [i], a.shape, to=TensorProto.FLOAT)
    r = b.op1("Mul", [r, b.const(np.float32(0.125))], a.shape)
    return b.op1("Add", [x, r], broadcast_shape(x.shape, a.shape))


def t_recurrent(b):
    """RNN, GRU or LSTM over a [seq, batch, input] value: every direction, now and then
    sequence lengths, initial states, peepholes, other activations, a clip or GRU's
    linear_before_reset. Y continues; Y_h (and Y_c) too. Not layout 1: ONNX Runtime's CPU
    kernels refuse it (the node suite's *_batchwise cases cover it)."""
    x = b.pick(lambda v: v.rank == 3 and v.shape[0] * v.shape[1] <= 64 and v.shape[2] <= 64)
    op = b.choice(["RNN", "GRU", "LSTM"])
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
    hidden = b.choice([3, 4, 8, 16, 5])
    direction = b.choice(["forward", "reverse", "bidirectional"])
    dirs = 2 if direction == "bidirectional" else 1
    seq, batch, width = x.shape
    attrs = dict(hidden_size=hidden, direction=direction)
    if op == "GRU":
        attrs["linear_before_reset"] = int(b.chance(0.5))
    if b.chance(0.2):
        attrs["clip"] = float(b.choice([0.5, 2.0]))
    if b.chance(0.2):  # another activation per direction (RNN one, GRU two, LSTM three)
        per_direction = {"RNN": [b.choice(["Relu", "Sigmoid", "Tanh"])],
                         "GRU": [b.choice(["Sigmoid", "HardSigmoid"]), "Tanh"],
                         "LSTM": [b.choice(["Sigmoid", "HardSigmoid"]), "Tanh",
                                  b.choice(["Tanh", "Relu"])]}[op]
        attrs["activations"] = per_direction * dirs
    inputs = [x, b.weights((dirs, gates * hidden, width), width),
              b.weights((dirs, gates * hidden, hidden), hidden)]
    optional = []
    if b.chance(0.7):
        optional.append(("B", b.weights((dirs, 2 * gates * hidden), hidden)))
    if b.chance(0.4):
        lengths = b.rng.integers(1, seq + 1, size=batch).astype(np.int32)
        optional.append(("sequence_lens", b.const(lengths, "lens")))
    state = (dirs, batch, hidden)
    if b.chance(0.4):
        optional.append(("initial_h", b.uniform(state, -1, 1)))
    if op == "LSTM" and b.chance(0.4):
        optional.append(("initial_c", b.uniform(state, -1, 1)))
    if op == "LSTM" and b.chance(0.3):
        optional.append(("P", b.weights((dirs, 3 * hidden), hidden)))
    slots = {"RNN": ["B", "sequence_lens", "initial_h"], "GRU": ["B", "sequence_lens", "initial_h"],
             "LSTM": ["B", "sequence_lens", "initial_h", "initial_c", "P"]}[op]
    given = dict(optional)
    last = max([slots.index(name) for name in given] + [-1])
    inputs += [given.get(name) for name in slots[:last + 1]]
    shapes = [(seq, dirs, batch, hidden), state] + ([state] if op == "LSTM" else [])
    return b.op(op, inputs, shapes, **attrs)[0]


def quantized(b, shape, low, high):
    """A uint8 tensor quantized from a graph input, with its scale and zero point (a scale of
    1/8 puts every value of the input's grid on a tie, which rounds to even)."""
    a = b.graph_input(shape, low, high)
    scale = b.const(np.float32(0.125))
    zero = b.const(np.array(b.choice([0, 64, 128]), dtype=np.uint8), "zero")
    return b.op("QuantizeLinear", [a, scale, zero], [shape], dtypes=[np.uint8])[0], scale, zero


def t_quantized(b):
    """MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv on quantized graph inputs and
    uint8 weights; the results dequantized and added to an existing value."""
    op = b.choice(["MatMulInteger", "ConvInteger", "QLinearMatMul", "QLinearConv"])
    conv = op in ("ConvInteger", "QLinearConv")
    x = b.pick(is4d if conv else lambda v: v.rank >= 2 and v.shape[-1] <= 64)
    if conv:
        n, c, h, w = x.shape
        k = b.choice([1, 3])
        out_c = b.choice([4, 8, 13])
        pad = k // 2
        shape_in, shape_w, shape = (n, c, h, w), (out_c, c, k, k), (n, out_c, h, w)
        attrs = dict(pads=[pad] * 4)
    else:
        d = x.shape[-1]
        shape_in, shape_w = x.shape, (d, b.choice([4, 8, 16, 7]))
        shape = x.shape[:-1] + shape_w[-1:]
        attrs = {}
    q, q_scale, q_zero = quantized(b, shape_in, -4.0, 4.0)
    zero_point = b.choice([0, 100, 128])
    w_zero = b.const(np.array(zero_point, dtype=np.uint8), "zero")
    levels = b.rng.integers(max(0, zero_point - 30), zero_point + 31, size=shape_w)
    weight = b.const(levels.astype(np.uint8), "wq")
    w_scale_value = np.float32(b.choice([0.01, 0.02]))
    w_scale = b.const(w_scale_value)
    if op in ("MatMulInteger", "ConvInteger"):
        acc = b.op(op, [q, weight, q_zero, w_zero], [shape], dtypes=[np.int32], **attrs)[0]
        y = b.op1("Cast", [acc], shape, to=TensorProto.FLOAT)
        y = b.op1("Mul", [y, b.const(np.float32(0.125) * w_scale_value)], shape)
    else:
        # The output scale makes the requantization multiplier 1 / m with m odd: the integer
        # sum divided by m is never a tie, and at least 1 / (2m) from one (float32 rounding
        # of the multiplier would otherwise decide ties differently between implementations).
        m = b.choice([21, 45, 101, 201])
        y_scale = b.const(np.float32(0.125) * w_scale_value * np.float32(m))
        y_zero = b.const(np.array(128, dtype=np.uint8), "zero")
        args = [q, q_scale, q_zero, weight, w_scale, w_zero, y_scale, y_zero]
        r = b.op(op, args, [shape], dtypes=[np.uint8], **attrs)[0]
        y = b.op1("DequantizeLinear", [r, y_scale, y_zero], shape)
    return b.op1("Add", [x, y], shape) if x.shape == shape else y


def t_reduce_all(b):
    """A reduction over every axis (no axes): a rank-0 result broadcast back."""
    x = b.pick()
    s = b.op1(b.choice(["ReduceMean", "ReduceMax", "ReduceSum"]), [x], (), keepdims=0)
    return b.op1(b.choice(["Sub", "Add", "Mul"]), [x, s], x.shape)


def t_conv1d(b):
    x = b.pick(lambda v: v.rank == 3 and v.shape[-1] >= 3)
    n, c, length = x.shape
    k = b.choice([1, 3, 5])
    if k > length:
        raise GenerationFailed()
    out_c = b.choice([4, 8, 12])
    p = k // 2 if b.chance(0.7) else 0
    stride = b.choice([1, 1, 2])
    group = c if out_c % c == 0 and b.chance(0.2) else 1
    out_len = (length + 2 * p - k) // stride + 1
    inputs = [x, b.weights((out_c, c // group, k), c // group * k), b.uniform((out_c,), -0.5, 0.5)]
    y = b.op1("Conv", inputs, (n, out_c, out_len), kernel_shape=[k], pads=[p, p],
              strides=[stride], group=group)
    return activation(b, y)


def t_domain_unary(b):
    """Operators defined on part of the line, on an argument squashed into their domain."""
    x = b.pick()
    op = b.choice(["Tan", "Asin", "Acos", "Atanh", "Acosh", "Sinh", "Cosh", "Asinh"])
    if op == "Asinh":
        arg = x
    elif op == "Acosh":
        arg = b.op1("Add", [positive(b, x), b.const(np.float32(1.0))], x.shape)
    else:
        squashed = b.op1("Tanh", [x], x.shape)
        arg = b.op1("Mul", [squashed, b.const(np.float32(0.9 if op != "Tan" else 1.2))], x.shape)
    return b.op1(op, [arg], x.shape)


def t_misc(b):
    """Operators used less often in models: generators, scatters, quantisation, ..."""
    x = b.pick()
    kind = b.choice(["trilu", "shape", "range", "eyelike", "onehot", "gathernd",
                     "scatter_elements", "scatternd", "reverse_sequence", "dropout", "isnan",
                     "castlike", "global_lp", "lp_norm", "quantize", "compress"])
    if kind == "trilu" and x.rank >= 2:
        inputs = [x] + ([b.const(np.int64(b.choice([-1, 0, 1, 2])), "k")] if b.chance(0.6) else [])
        return b.op1("Trilu", inputs, x.shape, upper=int(b.chance(0.5)))
    if kind == "shape":
        shape = b.op("Shape", [x], [(x.rank,)], dtypes=[np.int64])[0]
        fill = b.op1("ConstantOfShape", [shape], x.shape,
                     value=numpy_helper.from_array(np.array([0.5], dtype=np.float32)))
        return b.op1("Mul", [x, fill], x.shape)
    if kind == "range":
        d = x.shape[-1]
        r = b.op1("Range", [b.const(np.float32(-1.0)), b.const(np.float32(-1.0 + 0.25 * d)),
                            b.const(np.float32(0.25))], (d,))
        return b.op1("Add", [x, r], x.shape)
    if kind == "eyelike" and x.rank == 2:
        eye = b.op1("EyeLike", [x], x.shape, k=int(b.rng.integers(-1, 2)))
        return b.op1("Add", [x, eye], x.shape)
    if kind == "onehot":
        depth = x.shape[-1]
        idx = b.const(b.rng.integers(-depth, depth, size=x.shape[:-1]).astype(np.int64), "idx")
        hot = b.op1("OneHot", [idx, b.const(np.int64(depth), "depth"),
                               b.const(np.array([-0.5, 2.0], dtype=np.float32))], x.shape)
        return b.op1("Mul", [x, hot], x.shape)
    if kind == "gathernd":
        k = b.choice([1, 2, 3])
        idx = b.const(b.rng.integers(0, x.shape[0], size=(k, 1)).astype(np.int64), "idx")
        return b.op1("GatherND", [x, idx], (k,) + x.shape[1:])
    if kind == "scatter_elements":
        axis = int(b.rng.integers(x.rank))
        # Each line along the axis a permutation: no two updates hit one element.
        perm = np.argsort(b.rng.random(x.shape), axis=axis).astype(np.int64)
        return b.op1("ScatterElements", [x, b.const(perm, "idx"), b.graph_input(x.shape)],
                     x.shape, axis=axis)
    if kind == "scatternd":
        k = int(b.rng.integers(1, x.shape[0] + 1))
        rows = b.rng.permutation(x.shape[0])[:k].reshape(k, 1).astype(np.int64)
        return b.op1("ScatterND", [x, b.const(rows, "idx"), b.graph_input((k,) + x.shape[1:])],
                     x.shape)
    if kind == "reverse_sequence" and x.rank >= 2:
        batch_axis = int(b.chance(0.5))
        lens = b.rng.integers(1, x.shape[1 - batch_axis] + 1, size=(x.shape[batch_axis],))
        return b.op1("ReverseSequence", [x, b.const(lens.astype(np.int64), "lens")], x.shape,
                     batch_axis=batch_axis, time_axis=1 - batch_axis)
    if kind == "dropout":
        return b.op1("Dropout", [x, b.const(np.float32(0.3))], x.shape)
    if kind == "isnan":
        nan = b.op(b.choice(["IsNaN", "IsInf"]), [x], [x.shape], dtypes=[np.bool_])[0]
        return b.op1("Where", [nan, b.const(np.float32(0.0)), x], x.shape)
    if kind == "castlike":
        return b.op1("CastLike", [x, b.const(np.float32(1.0))], x.shape)
    if kind == "global_lp" and x.rank == 4:
        return b.op1("GlobalLpPool", [x], x.shape[:2] + (1, 1), p=2)
    if kind == "lp_norm" and x.shape[-1] >= 4:
        return b.op1("LpNormalization", [positive(b, x)], x.shape, axis=-1, p=b.choice([1, 2]))
    if kind == "quantize":
        # On a graph input: its values are exact, and with a scale of 1/8 some lie on ties.
        a = b.graph_input(x.shape, -20.0, 20.0)
        scale = b.const(np.float32(b.choice([0.125, 0.25])))
        zero = b.const(np.array(b.choice([0, 128, 10]), dtype=np.uint8), "zero")
        q = b.op("QuantizeLinear", [a, scale, zero], [a.shape], dtypes=[np.uint8])[0]
        return b.op1("Add", [x, b.op1("DequantizeLinear", [q, scale, zero], a.shape)], x.shape)
    if kind == "compress":
        axis = int(b.rng.integers(x.rank))
        keep = b.rng.random(x.shape[axis]) < 0.6
        keep[0] = True
        shape = x.shape[:axis] + (int(keep.sum()),) + x.shape[axis + 1:]
        return b.op1("Compress", [x, b.const(keep, "cond")], shape, axis=axis)
    raise GenerationFailed()


def t_einsum(b):
    x = b.pick(lambda v: v.rank == 3)
    n, s, d = x.shape
    d2 = b.choice([4, 8])
    if b.chance(0.5):
        return b.op1("Einsum", [x, b.weights((d, d2), d)], (n, s, d2), equation="bij,jk->bik")
    return b.op1("Einsum", [x, x], (n, s, s), equation="bid,bjd->bij")


# (template, weight): image templates dominate, then sequence/matrix ones, then the rest.
def t_control_flow(b):
    """If, Loop or Scan whose small bodies read values of the main graph: an If on the sign
    of a sum, a Loop of 1 to 3 trips with a carried value and a scan output, or a Scan over
    the first axis (forward or reverse) with a running sum."""
    x = b.pick(lambda v: 1 <= v.rank and np.prod(v.shape) <= 4096)
    kind = b.choice(["If", "Loop", "Scan"])
    f32 = TensorProto.FLOAT

    def node(op, inputs, **attrs):
        out = b.fresh("b")
        return helper.make_node(op, inputs, [out], name=b.fresh(op + "_"), **attrs), out

    def info(name, shape, elem=f32):
        return helper.make_tensor_value_info(name, elem, shape)

    if kind == "If":
        total = b.op1("ReduceSum", [x], (), keepdims=0)
        cond = b.op("Greater", [total, b.const(np.float32(0))], [()], dtypes=[np.bool_])[0]
        w = b.uniform(x.shape[-1:], -1, 1)

        def branch(op):
            first, a = node(op, [x.name])
            second, out = node("Mul", [a, w.name])
            return helper.make_graph([first, second], b.fresh("branch"), [], [info(out, x.shape)])
        b.op1("If", [cond], x.shape, then_branch=branch(b.choice(["Tanh", "Relu", "Neg"])),
              else_branch=branch(b.choice(["Sigmoid", "Abs", "Exp"])))
        return
    if kind == "Loop":
        trips = int(b.rng.integers(1, 4))
        w = b.uniform(x.shape[-1:], -1, 1)
        i, c, h = b.fresh("i"), b.fresh("c"), b.fresh("h")
        cast, fi = node("Cast", [i], to=f32)
        mul, hw = node("Mul", [h, w.name])
        add, pre = node("Add", [hw, fi])
        tanh, h_out = node("Tanh", [pre])
        keep, c_out = node("Identity", [c])
        step, scanned = node("Add", [h, h_out])
        body = helper.make_graph([cast, mul, add, tanh, keep, step], b.fresh("body"),
                                 [info(i, [], TensorProto.INT64), info(c, [], TensorProto.BOOL),
                                  info(h, x.shape)],
                                 [info(c_out, [], TensorProto.BOOL), info(h_out, x.shape),
                                  info(scanned, x.shape)])
        b.op("Loop", [b.const(np.int64(trips)), b.const(np.bool_(True)), x],
             [x.shape, (trips,) + x.shape], body=body)
        return
    if x.rank < 2:
        raise GenerationFailed()
    state = x.shape[1:]
    k = b.uniform(state, -1, 1)
    s, xt = b.fresh("s"), b.fresh("x")
    mul, xk = node("Mul", [xt, k.name])
    add, s_out = node("Add", [s, xk])
    tanh, z = node("Tanh", [s_out])
    body = helper.make_graph([mul, add, tanh], b.fresh("body"), [info(s, state), info(xt, state)],
                             [info(s_out, state), info(z, state)])
    b.op("Scan", [b.const(np.zeros(state, np.float32)), x], [state, x.shape], body=body,
         num_scan_inputs=1, scan_input_directions=[int(b.chance(0.5))],
         scan_output_directions=[int(b.chance(0.5))])


def t_data_dependent(b):
    """An operator whose output extent depends on the data: NonZero of a mask, Compress by a
    condition or Unique of a graph input (exact on its grid of values). Kernels read only
    static shapes, so its results are model outputs (declared with a symbolic extent)."""
    x = b.choice(b.inputs)
    kind = b.choice(["NonZero", "Compress", "Compress_axis", "Unique"])
    outs = [b.fresh("d") for _ in range(4 if kind == "Unique" else 1)]
    if kind == "NonZero":
        mask = b.op("Greater", [x, b.const(np.float32(0))], [x.shape], dtypes=[np.bool_])[0]
        b.nodes.append(helper.make_node("NonZero", [mask.name], outs, name=b.fresh("NonZero_")))
        b.terminal.append((outs[0], TensorProto.INT64, [x.rank, "count"]))
    elif kind == "Compress":  # the positive elements, flattened
        mask = b.op("Greater", [x, b.const(np.float32(0))], [x.shape], dtypes=[np.bool_])[0]
        flat = b.op("Reshape", [mask, b.ints([-1])], [(int(np.prod(x.shape)),)],
                    dtypes=[np.bool_])[0]
        b.nodes.append(helper.make_node("Compress", [x.name, flat.name], outs,
                                        name=b.fresh("Compress_")))
        b.terminal.append((outs[0], TensorProto.FLOAT, ["count"]))
    elif kind == "Compress_axis":  # the slices along an axis whose maximum is positive
        axis = int(b.rng.integers(x.rank))
        others = [a for a in range(x.rank) if a != axis]
        peak = b.op("ReduceMax", [x], [(x.shape[axis],)], axes=others, keepdims=0)[0] \
            if others else x
        cond = b.op("Greater", [peak, b.const(np.float32(0))], [(x.shape[axis],)],
                    dtypes=[np.bool_])[0]
        b.nodes.append(helper.make_node("Compress", [x.name, cond.name], outs, axis=axis,
                                        name=b.fresh("Compress_")))
        b.terminal.append((outs[0], TensorProto.FLOAT,
                           [d if a != axis else "count" for a, d in enumerate(x.shape)]))
    else:
        sorted_ = int(b.chance(0.5))
        b.nodes.append(helper.make_node("Unique", [x.name], outs, sorted=sorted_,
                                        name=b.fresh("Unique_")))
        b.consumed.add(x.name)
        for name, elem in zip(outs, (TensorProto.FLOAT,) + (TensorProto.INT64,) * 3):
            b.terminal.append((name, elem, [int(np.prod(x.shape)) if name == outs[2] else "count"]))
    b.consumed.add(x.name)


TEMPLATES = [
    (t_conv_block, 10), (t_residual, 5), (t_concat_convs, 4), (t_squeeze_excite, 2),
    (t_pool, 5), (t_norm, 2), (t_channel_ops, 3), (t_resize, 1), (t_pad, 2), (t_depth_space, 1),
    (t_image_head, 2), (t_image_to_sequence, 2), (t_conv_transpose, 1),
    (t_linear, 6), (t_matmul, 2), (t_layer_norm, 3), (t_attention, 2), (t_softmax, 3),
    (t_einsum, 1),
    (t_unary, 8), (t_binary, 8), (t_concat, 3), (t_reduce, 3), (t_transpose, 3),
    (t_reshape, 3), (t_slice, 2), (t_split, 1), (t_gather, 2), (t_expand_tile, 1),
    (t_cumsum, 1), (t_where, 2), (t_discrete, 2), (t_argmax, 1), (t_topk, 1),
    (t_integer, 2), (t_reduce_all, 1), (t_conv1d, 2), (t_domain_unary, 1), (t_misc, 4),
    (t_control_flow, 2), (t_data_dependent, 1), (t_sequence, 1), (t_recurrent, 2),
    (t_quantized, 2),
]


def generate(seed, index, attempt, max_nodes):
    """A random model, with the data of its graph inputs."""
    rng = np.random.default_rng([seed, index, attempt])
    target = int(rng.integers(5, max_nodes + 1))
    b = ModelBuilder(rng)
    r = rng.random()
    if r < 0.55:
        t_image_input(b)
    elif r < 0.9:
        t_sequence_input(b)
    else:
        t_image_input(b)
        t_sequence_input(b)
    templates, weights = zip(*TEMPLATES)
    weights = np.array(weights, dtype=float)
    tries = 0
    while len(b.nodes) < target and tries < 400:
        tries += 1
        template = templates[rng.choice(len(templates), p=weights / weights.sum())]
        saved = (len(b.nodes), len(b.inputs), len(b.inits), len(b.values), set(b.consumed),
                 dict(b.input_data), len(b.terminal))
        try:
            template(b)
        except GenerationFailed:
            pass
        if len(b.nodes) > max_nodes or (saved[0] == len(b.nodes)):
            # Undo a template that failed or overshot the size limit.
            b.nodes, b.inputs, b.inits = (b.nodes[:saved[0]], b.inputs[:saved[1]],
                                          b.inits[:saved[2]])
            b.values, b.consumed, b.input_data = b.values[:saved[3]], saved[4], saved[5]
            b.terminal = b.terminal[:saved[6]]
            if len(b.nodes) >= 5 and tries > 50:
                break
    if len(b.nodes) < 5:
        raise GenerationFailed()
    return b.model(), {v.name: b.input_data[v.name] for v in b.inputs}


# ---- Reference values ------------------------------------------------------------------------

class Rejected(Exception):
    """A model that is not a fair test: ill-conditioned, out of range, or invalid."""


def ort_session_run(model_bytes, feeds, optimize):
    options = ort.SessionOptions()
    options.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimize
                                        else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, feeds)))


# ONNX Runtime runs in a worker process: an abort inside it (an assertion in its graph code)
# rejects that model instead of ending the run.
_ort_worker = None


def ort_run(model, feeds, optimize):
    global _ort_worker
    if _ort_worker is None:
        _ort_worker = concurrent.futures.ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("fork"))
    try:
        return _ort_worker.submit(ort_session_run, model.SerializeToString(), feeds,
                                  optimize).result()
    except concurrent.futures.process.BrokenProcessPool:
        _ort_worker = None
        raise RuntimeError("ONNX Runtime crashed") from None


def with_every_output(model):
    """A copy of `model` whose outputs are every value its nodes compute."""
    inferred = onnx.shape_inference.infer_shapes(model)
    types = {vi.name: vi.type for vi in list(inferred.graph.value_info) + list(model.graph.output)}
    full = onnx.ModelProto()
    full.CopyFrom(model)
    del full.graph.output[:]
    for node in model.graph.node:
        for name in node.output:
            if name and name in types and types[name].HasField("tensor_type"):
                vi = onnx.ValueInfoProto(name=name)
                vi.type.CopyFrom(types[name])
                full.graph.output.append(vi)
    return full


# Operators whose input (by position) must stay away from zero, with the least magnitude
# allowed: beyond it the result is ill-conditioned (or undefined) in float32.
DOMAIN_INPUT = {"Log": (0, 0.01), "Sqrt": (0, 1e-4), "Reciprocal": (0, 0.01), "Div": (1, 0.01),
                "Pow": (0, 0.01)}
COMPARISONS = ("Greater", "Less", "GreaterOrEqual", "LessOrEqual", "Equal")
# Periodic functions amplify the rounding of a large argument (a sum of a thousand terms,
# rounded in another order, moves cos(x * sum) by 1e-3): their argument stays this small.
PERIODIC_MAX_ARGUMENT = 32.0


def evaluate(model, feeds):
    """ONNX Runtime's outputs of `model` (optimised), and every intermediate value
    (unoptimised). Raises Rejected when the two disagree or a value is out of range."""
    try:
        onnx.checker.check_model(model)
        values = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        values.update(feeds)
        values.update(ort_run(with_every_output(model), feeds, optimize=False))
        expected = ort_run(model, feeds, optimize=True)
    except Exception as e:  # ONNX Runtime rejects the model: the generator is at fault
        raise Rejected(f"invalid model: {str(e).splitlines()[0][:200]}")
    for name, array in values.items():
        if array.dtype.kind == "f" and array.size:
            if not np.all(np.isfinite(array)) or np.abs(array).max() > MAX_MAGNITUDE:
                raise Rejected(f"value {name} out of range")
    for node in model.graph.node:
        if node.op_type not in DOMAIN_INPUT:
            continue
        k, least = DOMAIN_INPUT[node.op_type]
        if node.op_type == "Pow" and np.all(np.mod(values[node.input[1]], 1) == 0):
            continue  # an integer power is defined everywhere
        if np.abs(values[node.input[k]].astype(np.float64)).min(initial=np.inf) < least:
            raise Rejected(f"{node.op_type} {node.name} near its undefined domain")
    for node in model.graph.node:
        if node.op_type in ("Sin", "Cos", "Tan") and \
                np.abs(values[node.input[0]]).max(initial=0) > PERIODIC_MAX_ARGUMENT:
            raise Rejected(f"{node.op_type} {node.name} of a large argument")
    # A computed sum compared with a threshold (an If's condition) flips with the sum's
    # rounding when it lies near the threshold (a sum of normalised values, zero in exact
    # arithmetic): it must stay a thousandth of the summed magnitudes away.
    producers = {out: node for node in model.graph.node for out in node.output}
    for node in model.graph.node:
        source = producers.get(node.input[0]) if node.op_type in COMPARISONS else None
        if source is None or source.op_type != "ReduceSum":
            continue
        gap = np.abs(values[node.input[0]].astype(np.float64) - values[node.input[1]])
        scale = np.abs(values[source.input[0]].astype(np.float64)).sum()
        if gap.min(initial=np.inf) < 1e-3 * scale + ATOL:
            raise Rejected(f"{node.op_type} {node.name} compares a sum near its threshold")
    for name, array in expected.items():
        reference = values[name]
        if array.shape != reference.shape or not np.allclose(
                array, reference, rtol=RTOL / 10, atol=ATOL / 10, equal_nan=True):
            raise Rejected(f"ONNX Runtime disagrees with itself on {name}")
    return [expected[o.name] for o in model.graph.output], values


def write_case(case_dir, model, feeds, expected):
    if os.path.exists(case_dir):
        shutil.rmtree(case_dir)
    data_dir = os.path.join(case_dir, "test_data_set_0")
    os.makedirs(data_dir)
    onnx.save(model, os.path.join(case_dir, "model.onnx"))
    for k, vi in enumerate(model.graph.input):
        tensor = numpy_helper.from_array(feeds[vi.name], vi.name)
        with open(os.path.join(data_dir, f"input_{k}.pb"), "wb") as f:
            f.write(tensor.SerializeToString())
    for k, (vi, array) in enumerate(zip(model.graph.output, expected)):
        with open(os.path.join(data_dir, f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(array, vi.name).SerializeToString())


# ---- Running tessel --------------------------------------------------------------------------

OUTCOMES = ["pass", "mismatch", "error", "crash", "timeout", "unsupported"]
BUGS = {"mismatch", "error", "crash", "timeout"}


def classify(label, message):
    if label == "pass":
        return "pass"
    if label == "skip":  # a CompileError: fine when it says the feature is unsupported
        return "unsupported" if re.search(r"not supported|unsupported", message, re.I) else "error"
    if "crashed with signal" in message or "process exited with status" in message:
        return "crash"
    if message.startswith("timed out"):
        return "timeout"
    if "elements differ" in message or re.search(r"': (shape|dtype) ", message):
        return "mismatch"
    return "error"


def signature(outcome, message):
    """What a shrunk case must keep: its class, and for errors the gist of the message."""
    if outcome != "error":
        return outcome
    gist = re.sub(r"'[^']*'", "''", message)
    return "error: " + re.sub(r"[0-9]+", "N", gist)[:80]


def run_tessel(tessel, case_dirs, config, timeout):
    """Runs `tessel test-onnx` on the cases with one config; {case name: (outcome, message)}."""
    with tempfile.NamedTemporaryFile("r", suffix=".tsv") as report:
        command = [tessel, "test-onnx", *case_dirs, "--jobs", "1", "--timeout", str(timeout),
                   "--rtol", str(RTOL), "--atol", str(ATOL), "--report", report.name,
                   *CONFIGS[config]]
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=timeout * len(case_dirs) + 60)
        results = {}
        for line in report.read().splitlines():
            name, label, _ops, message = (line.split("\t", 3) + [""])[:4]
            results[name] = (classify(label, message), message)
    for case in case_dirs:  # a case the report lacks: test-onnx itself died
        results.setdefault(os.path.basename(case), ("crash", "test-onnx reported nothing"))
    return results


# ---- Shrinking ------------------------------------------------------------------------------

def rebuild(model, nodes, outputs, values):
    """A model of `nodes` computing `outputs`; nodes that do not contribute are dropped, and
    every value that is read but neither computed nor an initializer becomes a graph input
    (fed with `values`; `model`'s inputs keep their declarations). Returns (model, feeds)."""
    needed, kept = set(outputs), []
    for node in reversed(nodes):
        if any(o in needed for o in node.output):
            kept.append(node)
            needed.update(i for i in node.input if i)
    kept.reverse()
    computed = {o for node in kept for o in node.output}
    inits = [t for t in model.graph.initializer if t.name in needed and t.name not in computed]
    init_names = {t.name for t in inits}
    order = [i.name for i in model.graph.input] + sorted(needed)
    input_names = list(dict.fromkeys(
        n for n in order if n in needed and n not in computed and n not in init_names))

    declared = {vi.name: vi for vi in model.graph.input}  # keeps symbolic extents

    def info(name):
        if name in declared:
            return declared[name]
        array = values[name]
        return helper.make_tensor_value_info(
            name, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[array.dtype], array.shape)

    graph = helper.make_graph(kept, "fuzz", [info(n) for n in input_names],
                              [info(n) for n in outputs], inits)
    shrunk = helper.make_model(graph, opset_imports=list(model.opset_import),
                               ir_version=model.ir_version, producer_name="fuzz-models")
    return shrunk, {n: values[n] for n in input_names}


def shrink_candidates(model, values):
    """Smaller variants of `model`: each output alone, each value as the only output, and
    each node removed (its first output replaced by a same-shaped input of it, or its
    outputs fed as graph inputs)."""
    nodes = list(model.graph.node)
    outputs = [o.name for o in model.graph.output]
    if len(outputs) > 1:
        for k in range(len(outputs)):
            yield rebuild(model, nodes, outputs[:k] + outputs[k + 1:], values)
    for node in nodes:
        for name in node.output:
            if name in values and name not in outputs and values[name].dtype == np.float32:
                yield rebuild(model, nodes, [name], values)
    for k, node in enumerate(nodes):
        if any(o in outputs for o in node.output):
            continue
        rest = nodes[:k] + nodes[k + 1:]
        o = node.output[0]
        for i in dict.fromkeys(node.input):  # each input that can stand for the output
            if i in values and o in values and values[i].shape == values[o].shape and \
                    values[i].dtype == values[o].dtype:
                rewired = []
                for n in rest:
                    copy = onnx.NodeProto()
                    copy.CopyFrom(n)
                    for j, name in enumerate(copy.input):
                        copy.input[j] = i if name == o else name
                    rewired.append(copy)
                yield rebuild(model, rewired, outputs, values)
        yield rebuild(model, rest, outputs, values)


def shrink(tessel, model, feeds, config, wanted, work_dir, timeout, budget_s, batch):
    """The smallest variant of a failing case that still fails with signature `wanted`,
    found greedily: each round tries the candidates of the current case (smallest first) in
    one test-onnx run and keeps the smallest that still fails."""
    start = time.time()
    expected, values = evaluate(model, feeds)
    current = (model, feeds, expected)
    while time.time() - start < budget_s and len(current[0].graph.node) > 1:
        seen, candidates = set(), []
        for cand_model, cand_feeds in shrink_candidates(current[0], values):
            key = cand_model.graph.SerializeToString()
            if key in seen or len(cand_model.graph.node) == 0:
                continue
            seen.add(key)
            candidates.append((cand_model, cand_feeds))
        candidates.sort(key=lambda c: (len(c[0].graph.node), len(c[0].graph.input)))
        found = None
        for offset in range(0, len(candidates), batch):
            if time.time() - start > budget_s:
                break
            valid = {}
            shutil.rmtree(work_dir, ignore_errors=True)
            for k, (cand_model, cand_feeds) in enumerate(candidates[offset:offset + batch]):
                try:
                    cand_expected, _ = evaluate(cand_model, cand_feeds)
                except Rejected:
                    continue
                case = os.path.join(work_dir, f"c{k:04d}")
                write_case(case, cand_model, cand_feeds, cand_expected)
                valid[f"c{k:04d}"] = (cand_model, cand_feeds, cand_expected)
            if not valid:
                continue
            results = run_tessel(tessel, [os.path.join(work_dir, n) for n in sorted(valid)],
                                 config, timeout)
            failing = [n for n in sorted(valid) if signature(*results[n]) == wanted]
            if failing:
                found = valid[failing[0]]
                break
        if found is None:
            break
        current = found
        _, values = evaluate(current[0], current[1])
    return current


# ---- Driver ----------------------------------------------------------------------------------

def make_case(seed, index, max_nodes):
    """The first model for (seed, index) that is a fair test; (model, feeds, expected, rejected
    attempts)."""
    for attempt in range(20):
        try:
            model, feeds = generate(seed, index, attempt, max_nodes)
            expected, _ = evaluate(model, feeds)
            return model, feeds, expected, attempt
        except (GenerationFailed, Rejected):
            continue
    raise RuntimeError(f"no valid model for seed {seed} index {index}")


def keep_failure(args, out, name, case, config, outcome, message):
    """Shrinks a failing case and saves it, with a one-line README, and the original."""
    model, feeds = case
    rerun = run_tessel(args.tessel, [os.path.join(out, name)], config, args.timeout)[name]
    if signature(*rerun) != signature(outcome, message):
        print(f"  not reproduced on a rerun of {name} [{config}]: {rerun[0]}", flush=True)
        return
    work = tempfile.mkdtemp(prefix="fuzz-shrink-")
    small, small_feeds, small_expected = shrink(
        args.tessel, model, feeds, config, signature(outcome, message), work, args.timeout,
        args.shrink_budget, args.batch)
    shutil.rmtree(work, ignore_errors=True)
    target = os.path.join(args.keep_failures, f"{name}-{outcome}-{config}")
    write_case(target, small, small_feeds, small_expected)
    shutil.copytree(os.path.join(out, name), target + "-original", dirs_exist_ok=True)
    ops = sorted({n.op_type for n in small.graph.node})
    with open(os.path.join(target, "README"), "w") as f:
        f.write(f"{outcome} with config {config} (seed {args.seed}, model {name}), "
                f"{len(small.graph.node)} nodes ({', '.join(ops)}): {message[:300]}\n")
    print(f"  shrunk {name} [{config}] to {len(small.graph.node)} nodes ({', '.join(ops)}): "
          f"{target}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="folder for the cases (default: a temporary one)")
    parser.add_argument("--tessel", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin", "tessel"))
    parser.add_argument("--keep-failures", metavar="DIR",
                        help="shrink each failing case and save it (and the original) here")
    parser.add_argument("--configs", default="default,no-fusion,no-blocked-layout,"
                        "no-fusion-no-blocked,compiled",
                        help=f"comma-separated, of: {', '.join(CONFIGS)}")
    parser.add_argument("--batch", type=int, default=25, help="cases per test-onnx run")
    parser.add_argument("--max-nodes", type=int, default=60)
    parser.add_argument("--timeout", type=float, default=60, help="seconds per case")
    parser.add_argument("--shrink-budget", type=float, default=300, help="seconds per failure")
    args = parser.parse_args()
    configs = args.configs.split(",")
    for config in configs:
        if config not in CONFIGS:
            parser.error(f"unknown config {config}")
    if not os.access(args.tessel, os.X_OK):
        parser.error(f"no tessel program at {args.tessel} (see --tessel)")
    out = args.out or tempfile.mkdtemp(prefix="fuzz-models-")
    os.makedirs(out, exist_ok=True)
    print(f"seed {args.seed}, {args.count} models, cases in {out}, rtol {RTOL}, atol {ATOL}")

    counts = {c: collections.Counter() for c in configs}
    failures = []  # (name, config, outcome, message)
    shrunk = set()  # cases shrunk, and the messages of errors shrunk (one case each is enough)
    start = time.time()
    rejected = 0
    for first in range(0, args.count, args.batch):
        batch = {}
        for index in range(first, min(first + args.batch, args.count)):
            model, feeds, expected, attempts = make_case(args.seed, index, args.max_nodes)
            rejected += attempts
            name = f"s{args.seed}_m{index:05d}"
            write_case(os.path.join(out, name), model, feeds, expected)
            batch[name] = (index, model, feeds)
        new_failures = []
        for config in configs:
            names = [n for n, (i, _, _) in batch.items()
                     if config != "compiled" or i % COMPILED_EVERY == 0]
            if not names:
                continue
            results = run_tessel(args.tessel, [os.path.join(out, n) for n in names], config,
                                 args.timeout)
            for name in names:
                outcome, message = results[name]
                counts[config][outcome] += 1
                if outcome in BUGS:
                    new_failures.append((name, config, outcome, message))
                    print(f"  {outcome:9} {name} [{config}]: {message[:300]}", flush=True)
        failures += new_failures
        if args.keep_failures:
            for name, config, outcome, message in new_failures:
                key = signature(outcome, message) if outcome == "error" else name
                if key not in shrunk:
                    shrunk.add(key)
                    keep_failure(args, out, name, batch[name][1:], config, outcome, message)
        done = first + len(batch)
        minutes = (time.time() - start) / 60
        print(f"{done} models in {minutes:.1f} min ({done / minutes:.1f} models/min), "
              f"{len(failures)} failures", flush=True)

    minutes = (time.time() - start) / 60
    print(f"\n{args.count} models ({rejected} generated models rejected as unfair tests) in "
          f"{minutes:.1f} min; tolerance rtol {RTOL}, atol {ATOL}")
    print(f"{'config':22}" + "".join(f"{o:>12}" for o in OUTCOMES))
    for config in configs:
        print(f"{config:22}" + "".join(f"{counts[config][o]:>12}" for o in OUTCOMES))
    if not args.out:
        shutil.rmtree(out, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
