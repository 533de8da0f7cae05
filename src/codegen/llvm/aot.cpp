// Object emission and linking with the system C compiler driver.
#include "codegen/llvm/aot.h"

#include <llvm/Support/raw_ostream.h>
#include <sys/wait.h>

#include <cstdio>

#include "codegen/llvm/llvm_module.h"
#include "codegen/llvm/llvm_target.h"
#include "support/error.h"
#include "support/temp_file.h"

namespace tessel::codegen {
namespace {

/// Compiles `funcs` to object code and writes it to `path` (nothing is written when
/// compilation fails).
void write_object(const std::vector<ir::PrimFunc>& funcs, const target::Target& target,
                  const std::string& path, const char* who) {
  std::unique_ptr<llvm::TargetMachine> machine = create_target_machine(target);
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = build_llvm_module(funcs, context, *machine);
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream out(bytes);
  emit_object(*module, *machine, out);
  write_file(path, bytes.data(), bytes.size(), who);
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Runs `command` through the shell; returns its exit status and combined output.
int run_command(const std::string& command, std::string& output) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

void emit_object_file(const std::vector<ir::PrimFunc>& funcs, const target::Target& target,
                      const std::string& path) {
  write_object(funcs, target, path, "emit_object_file");
}

void emit_shared_library(const std::vector<ir::PrimFunc>& funcs, const target::Target& target,
                         const std::string& path, const std::vector<std::string>& extra_inputs) {
  if (target.arch != target::host_arch())
    TESSEL_USER_ERROR("emit_shared_library: target '", target.to_string(),
                      "' is not this machine's architecture; use emit_object_file and a "
                      "cross linker");
  TemporaryFile object(".o");
  write_object(funcs, target, object.path(), "emit_shared_library");
  std::string command = "cc -shared -o " + shell_quote(path) + " " + shell_quote(object.path());
  for (const std::string& input : extra_inputs) command += " " + shell_quote(input);
  command += " -lm";
  std::string output;
  int status = run_command(command, output);
  if (status != 0)
    TESSEL_USER_ERROR("emit_shared_library: linking '", path, "' failed (", command,
                      " exited with status ", status, "):\n", output);
}

}  // namespace tessel::codegen
