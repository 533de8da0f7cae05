// Module loading through dlopen/dlsym, with checks that turn loader failures into clear
// errors.
#include "runtime/module.h"

#include <dlfcn.h>
#include <elf.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

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

/// Why the 64-bit ELF file at `path` (of `size` bytes) is truncated, or "" when its program
/// headers, loadable segments and section headers lie within the file. dlopen maps segments
/// past the end of a truncated file and then dies of SIGBUS touching them, so this is checked
/// first; the section headers, which the linker writes last and dlopen does not read, catch a
/// file cut anywhere after its segments. Anything that is not a 64-bit ELF file is left to
/// dlopen's own checks.
std::string elf_truncation(const std::string& path, uint64_t size) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr header;
  if (!in.read(reinterpret_cast<char*>(&header), sizeof header)) return "";
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64)
    return "";
  uint64_t table_end = header.e_phoff + uint64_t{header.e_phnum} * sizeof(Elf64_Phdr);
  if (header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phoff > size || table_end > size)
    return "truncated or corrupt ELF file: the program headers lie outside its " +
           std::to_string(size) + " bytes";
  uint64_t sections_end = header.e_shoff + uint64_t{header.e_shnum} * header.e_shentsize;
  if (header.e_shoff != 0 && (header.e_shoff > size || sections_end > size))
    return "truncated or corrupt ELF file: the section headers end at byte " +
           std::to_string(sections_end) + ", the file has " + std::to_string(size);
  std::vector<Elf64_Phdr> segments(header.e_phnum);
  in.seekg(static_cast<std::streamoff>(header.e_phoff));
  if (!in.read(reinterpret_cast<char*>(segments.data()),
               static_cast<std::streamsize>(segments.size() * sizeof(Elf64_Phdr))))
    return "cannot read the ELF program headers";
  for (size_t i = 0; i < segments.size(); ++i) {
    const Elf64_Phdr& p = segments[i];
    if (p.p_type != PT_LOAD && p.p_type != PT_DYNAMIC) continue;
    if (p.p_offset > size || p.p_filesz > size - p.p_offset)
      return "truncated or corrupt ELF file: segment " + std::to_string(i) + " ends at byte " +
             std::to_string(p.p_offset + p.p_filesz) + ", the file has " + std::to_string(size);
  }
  return "";
}

}  // namespace

Module Module::load(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw Error("cannot load module '" + path + "': no such file");
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error("cannot load module '" + path + "': not a regular file");
  std::string truncation = elf_truncation(path, std::filesystem::file_size(path, ec));
  if (!truncation.empty()) throw Error("cannot load module '" + path + "': " + truncation);
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
  return find_symbol(name) != nullptr;
}

const void* Module::find_symbol(const std::string& name) const {
  return handle_ ? dlsym(handle_, name.c_str()) : nullptr;
}

}  // namespace tessel::runtime
