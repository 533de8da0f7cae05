// Fuzz target: the ONNX importer, from model bytes to a verified graph or a CompileError.
// Accepted graphs are printed, which walks every node, value and attribute.
#include "frontend/onnx_importer.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessel;
  fuzz::accepts([&] {
    graph::Graph g = frontend::import_onnx_bytes(fuzz::as_string(data, size), "fuzz.onnx");
    fuzz::require(!graph::to_string(g).empty(), "an imported graph prints");
  });
  return 0;
}
