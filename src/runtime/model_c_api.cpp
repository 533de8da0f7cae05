// The C entry points for compiled models (tessel_model_* and tessel_context_* in
// tessel_runtime.h) over runtime::Model and runtime::RunContext. Every exception is caught
// here and becomes a status plus tessel_last_error().
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/last_error.h"
#include "runtime/model.h"
#include "runtime/tessel_runtime.h"

/// One thread's inputs and run context: the model's own (tessel_model_set_input, ...) or
/// one of its own (tessel_context_create).
struct tessel_context {
  /// Runs through `shared` (the model's own context), or through a new one when it is null.
  tessel_context(const tessel::runtime::Model& m, tessel::runtime::RunContext* shared)
      : model(m),
        own(shared ? nullptr : std::make_unique<tessel::runtime::RunContext>(m)),
        run(shared ? *shared : *own) {
    set_batch_size(run.batch_size());
  }

  /// Sets the run's batch size and sizes the inputs (zeroed) and the shapes for it.
  void set_batch_size(int64_t n) {
    run.set_batch_size(n);
    inputs.clear();
    input_data.clear();
    input_shapes.clear();
    output_shapes.clear();
    for (size_t i = 0; i < model.num_inputs(); ++i) {
      input_shapes.push_back(run.input_shape(i));
      inputs.push_back(tessel::runtime::NDArray::zeros(input_shapes.back(), model.input(i).dtype));
      input_data.push_back(inputs.back().data());
    }
    for (size_t i = 0; i < model.num_outputs(); ++i) output_shapes.push_back(run.output_shape(i));
    has_run = false;
  }

  const tessel::runtime::Model& model;
  std::unique_ptr<tessel::runtime::RunContext> own;
  tessel::runtime::RunContext& run;
  /// The inputs as set by *_set_input (aligned, so runs copy nothing).
  std::vector<tessel::runtime::NDArray> inputs;
  std::vector<const void*> input_data;
  /// The inputs' and outputs' shapes at the batch size (what *_info reports).
  std::vector<std::vector<int64_t>> input_shapes, output_shapes;
  bool has_run = false;
};

struct tessel_model {
  explicit tessel_model(tessel::runtime::Model m)
      : model(std::move(m)), context(model, &model.context()) {}

  tessel::runtime::Model model;
  tessel_context context;
};

namespace {

using tessel::runtime::Error;
using tessel::runtime::PlanTensor;

/// Runs `body`, turning exceptions into a status and the last error.
template <class Body>
int32_t guarded(const char* who, Body&& body) noexcept {
  try {
    body();
    return TESSEL_OK;
  } catch (const Error& e) {
    return tessel::runtime::set_last_error(TESSEL_ERR_INVALID_ARGUMENT,
                                           (std::string(who) + ": " + e.what()).c_str());
  } catch (const std::exception& e) {
    return tessel::runtime::set_last_error(TESSEL_ERR_EXCEPTION,
                                           (std::string(who) + ": " + e.what()).c_str());
  } catch (...) {
    return tessel::runtime::set_last_error(TESSEL_ERR_EXCEPTION, who);
  }
}

void check_model(const tessel_model* model) {
  if (!model) throw Error("the model is NULL");
}

void check_context(const tessel_context* context) {
  if (!context) throw Error("the context is NULL");
}

void check_size(const char* what, int32_t i, const PlanTensor& t, int64_t expected,
                int64_t nbytes) {
  if (nbytes != expected)
    throw Error(std::string(what) + " " + std::to_string(i) + " ('" + t.name + "') has " +
                std::to_string(expected) + " bytes, got " + std::to_string(nbytes));
}

/// Tensor `t` with `shape` (its shape at the context's batch size) and `nbytes` bytes.
void describe(const PlanTensor& t, const std::vector<int64_t>& batch_shape, int64_t bytes,
              const char** name, int32_t* dtype_code, int32_t* dtype_bits, int32_t* ndim,
              const int64_t** shape, int64_t* nbytes) {
  if (name) *name = t.name.c_str();
  if (dtype_code) *dtype_code = static_cast<int32_t>(t.dtype.code);
  if (dtype_bits) *dtype_bits = t.dtype.bits;
  if (ndim) *ndim = static_cast<int32_t>(batch_shape.size());
  if (shape) *shape = batch_shape.data();
  if (nbytes) *nbytes = bytes;
}

size_t index(int32_t i) {
  if (i < 0) throw Error("index " + std::to_string(i) + " is negative");
  return static_cast<size_t>(i);
}

void set_input(tessel_context& c, int32_t i, const void* data, int64_t nbytes) {
  const PlanTensor& t = c.model.input(index(i));
  check_size("input", i, t, c.run.input_nbytes(index(i)), nbytes);
  if (!data && nbytes > 0) throw Error("the data of input " + std::to_string(i) + " is NULL");
  if (nbytes > 0) std::memcpy(c.inputs[index(i)].data(), data, static_cast<size_t>(nbytes));
}

void run(tessel_context& c) {
  c.has_run = false;
  c.model.run_raw(c.run, c.input_data.data());
  c.has_run = true;
}

void get_output(const tessel_context& c, int32_t i, void* data, int64_t nbytes, const char* run) {
  const PlanTensor& t = c.model.output(index(i));
  check_size("output", i, t, c.run.output_nbytes(index(i)), nbytes);
  if (!c.has_run) throw Error(std::string("the model has not run yet (call ") + run + ")");
  if (!data && nbytes > 0) throw Error("the buffer for output " + std::to_string(i) + " is NULL");
  if (nbytes > 0) std::memcpy(data, c.run.output_data(index(i)), static_cast<size_t>(nbytes));
}

}  // namespace

