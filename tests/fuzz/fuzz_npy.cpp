// Fuzz target: the .npy reader of `tessel run`'s inputs: an array or a CompileError.
#include "fuzz_util.h"
#include "npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessel;
  fuzz::accepts([&] { cli::parse_npy(fuzz::as_string(data, size), "fuzz.npy"); });
  return 0;
}
