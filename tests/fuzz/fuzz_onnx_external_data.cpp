// Fuzz target: external tensor data. The model bytes are resolved against a folder that
// holds one small data file (weights.bin, 4 KiB), so locations, offsets and lengths that
// point inside it, past its end or out of the folder are all reached.
#include <filesystem>
#include <fstream>

#include "frontend/onnx_importer.h"
#include "fuzz_util.h"

namespace {

/// A fresh folder with weights.bin, made once per process.
const std::string& data_folder() {
  static const std::string folder = [] {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / ("tessel-fuzz-external-" + std::to_string(getpid()));
    fs::create_directories(dir);
    std::ofstream out(dir / "weights.bin", std::ios::binary);
    for (int i = 0; i < 4096; ++i) out.put(static_cast<char>(i * 7));
    return dir.string();
  }();
  return folder;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessel;
  fuzz::accepts([&] {
    frontend::import_onnx_bytes(fuzz::as_string(data, size), "fuzz.onnx", data_folder());
  });
  return 0;
}