extern "C" {

int32_t tessel_model_load(const char* path, tessel_model** model) {
  return guarded("tessel_model_load", [&] {
    if (!model) throw Error("the model out pointer is NULL");
    *model = nullptr;
    if (!path) throw Error("the path is NULL");
    *model = new tessel_model(tessel::runtime::Model::load(path));
  });
}

void tessel_model_free(tessel_model* model) {
  delete model;
}

int32_t tessel_model_num_inputs(const tessel_model* model) {
  return model ? static_cast<int32_t>(model->model.num_inputs()) : -1;
}

int32_t tessel_model_num_outputs(const tessel_model* model) {
  return model ? static_cast<int32_t>(model->model.num_outputs()) : -1;
}

int32_t tessel_model_input_info(const tessel_model* model, int32_t i, const char** name,
                                int32_t* dtype_code, int32_t* dtype_bits, int32_t* ndim,
                                const int64_t** shape, int64_t* nbytes) {
  return guarded("tessel_model_input_info", [&] {
    check_model(model);
    const tessel_context& c = model->context;
    describe(model->model.input(index(i)), c.input_shapes[index(i)], c.run.input_nbytes(index(i)),
             name, dtype_code, dtype_bits, ndim, shape, nbytes);
  });
}

int32_t tessel_model_output_info(const tessel_model* model, int32_t i, const char** name,
                                 int32_t* dtype_code, int32_t* dtype_bits, int32_t* ndim,
                                 const int64_t** shape, int64_t* nbytes) {
  return guarded("tessel_model_output_info", [&] {
    check_model(model);
    const tessel_context& c = model->context;
    describe(model->model.output(index(i)), c.output_shapes[index(i)],
             c.run.output_nbytes(index(i)), name, dtype_code, dtype_bits, ndim, shape, nbytes);
  });
}

int32_t tessel_model_set_input(tessel_model* model, int32_t i, const void* data, int64_t nbytes) {
  return guarded("tessel_model_set_input", [&] {
    check_model(model);
    set_input(model->context, i, data, nbytes);
  });
}

int32_t tessel_model_run(tessel_model* model) {
  return guarded("tessel_model_run", [&] {
    check_model(model);
    run(model->context);
  });
}

int32_t tessel_model_get_output(const tessel_model* model, int32_t i, void* data, int64_t nbytes) {
  return guarded("tessel_model_get_output", [&] {
    check_model(model);
    get_output(model->context, i, data, nbytes, "tessel_model_run");
  });
}

const char* tessel_model_batch_symbol(const tessel_model* model) {
  return model ? model->model.plan().batch_symbol.c_str() : "";
}

int32_t tessel_model_set_batch_size(tessel_model* model, int64_t batch_size) {
  return guarded("tessel_model_set_batch_size", [&] {
    check_model(model);
    model->context.set_batch_size(batch_size);
  });
}

int32_t tessel_model_set_num_threads(tessel_model* model, int32_t num_threads) {
  return guarded("tessel_model_set_num_threads", [&] {
    check_model(model);
    model->model.set_num_threads(num_threads);
  });
}

int32_t tessel_context_create(const tessel_model* model, tessel_context** context) {
  return guarded("tessel_context_create", [&] {
    if (!context) throw Error("the context out pointer is NULL");
    *context = nullptr;
    check_model(model);
    *context = new tessel_context(model->model, nullptr);
  });
}

void tessel_context_free(tessel_context* context) {
  delete context;
}

int32_t tessel_context_input_info(const tessel_context* context, int32_t i, const char** name,
                                  int32_t* dtype_code, int32_t* dtype_bits, int32_t* ndim,
                                  const int64_t** shape, int64_t* nbytes) {
  return guarded("tessel_context_input_info", [&] {
    check_context(context);
    describe(context->model.input(index(i)), context->input_shapes[index(i)],
             context->run.input_nbytes(index(i)), name, dtype_code, dtype_bits, ndim, shape,
             nbytes);
  });
}

int32_t tessel_context_output_info(const tessel_context* context, int32_t i, const char** name,
                                   int32_t* dtype_code, int32_t* dtype_bits, int32_t* ndim,
                                   const int64_t** shape, int64_t* nbytes) {
  return guarded("tessel_context_output_info", [&] {
    check_context(context);
    describe(context->model.output(index(i)), context->output_shapes[index(i)],
             context->run.output_nbytes(index(i)), name, dtype_code, dtype_bits, ndim, shape,
             nbytes);
  });
}

int32_t tessel_context_set_batch_size(tessel_context* context, int64_t batch_size) {
  return guarded("tessel_context_set_batch_size", [&] {
    check_context(context);
    context->set_batch_size(batch_size);
  });
}

int32_t tessel_context_set_input(tessel_context* context, int32_t i, const void* data,
                                 int64_t nbytes) {
  return guarded("tessel_context_set_input", [&] {
    check_context(context);
    set_input(*context, i, data, nbytes);
  });
}

int32_t tessel_context_run(tessel_context* context) {
  return guarded("tessel_context_run", [&] {
    check_context(context);
    run(*context);
  });
}

int32_t tessel_context_get_output(const tessel_context* context, int32_t i, void* data,
                                  int64_t nbytes) {
  return guarded("tessel_context_get_output", [&] {
    check_context(context);
    get_output(*context, i, data, nbytes, "tessel_context_run");
  });
}

}  // extern "C"
