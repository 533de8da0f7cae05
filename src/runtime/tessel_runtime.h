/* tessel_runtime.h: the C entry points of the tessel runtime library.
 *
 * Generated kernels (JIT-compiled or loaded from a shared library) call these functions;
 * host programs may call them too. Every function is safe to call from C: none throws.
 * A kernel has the signature `int32_t kernel(void** args)` where args[i] is the data
 * pointer of the kernel's i-th buffer parameter; it returns TESSEL_OK (0) on success.
 */
#ifndef TESSEL_RUNTIME_H_
#define TESSEL_RUNTIME_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes returned by kernels and runtime calls. */
enum tessel_status {
  TESSEL_OK = 0,
  TESSEL_ERR_OUT_OF_MEMORY = 1, /**< a workspace allocation failed */
  TESSEL_ERR_INVALID_ARGUMENT = 2,
  TESSEL_ERR_EXCEPTION = 3, /**< a C++ exception was caught at the C boundary */
};

/** A compiled kernel: args[i] is the data pointer of parameter i. */
typedef int32_t (*tessel_kernel)(void** args);

/** The body of a parallel loop: runs iterations [begin, end); non-zero status on failure. */
typedef int32_t (*tessel_parallel_body)(int64_t begin, int64_t end, void* env);

/** Runs body over [0, extent) split into contiguous chunks over the thread pool (the
 *  calling thread takes the first chunk). Returns the first non-zero status a chunk
 *  returned, or TESSEL_OK. Called from inside a parallel body, runs serially. */
int32_t tessel_parallel_for(int64_t extent, tessel_parallel_body body, void* env);

/** Allocates `bytes` bytes aligned to `alignment` (a power of two; 0 means 64).
 *  Returns NULL on failure (and for a negative size). */
void* tessel_workspace_alloc(int64_t bytes, int64_t alignment);

/** Frees memory from tessel_workspace_alloc (NULL is accepted). Returns TESSEL_OK. */
int32_t tessel_workspace_free(void* ptr);

/** Sets the number of threads used by tessel_parallel_for (the caller included);
 *  0 restores the default, the hardware concurrency. */
int32_t tessel_set_num_threads(int32_t num_threads);

/** The number of threads used by tessel_parallel_for (the caller included). */
int32_t tessel_get_num_threads(void);

/** The message of the last error raised on this thread by a runtime call ("" if none). */
const char* tessel_last_error(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSEL_RUNTIME_H_ */
