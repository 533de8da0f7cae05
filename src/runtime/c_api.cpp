// The runtime's C entry points (tessel_runtime.h). Each catches every exception: nothing
// is thrown across the C boundary; failures become status codes plus a thread-local
// message readable through tessel_last_error().
#include <exception>
#include <string>

#include "runtime/last_error.h"
#include "runtime/workspace_pool.h"
#include "runtime/tessel_runtime.h"
#include "runtime/thread_pool.h"

namespace {

thread_local std::string t_last_error;

int32_t fail(int32_t status, const char* message) noexcept {
  try {
    t_last_error = message;
  } catch (...) {  // out of memory while keeping the message: the status still tells
  }
  return status;
}

}  // namespace

int32_t tessel::runtime::set_last_error(int32_t status, const char* message) noexcept {
  return fail(status, message);
}

extern "C" {

int32_t tessel_parallel_for(int64_t extent, tessel_parallel_body body, void* env) {
  try {
    std::string error;
    int32_t status = tessel::runtime::parallel_for(extent, body, env, &error);
    if (status != TESSEL_OK && !error.empty()) fail(status, error.c_str());
    return status;
  } catch (...) {
    return fail(TESSEL_ERR_EXCEPTION, "tessel_parallel_for: unexpected exception");
  }
}

void* tessel_workspace_alloc(int64_t bytes, int64_t alignment) {
  void* ptr = tessel::runtime::workspace_alloc(bytes, alignment);
  if (!ptr) fail(TESSEL_ERR_OUT_OF_MEMORY, "tessel_workspace_alloc: allocation failed");
  return ptr;
}

int32_t tessel_workspace_free(void* ptr) {
  tessel::runtime::workspace_free(ptr);
  return TESSEL_OK;
}

int32_t tessel_set_num_threads(int32_t num_threads) {
  try {
    tessel::runtime::set_num_threads(num_threads);
    return TESSEL_OK;
  } catch (const std::exception& e) {
    return fail(TESSEL_ERR_INVALID_ARGUMENT, e.what());
  } catch (...) {
    return fail(TESSEL_ERR_EXCEPTION, "tessel_set_num_threads: unexpected exception");
  }
}

int32_t tessel_get_num_threads(void) {
  try {
    return tessel::runtime::num_threads();
  } catch (...) {
    return 1;
  }
}

const char* tessel_last_error(void) {
  return t_last_error.c_str();
}

}  // extern "C"
