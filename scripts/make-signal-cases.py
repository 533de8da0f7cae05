#!/usr/bin/env python3
"""Writes ONNX test cases of DFT and STFT for what the ONNX node suite leaves out: a
dft_length that pads or truncates, onesided output, complex input, negative axes, the
inverse of a complex signal, a two-sided STFT of a complex signal and a windowed one.

usage: .venv/bin/python3 scripts/make-signal-cases.py OUT_DIR

Each case is a folder in the node suite's layout (model.onnx, test_data_set_0/input_*.pb and
output_*.pb) whose expected outputs come from NumPy's FFT (an implementation independent of
tessel and of ONNX Runtime). The inputs are drawn from a fixed seed; the cases are checked
in under tests/onnx-cases/signal.
"""
import sys
import zlib

import numpy
import onnx
from onnx import TensorProto, helper

from onnx_case_files import write_case

FLOAT, INT64 = TensorProto.FLOAT, TensorProto.INT64


def parts(z):
    """A complex array as ONNX's signals: real and imaginary parts in a last axis of 2."""
    return numpy.stack([z.real, z.imag], axis=-1).astype(numpy.float32)


def model_of(name, node, inputs, feeds, expected):
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info(n, INT64 if feeds[n].dtype == numpy.int64 else FLOAT,
                                       list(feeds[n].shape)) for n in inputs],
        [helper.make_tensor_value_info("y", FLOAT, list(expected.shape))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return name, model, [(n, feeds[n]) for n in inputs], expected.astype(numpy.float32)


def rng_for(name):
    return numpy.random.default_rng(zlib.crc32(name.encode()))


def cases():
    rng = rng_for("dft_padded_onesided")
    x = rng.uniform(-1, 1, (2, 6, 1)).astype(numpy.float32)
    yield model_of("dft_padded_onesided",
                   helper.make_node("DFT", ["x", "n"], ["y"], axis=1, onesided=1), ["x", "n"],
                   {"x": x, "n": numpy.array(8, numpy.int64)},
                   parts(numpy.fft.rfft(x[..., 0].astype(numpy.float64), n=8, axis=1)))

    rng = rng_for("dft_truncated_complex_axis")
    z = rng.uniform(-1, 1, (2, 3, 10)) + 1j * rng.uniform(-1, 1, (2, 3, 10))
    yield model_of("dft_truncated_complex_axis",
                   helper.make_node("DFT", ["x", "n"], ["y"], axis=-2), ["x", "n"],
                   {"x": parts(z), "n": numpy.array(7, numpy.int64)},
                   parts(numpy.fft.fft(z[..., :7], n=7, axis=2)))

    rng = rng_for("idft_complex")
    z = rng.uniform(-1, 1, (1, 8)) + 1j * rng.uniform(-1, 1, (1, 8))
    yield model_of("idft_complex", helper.make_node("DFT", ["x"], ["y"], axis=1, inverse=1),
                   ["x"], {"x": parts(z)}, parts(numpy.fft.ifft(z, axis=1)))

    rng = rng_for("stft_complex_twosided")
    z = rng.uniform(-1, 1, (2, 40)) + 1j * rng.uniform(-1, 1, (2, 40))
    step, length = 5, 12
    frames = numpy.stack([z[:, f * step:f * step + length]
                          for f in range((40 - length) // step + 1)], axis=1)
    yield model_of("stft_complex_twosided",
                   helper.make_node("STFT", ["x", "step", "", "length"], ["y"], onesided=0),
                   ["x", "step", "length"],
                   {"x": parts(z), "step": numpy.array(step, numpy.int64),
                    "length": numpy.array(length, numpy.int64)},
                   parts(numpy.fft.fft(frames, axis=2)))

    rng = rng_for("stft_window_onesided")
    x = rng.uniform(-1, 1, (1, 50)).astype(numpy.float32)
    window = numpy.hanning(16).astype(numpy.float32)
    step = 6
    frames = numpy.stack([x[:, f * step:f * step + 16].astype(numpy.float64) * window
                          for f in range((50 - 16) // step + 1)], axis=1)
    yield model_of("stft_window_onesided",
                   helper.make_node("STFT", ["x", "step", "window"], ["y"]),
                   ["x", "step", "window"],
                   {"x": x[..., None], "step": numpy.array(step, numpy.int64), "window": window},
                   parts(numpy.fft.rfft(frames, axis=2)))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for name, model, inputs, expected in cases():
        write_case(sys.argv[1], name, model, [(inputs, [("y", expected)])])
        print(name)


if __name__ == "__main__":
    main()
