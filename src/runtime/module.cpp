// Module loading through dlopen/dlsym, with checks that turn loader failures into clear
// errors.
#include "runtime/module.h"

#include <dlfcn.h>

#include <filesystem>
#include <utility>

#include "runtime/error.h"

namespace tessel::runtime {
namespace {

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown loader error";
}

/// Promotes the runtime library's symbols to the global scope (a no-op when the runtime
/// is already global, e.g. linked into the executable), so that the undefined runtime
/// symbols of a kernel library resolve even when the runtime was loaded RTLD_LOCAL.
void make_runtime_symbols_global() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void*>(&tessel_parallel_for), &info) || !info.dli_fname) return;
  if (void* self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL)) dlclose(self);
}

}  // namespace

Module Module::load(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw Error("cannot load module '" + path + "': no such file");
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error("cannot load module '" + path + "': not a regular file");
  make_runtime_symbols_global();
  // A relative path without '/' would be searched in the library path: anchor it.
  std::string resolved = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = dlopen(resolved.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw Error("cannot load module '" + path + "': " + dl_error());
  return Module(handle, path);
}

Module::Module(Module&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), path_(std::move(other.path_)) {}

Module& Module::operator=(Module&& other) noexcept {
  if (this != &other) {
    if (handle_) dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

Module::~Module() {
  if (handle_) dlclose(handle_);
}

tessel_kernel Module::get_function(const std::string& name) const {
  if (!handle_) throw Error("get_function('" + name + "'): the module was moved from");
  dlerror();  // clear a stale error
  void* sym = dlsym(handle_, name.c_str());
  if (!sym) throw Error("module '" + path_ + "' has no function '" + name + "'");
  return reinterpret_cast<tessel_kernel>(sym);
}

bool Module::has_function(const std::string& name) const {
  return handle_ && dlsym(handle_, name.c_str()) != nullptr;
}

}  // namespace tessel::runtime
