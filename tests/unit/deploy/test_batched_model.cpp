// A compiled model library with a symbolic batch (the tiny model with its input and
// intermediates batched): runs of several batch sizes through the C API, its C++ wrapper
// and a context of its own, checked sample by sample against the hand reference, with
// inputs at any alignment, and the sizes it refuses.
#include <gtest/gtest.h>

#include "runtime/model.h"
#include "runtime/tessel_model.hpp"
#include "runtime/tessel_runtime.h"
#include "unit/deploy/tiny_model.h"

namespace tessel::deploy_test {
namespace {

/// The tiny model for N samples: x an input of N samples, y and z in the batch arena (one
/// sample's y at 0, its z at 128), w an unbatched weight.
const std::string& batched_library() {
  static const RemovedAtExit library = [] {
    TinyModel m = tiny_model();
    runtime::ModelPlan& p = m.plan;
    p.batch_symbol = "N";
    p.tensors[0].batched = p.tensors[2].batched = p.tensors[3].batched = true;
    p.tensors[2].offset = 0;
    p.tensors[3].offset = 128;
    p.batch_arena_bytes = 256;
    p.arena_bytes = 0;
    return export_tiny(m, "tiny_batched.so");
  }();
  return library.path;
}

/// `batch` samples of the tiny input, one after the other.
std::vector<float> samples(int64_t batch) {
  std::vector<float> x;
  for (int64_t n = 0; n < batch; ++n) {
    std::vector<float> one = tiny_input(static_cast<int>(n));
    x.insert(x.end(), one.begin(), one.end());
  }
  return x;
}

/// Expects output `o` of `batch` samples to be each sample's hand reference.
void expect_per_sample(const std::vector<float>& out, const std::vector<float>& x, int64_t batch,
                       size_t o) {
  ASSERT_EQ(out.size(), static_cast<size_t>(batch * kSize));
  for (int64_t n = 0; n < batch; ++n) {
    std::vector<float> one(x.begin() + n * kSize, x.begin() + (n + 1) * kSize);
    std::vector<float> got(out.begin() + n * kSize, out.begin() + (n + 1) * kSize);
    EXPECT_EQ(got, tiny_reference(one)[o]) << "sample " << n << " of " << batch << ", output " << o;
  }
}

TEST(BatchedModel, RunsEveryBatchSizeThroughTheCApi) {
  tessel_model* model = nullptr;
  ASSERT_EQ(tessel_model_load(batched_library().c_str(), &model), TESSEL_OK) << tessel_last_error();
  EXPECT_STREQ(tessel_model_batch_symbol(model), "N");
  for (int64_t batch : {3, 1, 8}) {
    ASSERT_EQ(tessel_model_set_batch_size(model, batch), TESSEL_OK) << tessel_last_error();
    int32_t ndim = 0;
    const int64_t* shape = nullptr;
    int64_t nbytes = 0;
    ASSERT_EQ(tessel_model_input_info(model, 0, nullptr, nullptr, nullptr, &ndim, &shape, &nbytes),
              TESSEL_OK);
    ASSERT_EQ(ndim, 2);
    EXPECT_EQ(shape[0], kRows * batch);
    EXPECT_EQ(nbytes, kSize * 4 * batch);
    std::vector<float> x = samples(batch);
    ASSERT_EQ(tessel_model_set_input(model, 0, x.data(), nbytes), TESSEL_OK) << tessel_last_error();
    ASSERT_EQ(tessel_model_run(model), TESSEL_OK) << tessel_last_error();
    for (int o = 0; o < 2; ++o) {
      std::vector<float> out(static_cast<size_t>(batch * kSize));
      ASSERT_EQ(tessel_model_get_output(model, o, out.data(), nbytes), TESSEL_OK);
      expect_per_sample(out, x, batch, static_cast<size_t>(o));
    }
  }
  // One sample's worth of bytes no longer fits a batch of 8.
  std::vector<float> one(kSize);
  EXPECT_EQ(tessel_model_set_input(model, 0, one.data(), kSize * 4), TESSEL_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tessel_last_error(),
               "tessel_model_set_input: input 0 ('x') has 1024 bytes, got 128");
  EXPECT_EQ(tessel_model_set_batch_size(model, 0), TESSEL_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tessel_last_error(),
               "tessel_model_set_batch_size: model 'tiny': batch size 0: a "
               "batch holds one sample or more");
  tessel_model_free(model);
}

TEST(BatchedModel, ContextsKeepTheirOwnBatchSize) {
  CompiledModel model(batched_library());
  EXPECT_EQ(model.batch_symbol(), "N");
  model.set_batch_size(2);
  ModelContext context(model);
  context.set_batch_size(5);
  std::vector<float> two = samples(2), five = samples(5);
  model.set_input(0, two);
  context.set_input(0, five);
  model.run();
  context.run();
  expect_per_sample(model.output<float>(0), two, 2, 0);
  expect_per_sample(context.output<float>(0), five, 5, 0);
  expect_per_sample(context.output<float>(1), five, 5, 1);
}

TEST(BatchedModel, MisalignedInputsAreCopiedSampleBySample) {
  runtime::Model model = runtime::Model::load(batched_library());
  runtime::RunContext context(model);
  context.set_batch_size(4);
  std::vector<float> x = samples(4);
  std::vector<float> shifted(x.size() + 1);
  std::copy(x.begin(), x.end(), shifted.begin() + 1);  // 4 bytes off any 64-byte boundary
  const void* inputs[] = {shifted.data() + 1};
  model.run_raw(context, inputs);
  const float* z = static_cast<const float*>(context.output_data(0));
  expect_per_sample(std::vector<float>(z, z + 4 * kSize), x, 4, 0);
}

TEST(BatchedModel, SamplesRunSideBySideOrOneAfterAnother) {
  // With 2 or 3 threads, batches that share out evenly (or give each thread 4 samples or
  // more) run whole samples per thread; the others one sample after another.
  runtime::Model model = runtime::Model::load(batched_library());
  for (int32_t threads : {1, 2, 3}) {
    model.set_num_threads(threads);
    for (int64_t batch : {8, 3, 12, 2}) {
      runtime::RunContext context(model);
      context.set_batch_size(batch);
      std::vector<float> x = samples(batch);
      const void* inputs[] = {x.data()};
      model.run_raw(context, inputs);
      for (size_t o = 0; o < 2; ++o) {
        const float* out = static_cast<const float*>(context.output_data(o));
        expect_per_sample(std::vector<float>(out, out + batch * kSize), x, batch, o);
      }
    }
  }
}

TEST(BatchedModel, AStaticModelTakesOneSampleOnly) {
  tessel_model* model = nullptr;
  ASSERT_EQ(tessel_model_load(tiny_library().c_str(), &model), TESSEL_OK);
  EXPECT_STREQ(tessel_model_batch_symbol(model), "");
  EXPECT_EQ(tessel_model_set_batch_size(model, 1), TESSEL_OK);
  EXPECT_EQ(tessel_model_set_batch_size(model, 2), TESSEL_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tessel_last_error(),
               "tessel_model_set_batch_size: model 'tiny': batch size 2: the "
               "model was compiled for static shapes (batch 1)");
  tessel_model_free(model);
}

}  // namespace
}  // namespace tessel::deploy_test
