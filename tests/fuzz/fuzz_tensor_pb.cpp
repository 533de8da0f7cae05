// Fuzz target: the ONNX TensorProto reader (the test data's .pb files): a tensor whose data
// matches its shape and type, or a CompileError.
#include "frontend/onnx_importer.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessel;
  fuzz::accepts([&] { frontend::import_tensor_bytes(fuzz::as_string(data, size), "fuzz.pb"); });
  return 0;
}
