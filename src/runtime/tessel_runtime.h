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

/* ---- Compiled models -------------------------------------------------------------------
 * A compiled model library (.so) holds a model's kernels, weights and execution plan.
 * Typical use: tessel_model_load, then per run tessel_model_set_input for each input,
 * tessel_model_run, tessel_model_get_output for each output; tessel_model_free at the end.
 * Functions returning int32_t return TESSEL_OK or an error status (the message is in
 * tessel_last_error()).
 *
 * Threads: the tessel_model_set_input / _run / _get_output functions use the model's own
 * inputs and scratch memory, one thread at a time. To run one model from several threads at
 * once, give each thread a context (tessel_context_create) and use the tessel_context_*
 * functions; the model's describing functions may be called from any thread meanwhile.
 * Set the thread count (tessel_model_set_num_threads) before the runs start. */

/** An opaque loaded model. */
typedef struct tessel_model tessel_model;

/** Loads the compiled model library at `path` into *model (NULL on failure). */
int32_t tessel_model_load(const char* path, tessel_model** model);

/** Frees a model from tessel_model_load (NULL is accepted). */
void tessel_model_free(tessel_model* model);

/** The number of inputs / outputs (-1 for a NULL model). */
int32_t tessel_model_num_inputs(const tessel_model* model);
int32_t tessel_model_num_outputs(const tessel_model* model);

/** Describes input i: its name, element type (dtype_code: 0 int, 1 uint, 2 float,
 *  3 bfloat, 5 string; bool is uint with 1 bit, stored in one byte; a string element is a
 *  const char* to NUL-terminated UTF-8, whose text the caller keeps alive for an input and
 *  the model keeps until its next run for an output), rank, shape (ndim values) and
 *  size in bytes. Any out pointer may be NULL. The strings and shapes stay valid until
 *  tessel_model_free. */
int32_t tessel_model_input_info(const tessel_model* model, int32_t i, const char** name,
                                int32_t* dtype_code, int32_t* dtype_bits, int32_t* ndim,
                                const int64_t** shape, int64_t* nbytes);

/** Describes output i, as tessel_model_input_info describes an input. */
int32_t tessel_model_output_info(const tessel_model* model, int32_t i, const char** name,
                                 int32_t* dtype_code, int32_t* dtype_bits, int32_t* ndim,
                                 const int64_t** shape, int64_t* nbytes);

/** Copies input i's data (exactly nbytes, its size in bytes, any alignment) into the
 *  model; it is used by every later run until set again. Inputs start zeroed. */
int32_t tessel_model_set_input(tessel_model* model, int32_t i, const void* data, int64_t nbytes);

/** Runs the model on its inputs. */
int32_t tessel_model_run(tessel_model* model);

/** Copies output i of the last run (exactly nbytes, its size in bytes) into data. */
int32_t tessel_model_get_output(const tessel_model* model, int32_t i, void* data, int64_t nbytes);

/** The name of the model's symbolic batch dimension ("N"), or "" for a model compiled for
 *  static shapes (or a NULL model). The string stays valid until tessel_model_free. */
const char* tessel_model_batch_symbol(const tessel_model* model);

/** A model compiled with a symbolic batch dimension (tessel compile --input-shape
 *  x=Nx3x224x224) runs any batch size: sets the number of samples of the model's own runs
 *  (1 after loading; a model with static shapes takes only 1). The inputs and outputs
 *  whose leading dimension is the batch then hold that many samples one after the other:
 *  tessel_model_input_info / _output_info report their shapes and sizes for it, and
 *  tessel_model_set_input / _get_output take that many bytes. The inputs are zeroed. */
int32_t tessel_model_set_batch_size(tessel_model* model, int64_t batch_size);

/** Threads for this model's runs: 0 (the default) uses the number the model was compiled
 *  for, when it has one. */
int32_t tessel_model_set_num_threads(tessel_model* model, int32_t num_threads);

/** An opaque run context: the inputs, outputs and scratch memory of one thread's runs of a
 *  model. */
typedef struct tessel_context tessel_context;

/** Creates a context for `model` into *context (NULL on failure). Free it with
 *  tessel_context_free before the model. */
int32_t tessel_context_create(const tessel_model* model, tessel_context** context);

/** Frees a context from tessel_context_create (NULL is accepted). */
void tessel_context_free(tessel_context* context);

/** As tessel_model_set_batch_size, tessel_model_set_input, tessel_model_run and
 *  tessel_model_get_output, on the context's own inputs and outputs: several threads may
 *  each run the model through their own context at once. */
int32_t tessel_context_set_batch_size(tessel_context* context, int64_t batch_size);
/** As tessel_model_input_info / _output_info, at the context's batch size. */
int32_t tessel_context_input_info(const tessel_context* context, int32_t i, const char** name,
                                  int32_t* dtype_code, int32_t* dtype_bits, int32_t* ndim,
                                  const int64_t** shape, int64_t* nbytes);
int32_t tessel_context_output_info(const tessel_context* context, int32_t i, const char** name,
                                   int32_t* dtype_code, int32_t* dtype_bits, int32_t* ndim,
                                   const int64_t** shape, int64_t* nbytes);
int32_t tessel_context_set_input(tessel_context* context, int32_t i, const void* data,
                                 int64_t nbytes);
int32_t tessel_context_run(tessel_context* context);
int32_t tessel_context_get_output(const tessel_context* context, int32_t i, void* data,
                                  int64_t nbytes);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSEL_RUNTIME_H_ */
