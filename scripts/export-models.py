#!/usr/bin/python3
"""Exports the benchmark models (scripts/tessel_models.py) to ONNX test cases.

usage: scripts/export-models.py --out DIR [--models a,b,...] [--force] [--batches 1,3,8]

Each model becomes DIR/<model>/model.onnx plus DIR/<model>/test_data_set_0/{input_<i>,output_0}.pb
(the ONNX backend test layout, so `tessel test-onnx DIR/<model>` checks it), holding random
inputs (one per model input, input_0 ... in order) and PyTorch's output. Weights are random
with a fixed seed; nothing is downloaded. With --batches, each model is exported instead
into DIR/<model>_batched with a symbolic leading dimension "N" on its inputs and output,
and one data set per batch size (`tessel test-onnx --symbolic-batch` runs them all through
one compiled model).
Models already exported are skipped unless --force. Needs Debian's python3-torch,
python3-torchvision and python3-onnx; when onnxruntime is importable (.venv), the export is
also checked against ONNX Runtime.
"""
import argparse
import os
import sys
import time

import onnx
import onnx.numpy_helper
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tessel_models  # noqa: E402

OPSET = 14


def write_tensor(path, array):
    with open(path, "wb") as f:
        f.write(onnx.numpy_helper.from_array(array).SerializeToString())


def ort_max_diff(model_path, input_arrays, expected):
    """Largest |ORT - PyTorch| on the exported model, or None without onnxruntime."""
    try:
        import onnxruntime
    except ImportError:
        return None
    session = onnxruntime.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    feed = {i.name: a for i, a in zip(session.get_inputs(), input_arrays)}
    actual = session.run(None, feed)[0]
    return float(abs(actual - expected).max())


def as_tuple(example):
    return example if isinstance(example, tuple) else (example,)


def export(name, out_dir, batches=None):
    """Exports `name`; with `batches`, with a symbolic batch and one data set per size.
    Returns the model's path, the first data set's output and inputs, and its operators."""
    model, example = tessel_models.build(name)
    examples = as_tuple(example)
    case_dir = os.path.join(out_dir, name + ("_batched" if batches else ""))
    os.makedirs(case_dir, exist_ok=True)
    model_path = os.path.join(case_dir, "model.onnx")
    # Exported with autograd enabled: under no_grad, nn.TransformerEncoder takes a fused fast
    # path that the exporter cannot trace.
    names = ["input"] if len(examples) == 1 else [f"input_{i}" for i in range(len(examples))]
    dynamic = {n: {0: "N"} for n in names + ["output"]} if batches else None
    torch.onnx.export(model, examples, model_path, opset_version=OPSET, input_names=names,
                      output_names=["output"], do_constant_folding=True, dynamic_axes=dynamic)
    onnx.checker.check_model(model_path)
    data_sets = []
    for k, batch in enumerate(batches or [1]):
        # A batch of `batch` samples, each drawn as the example was.
        inputs = examples if k == 0 and not batches else tuple(
            torch.cat(parts) for parts in zip(*(as_tuple(tessel_models.example_input(name))
                                                for _ in range(batch))))
        with torch.no_grad():
            expected = model(*inputs).numpy()
        data_dir = os.path.join(case_dir, f"test_data_set_{k}")
        os.makedirs(data_dir, exist_ok=True)
        for i, x in enumerate(inputs):
            write_tensor(os.path.join(data_dir, f"input_{i}.pb"), x.numpy())
        write_tensor(os.path.join(data_dir, "output_0.pb"), expected)
        data_sets.append((expected, [x.numpy() for x in inputs]))
    ops = sorted({node.op_type for node in onnx.load(model_path).graph.node})
    return model_path, data_sets[0][0], data_sets[0][1], ops


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--models", default=",".join(tessel_models.MODELS),
                        help="comma-separated model names (default: all)")
    parser.add_argument("--force", action="store_true", help="re-export existing models")
    parser.add_argument("--batches", help="comma-separated batch sizes: export with a symbolic "
                        "batch into <model>_batched, one data set per size")
    args = parser.parse_args()
    batches = [int(b) for b in args.batches.split(",")] if args.batches else None
    names = [n for n in args.models.split(",") if n]
    for name in names:
        if name not in tessel_models.MODELS:
            parser.error(f"unknown model '{name}'; known: {', '.join(tessel_models.MODELS)}")
    for name in names:
        case = name + ("_batched" if batches else "")
        model_path = os.path.join(args.out, case, "model.onnx")
        output_path = os.path.join(args.out, case, "test_data_set_0", "output_0.pb")
        if not args.force and os.path.exists(model_path) and os.path.exists(output_path):
            print(f"{case}: exists, skipped")
            continue
        start = time.perf_counter()
        model_path, expected, inputs, ops = export(name, args.out, batches)
        seconds = time.perf_counter() - start
        size_mb = os.path.getsize(model_path) / 2**20
        line = (f"{case}: {seconds:.1f} s, {size_mb:.1f} MiB, output {list(expected.shape)} "
                f"max|y| {abs(expected).max():.3g}, ops {','.join(ops)}")
        diff = ort_max_diff(model_path, inputs, expected)
        if diff is not None:
            line += f", max|ORT - torch| {diff:.3g}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
