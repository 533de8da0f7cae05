#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (tests/fuzz/corpus/<target>/): small valid inputs
of each format, from which libFuzzer mutates. Run it again after a format changes:

    /usr/bin/python3 tests/fuzz/make-seeds.py
"""
import json
import os
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def write(target, name, data):
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(folder, name), mode) as f:
        f.write(data)


def model_bytes(nodes, inputs, outputs, initializers=(), opset=17):
    graph = helper.make_graph(nodes, "seed", inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return model.SerializeToString()


def value(name, shape, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def control_flow_models():
    """An If whose branches read main-graph values, a Loop with a carried value and a scan
    output whose body reads a main-graph constant."""
    then_branch = helper.make_graph([helper.make_node("Add", ["x", "w"], ["t"])], "then", [],
                                    [value("t", [2])])
    else_branch = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [],
                                    [value("e", [2])])
    w = numpy_helper.from_array(np.ones(2, dtype=np.float32), "w")
    yield "if_captures", model_bytes(
        [helper.make_node("If", ["c"], ["y"], then_branch=then_branch, else_branch=else_branch)],
        [value("c", [], TensorProto.BOOL), value("x", [2])], [value("y", [2])], [w])
    body = helper.make_graph(
        [helper.make_node("Mul", ["h", "w"], ["h2"]), helper.make_node("Identity", ["b"], ["b2"])],
        "body", [value("i", [], TensorProto.INT64), value("b", [], TensorProto.BOOL),
                 value("h", [2])], [value("b2", [], TensorProto.BOOL), value("h2", [2]),
                                    value("h2", [2])])
    m = numpy_helper.from_array(np.array(3, dtype=np.int64), "m")
    yield "loop_scan", model_bytes(
        [helper.make_node("Loop", ["m", "", "x"], ["h", "hs"], body=body)],
        [value("x", [2])], [value("h", [2]), value("hs", [3, 2])], [m, w])


def onnx_models():
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "b")
    yield "conv_relu", model_bytes(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], strides=[1, 1]),
         helper.make_node("Relu", ["c"], ["y"])],
        [value("x", [1, 3, 8, 8])], [value("y", [1, 4, 8, 8])], [w, b])
    m = numpy_helper.from_array(rng.standard_normal((8, 5)).astype(np.float32), "m")
    shape = numpy_helper.from_array(np.array([2, 10], dtype=np.int64), "shape")
    yield "matmul_softmax_reshape", model_bytes(
        [helper.make_node("MatMul", ["x", "m"], ["p"]),
         helper.make_node("Softmax", ["p"], ["s"], axis=-1),
         helper.make_node("Reshape", ["s", "shape"], ["y"])],
        [value("x", [4, 8])], [value("y", [2, 10])], [m, shape])
    yield "pool_concat", model_bytes(
        [helper.make_node("MaxPool", ["x"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
         helper.make_node("AveragePool", ["x"], ["q"], kernel_shape=[2, 2], strides=[2, 2]),
         helper.make_node("Concat", ["p", "q"], ["y"], axis=1)],
        [value("x", [1, 2, 4, 4])], [value("y", [1, 4, 2, 2])])
    axes = numpy_helper.from_array(np.array([1], dtype=np.int64), "axes")
    yield "gather_reduce_cast", model_bytes(
        [helper.make_node("Gather", ["x", "i"], ["g"], axis=0),
         helper.make_node("ReduceSum", ["g", "axes"], ["r"], keepdims=0),
         helper.make_node("Cast", ["r"], ["y"], to=TensorProto.INT32)],
        [value("x", [5, 3]), value("i", [2], TensorProto.INT64)],
        [value("y", [2], TensorProto.INT32)], [axes])


def external_data_models():
    """Initializers whose bytes live in weights.bin (the target provides a 4 KiB file)."""
    def external(name, shape, offset, length=None):
        t = TensorProto()
        t.name, t.data_type = name, TensorProto.FLOAT
        t.dims.extend(shape)
        t.data_location = TensorProto.EXTERNAL
        entries = {"location": "weights.bin", "offset": str(offset)}
        if length is not None:
            entries["length"] = str(length)
        for k, v in entries.items():
            e = t.external_data.add()
            e.key, e.value = k, v
        return t
    yield "add_external", model_bytes(
        [helper.make_node("Add", ["x", "w"], ["y"])], [value("x", [2, 4])], [value("y", [2, 4])],
        [external("w", [2, 4], 0, 32)])
    yield "matmul_external_offset", model_bytes(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], [value("x", [1, 16])],
        [value("y", [1, 8])], [external("w", [16, 8], 1024)])


def tensors():
    rng = np.random.default_rng(1)
    arrays = {"f32": rng.standard_normal((2, 3)).astype(np.float32),
              "i64": np.arange(6, dtype=np.int64).reshape(3, 2),
              "bool": np.array([True, False, True]),
              "f16": rng.standard_normal(4).astype(np.float16),
              "u8_scalar": np.array(7, dtype=np.uint8),
              "empty": np.zeros((0, 3), dtype=np.float32)}
    for name, a in arrays.items():
        yield name, a


def plans():
    """tessel model plans in the format of src/runtime/model_plan.cpp."""
    def string(s):
        b = s.encode()
        return struct.pack("<I", len(b)) + b

    def plan(name, tensors, inputs, outputs, steps, arena, weights, threads=0, batch=("", 0)):
        out = b"TSLPLAN\0" + struct.pack("<I", 6) + string(name)
        intermediate = sum(t[5] for t in tensors if t[3] == 2)
        out += struct.pack("<qqqi", arena, weights, intermediate, threads)
        out += string(batch[0]) + struct.pack("<q", batch[1])
        out += struct.pack("<I", len(tensors))
        for t in tensors:
            tname, code, bits, storage, shape, nbytes, offset = t[:7]
            batched = t[7] if len(t) > 7 else 0
            dynamic_dim = t[8] if len(t) > 8 else -1
            extent_of = t[9] if len(t) > 9 else -1
            out += string(tname) + struct.pack("<BBBI", code, bits, storage, len(shape))
            out += b"".join(struct.pack("<q", d) for d in shape)
            out += struct.pack("<qBii", offset, batched, dynamic_dim, extent_of)
        for ids in (inputs, outputs):
            out += struct.pack("<I", len(ids)) + b"".join(struct.pack("<i", i) for i in ids)
        out += struct.pack("<I", len(steps))
        for step in steps:
            kind, kernel, label, args, target, axis, flags, params, texts, block_rows = \
                step + (0, 0, 0, (), (), 0)[len(step) - 4:]
            out += struct.pack("<B", kind) + string(kernel) + string(label)
            out += struct.pack("<I", len(args)) + b"".join(struct.pack("<i", a) for a in args)
            out += struct.pack("<iiBi", target, axis, flags, block_rows)
            out += struct.pack("<I", len(params)) + b"".join(struct.pack("<q", v) for v in params)
            out += struct.pack("<I", len(texts)) + b"".join(string(t) for t in texts)
        return out
    # (name, dtype code (0 int, 1 uint, 2 float, 5 string), bits, storage (0 input, 1 weight, 2 arena),
    #  shape, bytes, offset[, batched[, dynamic dimension[, extent_of]]]); batch: (symbol,
    #  batch arena bytes per sample)
    f32 = (2, 32)
    # steps: (kind, kernel, label, args[, target, axis, flags, params, strings, block rows]);
    # kinds as runtime::StepKind (0 kernel, 1 copy, 2 jump unless, 3 jump, 4 loop test, 5 increment,
    # 6 slice in, 7 slice out, 8 NonZero, 9 Unique, 10 NonMaxSuppression, 13 StringNormalizer,
    # 14 CastString, 15 pad to bound, 16 trim from bound, 17 extent of), flags 1 reverse,
    # 2 all trips.
    f32, i64, boolean = (2, 32), (0, 64), (1, 1)
    yield "relu", plan("relu", [("x", *f32, 0, [1, 16], 64, 0), ("y", *f32, 2, [1, 16], 64, 0)],
                       [0], [1], [(0, "k0", "Relu", [0, 1])], 64, 0)
    yield "two_steps", plan(
        "mlp", [("x", *f32, 0, [1, 8], 32, 0), ("w", *f32, 1, [8, 8], 256, 0),
                ("h", *f32, 2, [1, 8], 32, 0), ("y", *f32, 2, [1, 8], 32, 64)],
        [0], [3], [(0, "k0", "MatMul", [0, 1, 2]), (0, "k1", "Relu", [2, 3])], 128, 256, 2)
    # A loop of 4 trips over x's rows: i = 0; test; slice in row i; relu; slice out; i += 1.
    yield "loop", plan(
        "loop", [("x", *f32, 0, [4, 8], 128, 0), ("zero", *i64, 1, [], 8, 0),
                 ("trips", *i64, 1, [], 8, 64), ("true", *boolean, 1, [], 1, 128),
                 ("i", *i64, 2, [], 8, 0), ("row", *f32, 2, [8], 32, 64),
                 ("out", *f32, 2, [8], 32, 128), ("y", *f32, 2, [4, 8], 128, 192)],
        [0], [7], [(1, "", "init", [1, 4]), (4, "", "test", [4, 2, 3], 7, 0, 2),
                   (6, "", "in", [0, 5, 4]), (0, "k0", "Relu", [5, 6]),
                   (7, "", "out", [6, 7, 4]), (5, "", "count", [4]), (3, "", "back", [], 1)],
        320, 192)
    # A symbolic batch: x and h batched (h in the batch arena), w an unbatched weight.
    yield "batched", plan(
        "batched", [("x", *f32, 0, [1, 8], 32, 0, 1), ("w", *f32, 1, [8, 8], 256, 0),
                    ("h", *f32, 2, [1, 8], 32, 0, 1)],
        [0], [2], [(0, "k0", "MatMul", [0, 1, 2])], 0, 256, 0, ("N", 64))
    # Data-dependent steps: NonZero of x (indices [2, up to 6], the count found at run time),
    # then Unique of x flattened and sorted (values, first indices, inverse, counts). Tensors
    # with a dynamic dimension live outside the arena (offset 0).
    yield "data_dependent", plan(
        "data_dependent", [("x", *f32, 0, [2, 3], 24, 0), ("nz", *i64, 2, [2, 6], 96, 0, 0, 1),
                           ("u", *f32, 2, [6], 24, 0, 0, 0), ("first", *i64, 2, [6], 48, 0, 0, 0),
                           ("inverse", *i64, 2, [6], 48, 0), ("counts", *i64, 2, [6], 48, 0, 0, 0)],
        [0], [1, 2, 3, 4, 5], [(8, "", "NonZero", [0, 1]),
                               (9, "", "Unique", [0, 2, 3, 4, 5], 0, 0, 0, (-1, 1))],
        64, 0)
    # A kernel reading NonZero's indices: padded into the arena ('nz.padded', its extent
    # that of 'nz'), cast by a kernel into 'c' (padded too), trimmed into the output.
    yield "padded", plan(
        "padded", [("x", *f32, 0, [2, 3], 24, 0), ("nz", *i64, 2, [2, 6], 96, 0, 0, 1),
                   ("nz.padded", *i64, 2, [2, 6], 96, 0, 0, 1, 1),
                   ("c", *f32, 2, [2, 6], 48, 128, 0, 1, 1),
                   ("c.compact", *f32, 2, [2, 6], 48, 0, 0, 1)],
        [0], [4], [(8, "", "NonZero", [0, 1]), (15, "", "pad nz", [1, 2]),
                   (0, "k0", "Cast", [2, 3]), (16, "", "trim c", [3, 4])],
        192, 0)
    # A kernel over blocks of 8 rows: NonZero of a [16] mask transposed ('rows', int64
    # [16, 1], padded along its leading dimension), doubled in blocks into 'twice'.
    yield "blocks", plan(
        "blocks", [("m", *f32, 0, [16], 64, 0), ("nz", *i64, 2, [1, 16], 128, 0, 0, 1),
                   ("nz.padded", *i64, 2, [1, 16], 128, 0, 0, 1, 1),
                   ("rows", *i64, 2, [16, 1], 128, 128, 0, 0, 1),
                   ("twice", *i64, 2, [16, 1], 128, 256, 0, 0, 1),
                   ("twice.compact", *i64, 2, [16, 1], 128, 0, 0, 0)],
        [0], [5], [(8, "", "NonZero", [0, 1]), (15, "", "pad nz", [1, 2]),
                   (0, "k0", "Transpose", [2, 3]),
                   (0, "k1", "Add", [3, 4], 0, 0, 0, (), (), 8),
                   (16, "", "trim twice", [4, 5])],
        384, 0)
    # Strings: x cast to text, then StringNormalizer (upper case, stop word "ONE") of the text.
    text = (5, 64)
    yield "strings", plan(
        "strings", [("x", *f32, 0, [4], 16, 0), ("t", *text, 2, [4], 32, 0),
                    ("kept", *text, 2, [4], 32, 0, 0, 0)],
        [0], [2], [(14, "", "Cast", [0, 1], 0, 0, 0, (5, 64)),
                   (13, "", "StringNormalizer", [1, 2], 0, 0, 0, (2, 0), ("ONE",))],
        64, 0)


def traces():
    def trace(*steps):
        return json.dumps({"version": 1, "steps": list(steps)})
    yield "tile_vectorize", trace(
        {"primitive": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 4, "y_factor": 4},
        {"primitive": "vectorize", "stage": "C", "loop": "j.inner"})
    yield "split_reorder_unroll", trace(
        {"primitive": "split", "stage": "C", "loop": "k", "factor": 2},
        {"primitive": "reorder", "stage": "C", "loops": ["i", "k.outer", "j", "k.inner"]},
        {"primitive": "unroll", "stage": "C", "loop": "k.inner"})
    yield "compute_at_parallel", trace(
        {"primitive": "split", "stage": "D", "loop": "i", "factor": 3},
        {"primitive": "compute_at", "stage": "C", "target": "D", "loop": "i.outer"},
        {"primitive": "parallel", "stage": "D", "loop": "i.outer"})
    yield "cache_write_fuse", trace(
        {"primitive": "cache_write", "tensor": "C", "scope": "local", "layout": None},
        {"primitive": "fuse", "stage": "D", "outer": "i", "inner": "j"})
    yield "cache_read_layout", trace(
        {"primitive": "cache_read", "tensor": "B", "scope": "local", "readers": ["C"],
         "layout": {"splits": [[1, 4]], "order": [1, 0, 2]}})
    yield "rfactor_inline", trace(
        {"primitive": "split", "stage": "C", "loop": "k", "factor": 2},
        {"primitive": "rfactor", "tensor": "C", "loop": "k.inner", "factor_axis": 0},
        {"primitive": "compute_root", "stage": "C"},
        {"primitive": "split_nparts", "stage": "D", "loop": "j", "nparts": 3})
    yield "inline", trace({"primitive": "compute_inline", "stage": "C"})


def records():
    line = {"task_key": "9f3a0c", "target": "llvm -mcpu=znver4 -lanes=16",
            "task_name": "MatMul 64x64x64", "template": "matmul",
            "point": {"tile_i": 4, "tile_j": 16}, "trace": json.loads(next(traces())[1]),
            "costs": [1.5e-05, 1.6e-05], "error": "", "features": [1.0, 0.5, 3.0],
            "timestamp": 1764000000.0, "version": "0.3.0"}
    failed = dict(line, costs=[], error="timed out after 10 s", point=None, trace=None)
    yield "two_lines", json.dumps(line) + "\n" + json.dumps(failed) + "\n"
    yield "one_line", json.dumps(line) + "\n"


def target_descriptions():
    """Target descriptions as --target takes them: shorthands, CPUs and feature switches."""
    return [
        ("host", "llvm"),
        ("avx2", "x86-64-avx2"),
        ("avx512_vnni", "x86-64-avx512 -mattr=+avx512vnni"),
        ("aarch64", "llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-v1 -mattr=-sve"),
        ("znver4", "llvm -mcpu=znver4 -mattr=-avx512f,+avxvnni"),
        ("riscv", "riscv64 -mattr=-v"),
        ("spr", "llvm -mtriple=x86_64-linux-gnu -mcpu=sapphirerapids -mattr=-amx-tile"),
    ]


def main():
    for name, data in list(onnx_models()) + list(control_flow_models()):
        write("onnx_model", name + ".onnx", data)
    for name, data in external_data_models():
        write("onnx_external_data", name + ".onnx", data)
    for name, a in tensors():
        write("tensor_pb", name + ".pb", numpy_helper.from_array(a, name).SerializeToString())
        folder = os.path.join(ROOT, "npy")
        os.makedirs(folder, exist_ok=True)
        np.save(os.path.join(folder, name + ".npy"), a)
    for name, data in plans():
        write("model_plan", name + ".plan", data)
    for name, text in traces():
        write("trace_json", name + ".json", text)
    for name, text in records():
        write("records_jsonl", name + ".jsonl", text)
    for name, text in target_descriptions():
        write("target_description", name, text)
    print("seeds written to", ROOT, file=sys.stderr)


if __name__ == "__main__":
    main()
