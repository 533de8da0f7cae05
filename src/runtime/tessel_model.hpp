// tessel_model.hpp: a header-only C++ wrapper over the compiled-model C API
// (tessel_model_* in tessel_runtime.h), for programs that link only the runtime library.
//
//   tessel::CompiledModel model("resnet50.so");
//   model.set_input(0, image);                  // a std::vector<float> of the input's size
//   model.run();
//   std::vector<float> logits = model.output<float>(0);
//
// To run one model from several threads at once, each thread runs it through a context of
// its own (the model must outlive its contexts):
//
//   tessel::ModelContext context(model);
//   context.set_input(0, image);
//   context.run();
//   std::vector<float> logits = context.output<float>(0);
//
// Failures throw std::runtime_error with the runtime's message (tessel_last_error()).
#ifndef TESSEL_MODEL_HPP_
#define TESSEL_MODEL_HPP_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tessel_runtime.h"

namespace tessel {

/// A model input or output as the C API describes it.
struct TensorInfo {
  std::string name;
  int32_t dtype_code = 0;  ///< 0 int, 1 uint, 2 float, 3 bfloat (bool: uint, 1 bit)
  int32_t dtype_bits = 0;
  std::vector<int64_t> shape;
  int64_t nbytes = 0;
};

namespace detail {

inline void check(int32_t status) {
  if (status != TESSEL_OK) throw std::runtime_error(tessel_last_error());
}

/// Output i (`nbytes` bytes) as a vector of T, read by get(data, nbytes).
template <class T, class Get>
std::vector<T> output_as(int i, int64_t nbytes, Get get) {
  if (nbytes % static_cast<int64_t>(sizeof(T)) != 0)
    throw std::runtime_error("tessel: output " + std::to_string(i) + " has " +
                             std::to_string(nbytes) + " bytes, not a multiple of " +
                             std::to_string(sizeof(T)));
  std::vector<T> values(static_cast<size_t>(nbytes) / sizeof(T));
  get(values.data(), nbytes);
  return values;
}

}  // namespace detail

/// An owning handle on a loaded compiled model library. Move-only.
class CompiledModel {
 public:
  /// Loads the compiled model library at `path`.
  explicit CompiledModel(const std::string& path) {
    detail::check(tessel_model_load(path.c_str(), &model_));
  }
  CompiledModel(CompiledModel&& other) noexcept : model_(std::exchange(other.model_, nullptr)) {}
  CompiledModel& operator=(CompiledModel&& other) noexcept {
    if (this != &other) {
      tessel_model_free(model_);
      model_ = std::exchange(other.model_, nullptr);
    }
    return *this;
  }
  CompiledModel(const CompiledModel&) = delete;
  CompiledModel& operator=(const CompiledModel&) = delete;
  ~CompiledModel() { tessel_model_free(model_); }

  int num_inputs() const { return tessel_model_num_inputs(model_); }
  int num_outputs() const { return tessel_model_num_outputs(model_); }
  TensorInfo input_info(int i) const { return info(i, tessel_model_input_info); }
  TensorInfo output_info(int i) const { return info(i, tessel_model_output_info); }

  /// Copies `nbytes` bytes (exactly input i's size) as input i.
  void set_input(int i, const void* data, int64_t nbytes) {
    detail::check(tessel_model_set_input(model_, i, data, nbytes));
  }
  /// Sets input i from a vector whose byte size is the input's.
  template <class T>
  void set_input(int i, const std::vector<T>& values) {
    set_input(i, values.data(), static_cast<int64_t>(values.size() * sizeof(T)));
  }

  void run() { detail::check(tessel_model_run(model_)); }

  /// Copies output i of the last run into `data` (`nbytes`, exactly the output's size).
  void get_output(int i, void* data, int64_t nbytes) const {
    detail::check(tessel_model_get_output(model_, i, data, nbytes));
  }
  /// Output i of the last run as a vector of T (sizeof(T) must divide its size).
  template <class T>
  std::vector<T> output(int i) const {
    return detail::output_as<T>(i, output_info(i).nbytes,
                                [&](void* data, int64_t nbytes) { get_output(i, data, nbytes); });
  }

  /// Threads for this model's runs (0: the number it was compiled for).
  void set_num_threads(int num_threads) {
    detail::check(tessel_model_set_num_threads(model_, num_threads));
  }

  /// The symbolic batch dimension's name ("" for static shapes), and the number of samples
  /// of the model's own runs (see tessel_model_set_batch_size).
  std::string batch_symbol() const { return tessel_model_batch_symbol(model_); }
  void set_batch_size(int64_t batch_size) {
    detail::check(tessel_model_set_batch_size(model_, batch_size));
  }

  tessel_model* handle() const { return model_; }

 private:
  using InfoFunction = int32_t (*)(const tessel_model*, int32_t, const char**, int32_t*, int32_t*,
                                   int32_t*, const int64_t**, int64_t*);

  TensorInfo info(int i, InfoFunction get) const {
    TensorInfo t;
    const char* name = nullptr;
    int32_t ndim = 0;
    const int64_t* shape = nullptr;
    detail::check(get(model_, i, &name, &t.dtype_code, &t.dtype_bits, &ndim, &shape, &t.nbytes));
    t.name = name;
    t.shape.assign(shape, shape + ndim);
    return t;
  }

  tessel_model* model_ = nullptr;
};

/// A run context of a CompiledModel: inputs, outputs and scratch memory of its own, so that
/// several threads, each with its context, may run one model at once. Move-only; the model
/// must outlive it and stay where it is (not moved from).
class ModelContext {
 public:
  explicit ModelContext(const CompiledModel& model) {
    detail::check(tessel_context_create(model.handle(), &context_));
  }
  ModelContext(ModelContext&& other) noexcept
      : context_(std::exchange(other.context_, nullptr)) {}
  ModelContext& operator=(ModelContext&& other) noexcept {
    if (this != &other) {
      tessel_context_free(context_);
      context_ = std::exchange(other.context_, nullptr);
    }
    return *this;
  }
  ModelContext(const ModelContext&) = delete;
  ModelContext& operator=(const ModelContext&) = delete;
  ~ModelContext() { tessel_context_free(context_); }

  /// As CompiledModel's, on this context's inputs and outputs.
  void set_input(int i, const void* data, int64_t nbytes) {
    detail::check(tessel_context_set_input(context_, i, data, nbytes));
  }
  template <class T>
  void set_input(int i, const std::vector<T>& values) {
    set_input(i, values.data(), static_cast<int64_t>(values.size() * sizeof(T)));
  }
  void set_batch_size(int64_t batch_size) {
    detail::check(tessel_context_set_batch_size(context_, batch_size));
  }
  void run() { detail::check(tessel_context_run(context_)); }
  void get_output(int i, void* data, int64_t nbytes) const {
    detail::check(tessel_context_get_output(context_, i, data, nbytes));
  }
  template <class T>
  std::vector<T> output(int i) const {
    int64_t nbytes = 0;
    detail::check(
        tessel_context_output_info(context_, i, nullptr, nullptr, nullptr, nullptr, nullptr, &nbytes));
    return detail::output_as<T>(i, nbytes,
                                [&](void* data, int64_t n) { get_output(i, data, n); });
  }

  tessel_context* handle() const { return context_; }

 private:
  tessel_context* context_ = nullptr;
};

}  // namespace tessel

#endif  // TESSEL_MODEL_HPP_
