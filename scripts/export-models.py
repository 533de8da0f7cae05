#!/usr/bin/python3
"""Exports the benchmark models (scripts/tessel_models.py) to ONNX test cases.

usage: scripts/export-models.py --out DIR [--models a,b,...] [--force]

Each model becomes DIR/<model>/model.onnx plus DIR/<model>/test_data_set_0/{input_<i>,output_0}.pb
(the ONNX backend test layout, so `tessel test-onnx DIR/<model>` checks it), holding random
inputs (one per model input, input_0 ... in order) and PyTorch's output. Weights are random
with a fixed seed; nothing is downloaded.
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


def export(name, out_dir):
    model, example = tessel_models.build(name)
    examples = example if isinstance(example, tuple) else (example,)
    case_dir = os.path.join(out_dir, name)
    data_dir = os.path.join(case_dir, "test_data_set_0")
    os.makedirs(data_dir, exist_ok=True)
    model_path = os.path.join(case_dir, "model.onnx")
    # Exported with autograd enabled: under no_grad, nn.TransformerEncoder takes a fused fast
    # path that the exporter cannot trace.
    names = ["input"] if len(examples) == 1 else [f"input_{i}" for i in range(len(examples))]
    torch.onnx.export(model, examples, model_path, opset_version=OPSET,
                      input_names=names, output_names=["output"], do_constant_folding=True)
    with torch.no_grad():
        expected = model(*examples).numpy()
    onnx.checker.check_model(model_path)
    for i, x in enumerate(examples):
        write_tensor(os.path.join(data_dir, f"input_{i}.pb"), x.numpy())
    write_tensor(os.path.join(data_dir, "output_0.pb"), expected)
    ops = sorted({node.op_type for node in onnx.load(model_path).graph.node})
    return model_path, expected, [x.numpy() for x in examples], ops


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--models", default=",".join(tessel_models.MODELS),
                        help="comma-separated model names (default: all)")
    parser.add_argument("--force", action="store_true", help="re-export existing models")
    args = parser.parse_args()
    names = [n for n in args.models.split(",") if n]
    for name in names:
        if name not in tessel_models.MODELS:
            parser.error(f"unknown model '{name}'; known: {', '.join(tessel_models.MODELS)}")
    for name in names:
        model_path = os.path.join(args.out, name, "model.onnx")
        output_path = os.path.join(args.out, name, "test_data_set_0", "output_0.pb")
        if not args.force and os.path.exists(model_path) and os.path.exists(output_path):
            print(f"{name}: exists, skipped")
            continue
        start = time.perf_counter()
        model_path, expected, inputs, ops = export(name, args.out)
        seconds = time.perf_counter() - start
        size_mb = os.path.getsize(model_path) / 2**20
        line = (f"{name}: {seconds:.1f} s, {size_mb:.1f} MiB, output {list(expected.shape)} "
                f"max|y| {abs(expected).max():.3g}, ops {','.join(ops)}")
        diff = ort_max_diff(model_path, inputs, expected)
        if diff is not None:
            line += f", max|ORT - torch| {diff:.3g}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
