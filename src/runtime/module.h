// Module: a shared library of compiled kernels, loaded with dlopen.
//
// A kernel library produced by the compiler's emit_shared_library leaves the runtime's
// entry points (tessel_parallel_for, tessel_workspace_alloc, ...) undefined; `load` makes
// this runtime's symbols visible to it first, so loading works whatever way the runtime
// itself was loaded.
#pragma once

#include <string>

#include "runtime/tessel_runtime.h"

namespace tessel::runtime {

class Module {
 public:
  /// Loads the shared library at `path`. Throws Error for a missing file, a file that is
  /// not a loadable shared library (truncated, not ELF, wrong machine) or unresolved
  /// symbols; the message names the path and gives the loader's reason.
  static Module load(const std::string& path);

  Module(Module&& other) noexcept;
  Module& operator=(Module&& other) noexcept;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module();

  /// The kernel `name`; throws Error when the library has no such symbol.
  tessel_kernel get_function(const std::string& name) const;
  /// Whether the library defines `name`.
  bool has_function(const std::string& name) const;
  /// The address of the symbol `name` (a function or data), or nullptr when the library
  /// does not define it.
  const void* find_symbol(const std::string& name) const;
  const std::string& path() const { return path_; }

 private:
  Module(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}

  void* handle_ = nullptr;
  std::string path_;
};

}  // namespace tessel::runtime
