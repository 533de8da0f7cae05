// Locating, checking and reading the external data of ONNX tensors.
#include "frontend/onnx_external_data.h"

#include <charconv>
#include <filesystem>
#include <fstream>

#include "support/error.h"

namespace tessel::frontend {

namespace {

namespace fs = std::filesystem;

/// A non-negative decimal integer entry ("offset", "length").
int64_t parse_size(const std::string& text, const std::string& key, const std::string& what) {
  int64_t value = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0)
    TESSEL_USER_ERROR(what, ": external data entry '", key, "' is '", text,
                      "', expected a non-negative integer");
  return value;
}

/// The file `location` inside `dir`, refusing paths that could leave it.
fs::path resolve_location(const std::string& location, const std::string& dir,
                          const std::string& what) {
  if (location.empty()) TESSEL_USER_ERROR(what, ": external data has no 'location' entry");
  fs::path relative(location);
  if (relative.is_absolute() || relative.has_root_path())
    TESSEL_USER_ERROR(what, ": external data location '", location,
                      "' is an absolute path; it must be relative to the model's folder");
  for (const fs::path& part : relative)
    if (part == "..")
      TESSEL_USER_ERROR(what, ": external data location '", location,
                        "' leaves the model's folder ('..' is not allowed)");
  if (dir.empty())
    TESSEL_USER_ERROR(what, " has external data in '", location,
                      "' but no folder was given to resolve it");
  return fs::path(dir) / relative;
}

}  // namespace

ExternalDataRange locate_external_data(const onnx::TensorProto& proto, const std::string& what,
                                       const std::string& dir, int64_t nbytes) {
  std::string location;
  int64_t offset = 0;
  int64_t length = -1;
  for (const onnx::StringStringEntryProto& entry : proto.external_data()) {
    if (entry.key() == "location") location = entry.value();
    if (entry.key() == "offset") offset = parse_size(entry.value(), "offset", what);
    if (entry.key() == "length") length = parse_size(entry.value(), "length", what);
  }
  fs::path path = resolve_location(location, dir, what);
  if (length >= 0 && length != nbytes)
    TESSEL_USER_ERROR(what, ": external data length is ", length, " bytes, expected ", nbytes);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    TESSEL_USER_ERROR(what, ": external data file '", path.string(),
                      "' does not exist or is not a regular file");
  auto size = static_cast<int64_t>(fs::file_size(path, ec));
  if (ec) TESSEL_USER_ERROR(what, ": cannot read external data file '", path.string(), "'");
  if (offset > size || nbytes > size - offset)
    TESSEL_USER_ERROR(what, ": external data file '", path.string(), "' has ", size,
                      " bytes; the tensor needs ", nbytes, " bytes at offset ", offset);
  return ExternalDataRange{path.string(), offset, nbytes};
}

void read_external_data(const ExternalDataRange& range, const std::string& what, void* dest) {
  std::ifstream in(range.path, std::ios::binary);
  in.seekg(range.offset);
  in.read(static_cast<char*>(dest), range.length);
  if (!in || in.gcount() != range.length)
    TESSEL_USER_ERROR(what, ": cannot read ", range.length, " bytes at offset ", range.offset,
                      " of external data file '", range.path, "'");
}

}  // namespace tessel::frontend
