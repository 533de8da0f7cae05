// Temporary files for ahead-of-time builds (objects, assembly, data to link), and writing a
// whole file at once.
#pragma once

#include <cstddef>
#include <string>

namespace tessel {

/// A fresh empty file in the system's temporary folder, removed when this goes out of scope.
class TemporaryFile {
 public:
  /// Creates <temp dir>/tessel-XXXXXX<suffix> (e.g. suffix ".o"). Throws CompileError when
  /// it cannot.
  explicit TemporaryFile(const std::string& suffix);
  ~TemporaryFile();
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Writes `size` bytes to `path`, replacing it. Throws CompileError starting with `who` and
/// naming the path and the system's reason when that fails.
void write_file(const std::string& path, const void* data, size_t size, const std::string& who);

}  // namespace tessel
