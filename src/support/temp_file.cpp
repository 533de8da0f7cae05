// Temporary files through mkstemps; whole-file writes through stdio.
#include "support/temp_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "support/error.h"

namespace tessel {

TemporaryFile::TemporaryFile(const std::string& suffix) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  std::string pattern = (dir / "tessel-XXXXXX").string() + suffix;
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = mkstemps(name.data(), static_cast<int>(suffix.size()));
  if (fd < 0)
    TESSEL_USER_ERROR("cannot create a temporary file in '", dir.string(),
                      "': ", std::strerror(errno));
  close(fd);
  path_ = name.data();
}

TemporaryFile::~TemporaryFile() {
  std::remove(path_.c_str());
}

void write_file(const std::string& path, const void* data, size_t size, const std::string& who) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) TESSEL_USER_ERROR(who, ": cannot write '", path, "': ", std::strerror(errno));
  bool ok = size == 0 || std::fwrite(data, 1, size, file) == size;
  ok = std::fclose(file) == 0 && ok;
  if (!ok) TESSEL_USER_ERROR(who, ": cannot write '", path, "': ", std::strerror(errno));
}

}  // namespace tessel
