"""Writing ONNX test cases in the node suite's layout, which `tessel test-onnx` reads:
OUT_DIR/<case>/model.onnx and OUT_DIR/<case>/test_data_set_<k>/{input,output}_<i>.pb."""
import os

import onnx
from onnx import numpy_helper


def write_case(out_dir, name, model, data_sets):
    """Writes case `name`: `model` and its data sets, each a pair (inputs, outputs) of lists
    of (value name, numpy array) in the model's input and output order."""
    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    onnx.save(model, os.path.join(folder, "model.onnx"))
    for d, (inputs, outputs) in enumerate(data_sets):
        data = os.path.join(folder, f"test_data_set_{d}")
        os.makedirs(data, exist_ok=True)
        for prefix, values in (("input", inputs), ("output", outputs)):
            for k, (value_name, value) in enumerate(values):
                with open(os.path.join(data, f"{prefix}_{k}.pb"), "wb") as f:
                    f.write(numpy_helper.from_array(value, value_name).SerializeToString())
