#!/usr/bin/env python3
"""Writes ONNX test cases of RoiAlign for what the ONNX node suite leaves out: several batch
entries and channels, a spatial scale, the max mode, regions partly outside the map, both
coordinate transformations and a 3x3 sampling grid.

usage: .venv/bin/python3 scripts/make-roi-align-cases.py OUT_DIR

Each case is a folder in the node suite's layout whose expected outputs are ONNX Runtime's,
so that `tessel test-onnx OUT_DIR` compares tessel with an independent implementation. The
inputs are drawn from a fixed seed; the cases are checked in under tests/onnx-cases/roi-align.
"""
import sys
import zlib

import numpy
import onnx
import onnxruntime
from onnx import TensorProto, helper

from onnx_case_files import write_case


def case(name, x_shape, rois, batch, **attributes):
    rng = numpy.random.default_rng(zlib.crc32(name.encode()))
    feeds = {"X": rng.uniform(-1, 1, x_shape).astype(numpy.float32),
             "rois": numpy.array(rois, numpy.float32),
             "batch_indices": numpy.array(batch, numpy.int64)}
    out = [len(rois), x_shape[1], attributes["output_height"], attributes["output_width"]]
    graph = helper.make_graph(
        [helper.make_node("RoiAlign", ["X", "rois", "batch_indices"], ["Y"], **attributes)], name,
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, x_shape),
         helper.make_tensor_value_info("rois", TensorProto.FLOAT, [len(rois), 4]),
         helper.make_tensor_value_info("batch_indices", TensorProto.INT64, [len(rois)])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, out)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    session = onnxruntime.InferenceSession(model.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    (y,) = session.run(None, feeds)
    return name, model, [(list(feeds.items()), [("Y", y)])]


def cases():
    yield case("roi_align_max_scaled", [2, 3, 12, 10],
               [[2, 4, 15, 20], [0, 0, 19, 23], [6.5, 3, 9, 21.5], [1, 1, 2, 2]], [1, 0, 1, 0],
               mode="max", output_height=3, output_width=4, sampling_ratio=2, spatial_scale=0.5)
    yield case("roi_align_outside_legacy", [2, 2, 8, 9],
               [[-3, -2, 4, 5], [5, 6, 12, 11], [-1, 2, 10, 3]], [0, 1, 1],
               coordinate_transformation_mode="output_half_pixel", output_height=2,
               output_width=3, sampling_ratio=3)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for name, model, data_sets in cases():
        write_case(sys.argv[1], name, model, data_sets)
        print(name)


if __name__ == "__main__":
    main()
