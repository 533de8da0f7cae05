// The C entry points for compiled models (tessel_model_* in tessel_runtime.h) over
// runtime::Model. Every exception is caught here and becomes a status plus
// tessel_last_error().
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/last_error.h"
#include "runtime/model.h"
#include "runtime/tessel_runtime.h"

struct tessel_model {
  explicit tessel_model(tessel::runtime::Model m) : model(std::move(m)) {
    for (size_t i = 0; i < model.num_inputs(); ++i) {
      const tessel::runtime::PlanTensor& t = model.input(i);
      inputs.push_back(tessel::runtime::NDArray::zeros(t.shape, t.dtype));
      input_data.push_back(inputs.back().data());
    }
  }

  tessel::runtime::Model model;
  /// The inputs as set by tessel_model_set_input (aligned, so runs copy nothing).
  std::vector<tessel::runtime::NDArray> inputs;
  std::vector<const void*> input_data;
  bool has_run = false;
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

void check_size(const char* what, int32_t i, const PlanTensor& t, int64_t nbytes) {
  if (nbytes != t.nbytes())
    throw Error(std::string(what) + " " + std::to_string(i) + " ('" + t.name + "') has " +
                std::to_string(t.nbytes()) + " bytes, got " + std::to_string(nbytes));
}

void describe(const PlanTensor& t, const char** name, int32_t* dtype_code, int32_t* dtype_bits,
              int32_t* ndim, const int64_t** shape, int64_t* nbytes) {
  if (name) *name = t.name.c_str();
  if (dtype_code) *dtype_code = static_cast<int32_t>(t.dtype.code);
  if (dtype_bits) *dtype_bits = t.dtype.bits;
  if (ndim) *ndim = static_cast<int32_t>(t.shape.size());
  if (shape) *shape = t.shape.data();
  if (nbytes) *nbytes = t.nbytes();
}

size_t index(int32_t i) {
  if (i < 0) throw Error("index " + std::to_string(i) + " is negative");
  return static_cast<size_t>(i);
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
    describe(model->model.input(index(i)), name, dtype_code, dtype_bits, ndim, shape, nbytes);
  });
}

int32_t tessel_model_output_info(const tessel_model* model, int32_t i, const char** name,
                                 int32_t* dtype_code, int32_t* dtype_bits, int32_t* ndim,
                                 const int64_t** shape, int64_t* nbytes) {
  return guarded("tessel_model_output_info", [&] {
    check_model(model);
    describe(model->model.output(index(i)), name, dtype_code, dtype_bits, ndim, shape, nbytes);
  });
}

int32_t tessel_model_set_input(tessel_model* model, int32_t i, const void* data, int64_t nbytes) {
  return guarded("tessel_model_set_input", [&] {
    check_model(model);
    const PlanTensor& t = model->model.input(index(i));
    check_size("input", i, t, nbytes);
    if (!data && nbytes > 0) throw Error("the data of input " + std::to_string(i) + " is NULL");
    if (nbytes > 0) std::memcpy(model->inputs[index(i)].data(), data, static_cast<size_t>(nbytes));
  });
}

int32_t tessel_model_run(tessel_model* model) {
  return guarded("tessel_model_run", [&] {
    check_model(model);
    model->has_run = false;
    model->model.run_raw(model->input_data.data());
    model->has_run = true;
  });
}

int32_t tessel_model_get_output(const tessel_model* model, int32_t i, void* data, int64_t nbytes) {
  return guarded("tessel_model_get_output", [&] {
    check_model(model);
    const PlanTensor& t = model->model.output(index(i));
    check_size("output", i, t, nbytes);
    if (!model->has_run) throw Error("the model has not run yet (call tessel_model_run)");
    if (!data && nbytes > 0) throw Error("the buffer for output " + std::to_string(i) + " is NULL");
    if (nbytes > 0)
      std::memcpy(data, model->model.output_data(index(i)), static_cast<size_t>(nbytes));
  });
}

int32_t tessel_model_set_num_threads(tessel_model* model, int32_t num_threads) {
  return guarded("tessel_model_set_num_threads", [&] {
    check_model(model);
    model->model.set_num_threads(num_threads);
  });
}

}  // extern "C"
