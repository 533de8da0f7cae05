// ModelPlan serialisation: the round trip, the checks that name the bad byte, and a fuzz of
// truncated and corrupted bytes (each must throw runtime::Error or decode; never crash).
#include <gtest/gtest.h>

#include <random>

#include "runtime/error.h"
#include "runtime/model_plan.h"
#include "unit/deploy/tiny_model.h"

namespace tessel::deploy_test {
namespace {

using runtime::ModelPlan;

runtime::ModelPlan sample_plan() {
  ModelPlan p = tiny_model().plan;
  p.tensors.push_back({"b", runtime::DType::Bool(), {0, 3}, runtime::Storage::Arena, 64});
  p.tensors.push_back({"scalar", runtime::DType::Int(64), {}, runtime::Storage::Weight, 0});
  p.steps[1].label = "Relu+Add (fused)";
  return p;
}

std::string decode_error(const std::vector<uint8_t>& bytes) {
  try {
    runtime::deserialize_plan(bytes.data(), bytes.size());
  } catch (const runtime::Error& e) {
    return e.what();
  }
  return "";
}

std::string plan_error(const ModelPlan& p) {
  return decode_error(runtime::serialize_plan(p));
}

/// Expects the plan reader to refuse `p` with a message containing `text`.
void expect_error(const ModelPlan& p, const std::string& text) {
  std::string m = plan_error(p);
  EXPECT_NE(m.find(text), std::string::npos) << m;
}

TEST(Plan, Sizes) {
  runtime::PlanTensor t{"t", runtime::DType::Float(16), {2, 3, 5}, runtime::Storage::Arena, 0};
  EXPECT_EQ(t.num_elements(), 30);
  EXPECT_EQ(t.nbytes(), 60);
  t.shape = {};
  EXPECT_EQ(t.num_elements(), 1);
  t.shape = {4, 0};
  EXPECT_EQ(t.nbytes(), 0);
}

TEST(Plan, RoundTrip) {
  ModelPlan p = sample_plan();
  std::vector<uint8_t> bytes = runtime::serialize_plan(p);
  ModelPlan q = runtime::deserialize_plan(bytes.data(), bytes.size());
  EXPECT_EQ(q.name, p.name);
  ASSERT_EQ(q.tensors.size(), p.tensors.size());
  for (size_t i = 0; i < p.tensors.size(); ++i) {
    EXPECT_EQ(q.tensors[i].name, p.tensors[i].name);
    EXPECT_EQ(q.tensors[i].dtype, p.tensors[i].dtype);
    EXPECT_EQ(q.tensors[i].shape, p.tensors[i].shape);
    EXPECT_EQ(q.tensors[i].storage, p.tensors[i].storage);
    EXPECT_EQ(q.tensors[i].offset, p.tensors[i].offset);
    EXPECT_EQ(q.tensors[i].batched, p.tensors[i].batched);
  }
  EXPECT_EQ(q.inputs, p.inputs);
  EXPECT_EQ(q.outputs, p.outputs);
  ASSERT_EQ(q.steps.size(), p.steps.size());
  for (size_t k = 0; k < p.steps.size(); ++k) {
    EXPECT_EQ(q.steps[k].kernel, p.steps[k].kernel);
    EXPECT_EQ(q.steps[k].label, p.steps[k].label);
    EXPECT_EQ(q.steps[k].args, p.steps[k].args);
    EXPECT_EQ(q.steps[k].kind, p.steps[k].kind);
    EXPECT_EQ(q.steps[k].target, p.steps[k].target);
    EXPECT_EQ(q.steps[k].axis, p.steps[k].axis);
    EXPECT_EQ(q.steps[k].reverse, p.steps[k].reverse);
    EXPECT_EQ(q.steps[k].all_trips, p.steps[k].all_trips);
  }
  EXPECT_EQ(q.arena_bytes, p.arena_bytes);
  EXPECT_EQ(q.weights_bytes, p.weights_bytes);
  EXPECT_EQ(q.intermediate_bytes, p.intermediate_bytes);
  EXPECT_EQ(q.num_threads, p.num_threads);
  EXPECT_EQ(runtime::serialize_plan(q), bytes);
  // Little-endian and versioned: the magic, then version 6.
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 8), std::string("TSLPLAN\0", 8));
  EXPECT_EQ(bytes[8], 6);
  EXPECT_EQ(bytes[9] | bytes[10] | bytes[11], 0);
}

TEST(Plan, EmptyPlanRoundTrips) {
  std::vector<uint8_t> bytes = runtime::serialize_plan(ModelPlan{});
  ModelPlan q = runtime::deserialize_plan(bytes.data(), bytes.size());
  EXPECT_TRUE(q.tensors.empty());
  EXPECT_TRUE(q.steps.empty());
}

TEST(Plan, ErrorsNameTheByteAndTheProblem) {
  std::vector<uint8_t> bytes = runtime::serialize_plan(sample_plan());
  std::vector<uint8_t> bad = bytes;
  bad[0] = 'X';
  EXPECT_EQ(decode_error(bad), "model plan: byte 0: not a tessel model plan (bad magic)");
  bad = bytes;
  bad[8] = 7;
  EXPECT_EQ(decode_error(bad),
            "model plan: byte 8: unsupported plan version 7 (this runtime reads version 6): the "
            "library was made by another tessel version; compile the model again");
  bad = bytes;
  bad.push_back(0);
  EXPECT_EQ(decode_error(bad), "model plan: byte " + std::to_string(bytes.size()) +
                                   ": 1 unexpected bytes after the last step");
  bad.assign(bytes.begin(), bytes.end() - 24);  // into the last step's arguments
  EXPECT_NE(decode_error(bad).find("step arguments is 3 but only 9 bytes are left"),
            std::string::npos)
      << decode_error(bad);
  bad.assign(bytes.begin(), bytes.begin() + 10);
  EXPECT_EQ(decode_error(bad), "model plan: byte 8: truncated: version needs 4 bytes, 2 left");
}

TEST(Plan, RejectsInconsistentPlans) {
  auto expect = [](const ModelPlan& p, const std::string& text) {
    std::string m = plan_error(p);
    EXPECT_NE(m.find(text), std::string::npos) << m;
    EXPECT_EQ(m.rfind("model plan: byte ", 0), 0u) << m;
  };
  ModelPlan p = sample_plan();
  p.steps[0].args[2] = 99;
  expect(p, "step arguments: tensor id 99 out of range (the plan has 6 tensors)");
  p = sample_plan();
  p.outputs = {-1};
  expect(p, "outputs: tensor id -1 out of range");
  p = sample_plan();
  p.tensors[2].offset = 192;  // y: 128 bytes from 192 > arena_bytes 256
  expect(p, "tensor 2 ('y'): 128 bytes at offset 192 lie outside arena_bytes (256)");
  p = sample_plan();
  p.tensors[3].offset = 32;  // misaligned
  expect(p, "tensor 3 ('z'): offset 32 is not a multiple of 64");
  p = sample_plan();
  p.tensors[1].offset = 128;  // w beyond the weights
  expect(p, "tensor 1 ('w'): 128 bytes at offset 128 lie outside weights_bytes (192)");
  p = sample_plan();
  p.tensors[2].storage = runtime::Storage::Input;  // y claims to be input 0
  expect(p, "tensor 2 ('y'): input index 128 does not list it among the 1 inputs");
  p = sample_plan();
  p.inputs = {2};
  expect(p, "tensor 0 ('x'): input index 0 does not list it");
  p = sample_plan();
  p.tensors[0].dtype = runtime::DType{runtime::DTypeCode::Float, 12};
  expect(p, "tensor 0 ('x'): invalid dtype (code 2, 12 bits)");
  p = sample_plan();
  p.tensors[2].shape = {4, -8};
  expect(p, "tensor 2 ('y'): dimension 1 is -8");
  p = sample_plan();
  p.steps[0].kernel = "";
  expect(p, "step 0 (kernel): has no kernel name");
  p = sample_plan();
  p.arena_bytes = -1;
  expect(p, "arena_bytes is -1");
  p = sample_plan();
  p.num_threads = -2;
  expect(p, "num_threads is -2");
}

/// sample_plan with a loop around its two kernels: an int64 iteration in the arena, a row
/// slice, and steps 2-5 that test, slice, count and jump back.
ModelPlan loop_plan() {
  ModelPlan p = sample_plan();
  using runtime::DType, runtime::Storage, runtime::StepKind;
  p.tensors.push_back({"i", DType::Int(64), {}, Storage::Arena, 0});           // 6
  p.tensors.push_back({"true", DType::Bool(), {}, Storage::Weight, 64});       // 7
  p.tensors.push_back({"row", DType::Float(32), {kCols}, Storage::Arena, 0});  // 8
  auto step = [](StepKind kind, std::vector<int32_t> args, int32_t target = 0) {
    runtime::PlanStep s;
    s.kind = kind;
    s.args = std::move(args);
    s.target = target;
    return s;
  };
  p.steps.insert(p.steps.begin(), step(StepKind::LoopTest, {6, 5, 7}, 6));
  p.steps.insert(p.steps.begin() + 1, step(StepKind::SliceIn, {2, 8, 6}));
  p.steps.push_back(step(StepKind::Increment, {6}));
  p.steps.push_back(step(StepKind::Jump, {}, 0));
  p.steps[0].all_trips = true;
  return p;
}

TEST(Plan, ChecksControlSteps) {
  ModelPlan good = loop_plan();
  EXPECT_EQ(plan_error(good), "");
  std::vector<uint8_t> bytes = runtime::serialize_plan(good);
  EXPECT_TRUE(runtime::deserialize_plan(bytes.data(), bytes.size()).steps[0].all_trips);
  ModelPlan p = good;
  p.steps[5].target = 99;
  expect_error(p, "step 5 (jump): goes to step 99 of 6");
  p = good;
  p.steps[0].args[0] = 2;
  expect_error(p, "step 0 (loop test): iteration tensor 2 ('y') is not a int64 scalar");
  p = good;
  p.steps[0].args.pop_back();
  expect_error(p, "step 0 (loop test): takes 3 arguments, has 2");
  p = good;
  p.steps[4].args[0] = 5;
  expect_error(p, "step 4 (increment): writes tensor 5 ('scalar'), which is not in the arena");
  p = good;
  p.steps[1].axis = 2;
  expect_error(p, "step 1 (slice in): axis 2 is out of range for y");
  p = good;
  p.steps[1].axis = 1;
  expect_error(p, "step 1 (slice in): 'row' is not a slice of 'y' along axis 1");
  p = good;
  p.steps[1].kind = runtime::StepKind::Copy;
  p.steps[1].args = {2, 8};
  expect_error(
      p, "step 1 (copy): copies tensor 2 ('y') into tensor 8 ('row') of another dtype or size");
  p = good;
  p.steps[5].kernel = "k";
  expect_error(p, "step 5 (jump): names a kernel");
  p = good;
  p.steps[5].kind = static_cast<runtime::StepKind>(99);
  expect_error(p, "step 5 has the invalid kind 99");
}

TEST(Plan, EveryTruncationThrows) {
  std::vector<uint8_t> bytes = runtime::serialize_plan(sample_plan());
  for (size_t n = 0; n < bytes.size(); ++n) {
    // A copy of exactly n bytes, so that a read past the end is an ASan error.
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_THROW(runtime::deserialize_plan(prefix.data(), prefix.size()), runtime::Error)
        << "length " << n;
  }
}

TEST(Plan, CorruptedBytesThrowOrDecode) {
  std::vector<uint8_t> bytes = runtime::serialize_plan(sample_plan());
  std::mt19937 rng(42);
  int decoded = 0, rejected = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<uint8_t> bad = bytes;
    int flips = 1 + trial % 3;
    for (int f = 0; f < flips; ++f) {
      size_t at = rng() % bad.size();
      bad[at] = trial % 2 ? static_cast<uint8_t>(rng())
                          : static_cast<uint8_t>(bad[at] ^ (1u << (rng() % 8)));
    }
    try {
      ModelPlan q = runtime::deserialize_plan(bad.data(), bad.size());
      // What decodes is consistent: every id is in range.
      for (const runtime::PlanStep& s : q.steps)
        for (int32_t id : s.args) ASSERT_LT(static_cast<size_t>(id), q.tensors.size());
      ++decoded;
    } catch (const runtime::Error& e) {
      ASSERT_EQ(std::string(e.what()).rfind("model plan: byte ", 0), 0u) << e.what();
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 1000);
  EXPECT_GT(decoded, 100);  // flips in names, labels and filler decode fine
}

/// sample_plan with a symbolic batch: x a batched input, z a batched arena tensor of the
/// batch arena (one sample: 128 bytes at offset 64).
ModelPlan batched_plan() {
  ModelPlan p = sample_plan();
  p.batch_symbol = "N";
  p.batch_arena_bytes = 192;
  p.tensors[0].batched = true;
  p.tensors[3].batched = true;
  p.tensors[3].offset = 64;
  return p;
}

TEST(Plan, BatchedTensorsRoundTrip) {
  ModelPlan p = batched_plan();
  std::vector<uint8_t> bytes = runtime::serialize_plan(p);
  ModelPlan q = runtime::deserialize_plan(bytes.data(), bytes.size());
  EXPECT_EQ(q.batch_symbol, "N");
  EXPECT_EQ(q.batch_arena_bytes, 192);
  EXPECT_TRUE(q.tensors[0].batched);
  EXPECT_FALSE(q.tensors[1].batched);
  EXPECT_TRUE(q.tensors[3].batched);
  EXPECT_EQ(q.tensors[3].sample_stride(), 128);
  EXPECT_EQ(runtime::serialize_plan(q), bytes);
}

TEST(Plan, RejectsInconsistentBatches) {
  ModelPlan p = batched_plan();
  p.batch_symbol = "";
  p.batch_arena_bytes = 0;
  expect_error(p, "tensor 0 ('x'): batched, but the plan has no symbolic batch");
  p = batched_plan();
  p.batch_symbol = "";
  expect_error(p, "a batch arena of 192 bytes without a symbolic batch");
  p = batched_plan();
  p.tensors[1].batched = true;
  expect_error(p, "tensor 1 ('w'): batched, but it is a weight");
  p = batched_plan();
  p.tensors[3].offset = 128;  // 128 bytes per sample from 128 > 192
  expect_error(p, "tensor 3 ('z'): 128 bytes at offset 128 lie outside batch_arena_bytes (192)");
  p = loop_plan();
  p.batch_symbol = "N";
  p.batch_arena_bytes = 128;
  p.tensors[8].batched = true;  // the scanned row
  p.tensors[8].offset = 0;
  expect_error(
      p, "step 1 (slice in): touches batched tensor 8 ('row'); only kernels run sample by sample");
}

/// sample_plan with NonZero of x: the indices into tensor 6 ('nz', int64 [2, 32], its
/// second extent found by the run; outside the arena, so at offset 0).
ModelPlan data_dependent_plan() {
  ModelPlan p = sample_plan();
  p.tensors.push_back({"nz", runtime::DType::Int(64), {2, kSize}, runtime::Storage::Arena, 0});
  p.tensors.back().dynamic_dim = 1;
  p.arena_bytes = 2 * kSize * 8;  // room for 'nz' were it planned in the arena (checks below)
  runtime::PlanStep nonzero;
  nonzero.kind = runtime::StepKind::NonZero;
  nonzero.args = {0, 6};
  nonzero.label = "NonZero";
  p.steps.push_back(nonzero);
  p.outputs.push_back(6);
  return p;
}

TEST(Plan, DataDependentStepsRoundTrip) {
  ModelPlan p = data_dependent_plan();
  p.tensors.push_back({"u", runtime::DType::Float(32), {kSize}, runtime::Storage::Arena, 0});
  for (int k = 0; k < 3; ++k)
    p.tensors.push_back(
        {"i" + std::to_string(k), runtime::DType::Int(64), {kSize}, runtime::Storage::Arena, 0});
  p.tensors[7].dynamic_dim = p.tensors[8].dynamic_dim = p.tensors[10].dynamic_dim = 0;
  runtime::PlanStep unique;
  unique.kind = runtime::StepKind::Unique;
  unique.args = {0, 7, 8, 9, 10};
  unique.params = {-1, 1};
  p.steps.push_back(unique);
  std::vector<uint8_t> bytes = runtime::serialize_plan(p);
  ModelPlan q = runtime::deserialize_plan(bytes.data(), bytes.size());
  EXPECT_EQ(q.tensors[6].dynamic_dim, 1);
  EXPECT_EQ(q.tensors[9].dynamic_dim, -1);
  EXPECT_EQ(q.steps.back().kind, runtime::StepKind::Unique);
  EXPECT_EQ(q.steps.back().params, (std::vector<int64_t>{-1, 1}));
  EXPECT_EQ(runtime::serialize_plan(q), bytes);
}

TEST(Plan, ChecksDataDependentSteps) {
  const std::string wrong_output =
      "step 2 (NonZero): output 0 tensor 6 ('nz') is not an arena tensor of the type, largest "
      "shape and dynamic dimension the step writes";
  EXPECT_EQ(plan_error(data_dependent_plan()), "");
  ModelPlan p = data_dependent_plan();
  p.tensors[6].shape = {2, kSize / 2};  // too small for every element nonzero
  expect_error(p, wrong_output);
  p = data_dependent_plan();
  p.tensors[6].dynamic_dim = -1;
  expect_error(p, wrong_output);
  p = data_dependent_plan();
  p.tensors[6].dtype = runtime::DType::Int(32);
  expect_error(p, wrong_output);
  p = data_dependent_plan();
  p.tensors[6].dynamic_dim = 2;
  expect_error(p, "tensor 6 ('nz'): dynamic dimension 2 is out of range for rank 2");
  p = data_dependent_plan();
  p.tensors[0].dynamic_dim = 0;
  expect_error(p, "tensor 0 ('x'): a dynamic dimension, but not an unbatched arena tensor");
  p = data_dependent_plan();
  p.tensors[6].offset = 64;
  expect_error(p,
               "tensor 6 ('nz'): offset 64 for a tensor with a dynamic dimension, which lives "
               "outside the arena (expected 0)");
  p = data_dependent_plan();
  p.steps.back().kind = runtime::StepKind::Unique;
  p.steps.back().params = {5, 1};
  expect_error(p, "too few arguments");
  p.steps.back().args = {0, 6, 6, 6, 6};
  expect_error(p, "axis 5 is out of range for rank 2");
  p = data_dependent_plan();
  p.steps.back().params = {3};
  expect_error(p, "step 2 (NonZero): NonZero takes no parameters");
}

/// data_dependent_plan with the coordinates padded for kernels: tensor 7 ('nz.padded', in
/// the arena at the largest shape, its extent that of 'nz'), made by step 3.
ModelPlan padded_plan() {
  ModelPlan p = data_dependent_plan();
  p.tensors.push_back(p.tensors[6]);
  p.tensors.back().name = "nz.padded";
  p.tensors.back().extent_of = 6;
  runtime::PlanStep pad;
  pad.kind = runtime::StepKind::PadToBound;
  pad.args = {6, 7};
  p.steps.push_back(pad);
  return p;
}

TEST(Plan, ChecksPaddedTensors) {
  ModelPlan p = padded_plan();
  ASSERT_EQ(plan_error(p), "");
  std::vector<uint8_t> bytes = runtime::serialize_plan(p);
  EXPECT_EQ(runtime::deserialize_plan(bytes.data(), bytes.size()).tensors[7].extent_of, 6);
  p.steps[1].args[0] = 6;  // a kernel reading the compact coordinates at the largest shape
  expect_error(p, "touches tensor 6 ('nz'), whose extent the run finds, without padding it");
  p = padded_plan();
  p.tensors[7].extent_of = 99;
  expect_error(p, "tensor 7 ('nz.padded'): extent_of 99 names no tensor");
  p = padded_plan();
  p.tensors[7].extent_of = 1;
  expect_error(p, "which is no compact dynamic tensor of its largest extent");
  p = padded_plan();
  p.tensors[7].dynamic_dim = -1;
  expect_error(p, "extent_of 6 without a dynamic dimension");
  p = padded_plan();
  p.outputs.back() = 7;
  expect_error(p, "is padded tensor 7 ('nz.padded'); outputs are compact");
  p = padded_plan();
  p.tensors[7].shape = {1, 2 * kSize};
  expect_error(p, "which is no compact dynamic tensor of its largest extent");
  p = padded_plan();
  p.steps.back().kind = runtime::StepKind::TrimFromBound;
  expect_error(p, "step 3 (trim from bound): touches tensor 6 ('nz')");  // trims write 'nz'
  p = padded_plan();
  p.tensors[7].dtype = runtime::DType::Int(32);
  expect_error(p, "step 3 (pad to bound): 'nz.padded' is no padded twin of 'nz'");
  p = padded_plan();
  p.steps[2].args[0] = 7;  // NonZero of the padded twin
  expect_error(p, "reads padded tensor 7 ('nz.padded'); a step reads compact tensors");
}

TEST(Plan, ChecksKernelsOverBlocksOfRows) {
  // padded_plan with a kernel over blocks of 4 rows from tensor 8 into tensor 9 ('rows'
  // and 'twice', int64 [32, 2], padded along their leading dimension, its extent that of
  // 'nz').
  auto blocks_plan = [] {
    ModelPlan p = padded_plan();
    for (const char* name : {"rows", "twice"}) {
      p.tensors.push_back(p.tensors[7]);
      p.tensors.back().name = name;
      p.tensors.back().shape = {kSize, 2};
      p.tensors.back().dynamic_dim = 0;
    }
    runtime::PlanStep kernel;
    kernel.kernel = "k_rows";
    kernel.args = {8, 9};
    kernel.block_rows = 4;
    p.steps.push_back(kernel);
    return p;
  };
  ModelPlan p = blocks_plan();
  ASSERT_EQ(plan_error(p), "");
  std::vector<uint8_t> bytes = runtime::serialize_plan(p);
  EXPECT_EQ(runtime::deserialize_plan(bytes.data(), bytes.size()).steps.back().block_rows, 4);
  p.steps.back().block_rows = 5;  // 32 rows are no whole number of blocks of 5
  expect_error(p,
               "step 4 (kernel): runs per block of 5 rows, but tensor 8 ('rows') is not "
               "padded along its leading dimension");
  p = blocks_plan();
  p.steps.back().args = {7, 9};  // padded along its second dimension
  expect_error(p, "tensor 7 ('nz.padded') is not padded along its leading dimension");
  p = blocks_plan();
  p.steps.back().args = {0, 1};  // nothing padded
  expect_error(p, "runs per block of rows, but has no padded argument");
  p = blocks_plan();
  p.steps.back().block_rows = -2;
  expect_error(p, "block rows -2");
  p = blocks_plan();
  p.steps[3].block_rows = 4;
  expect_error(p, "step 3 (pad to bound): has 4 block rows, but runs no kernel");
}

/// sample_plan with x cast to text (tensor 6, string [4, 8]) and StringNormalizer of a
/// string input (tensor 7, [5]) into tensor 8 (string [5], its extent found by the run).
ModelPlan string_plan() {
  ModelPlan p = sample_plan();
  runtime::DType text = runtime::DType::String();
  p.tensors.push_back({"words", text, {kRows, kCols}, runtime::Storage::Arena, 256});
  p.tensors.push_back({"raw", text, {5}, runtime::Storage::Input, 1});
  p.tensors.push_back({"kept", text, {5}, runtime::Storage::Arena, 0});
  p.tensors.back().dynamic_dim = 0;
  p.inputs.push_back(7);
  p.arena_bytes = 512;
  runtime::PlanStep cast;
  cast.kind = runtime::StepKind::CastString;
  cast.args = {0, 6};
  cast.params = {static_cast<int64_t>(text.code), text.bits};
  p.steps.push_back(cast);
  runtime::PlanStep normalize;
  normalize.kind = runtime::StepKind::StringNormalizer;
  normalize.args = {7, 8};
  normalize.params = {2, 0};
  normalize.strings = {"monday", "", "\xC3\xA9t\xC3\xA9"};
  p.steps.push_back(normalize);
  p.outputs.push_back(6);
  p.outputs.push_back(8);
  return p;
}

TEST(Plan, StringStepsRoundTrip) {
  ModelPlan p = string_plan();
  std::vector<uint8_t> bytes = runtime::serialize_plan(p);
  ModelPlan q = runtime::deserialize_plan(bytes.data(), bytes.size());
  EXPECT_EQ(q.tensors[6].dtype, runtime::DType::String());
  EXPECT_EQ(q.steps.back().kind, runtime::StepKind::StringNormalizer);
  EXPECT_EQ(q.steps.back().strings, p.steps.back().strings);
  EXPECT_EQ(runtime::serialize_plan(q), bytes);
}

TEST(Plan, ChecksStringTensorsAndSteps) {
  EXPECT_EQ(plan_error(string_plan()), "");
  ModelPlan p = string_plan();
  p.tensors[5].dtype = runtime::DType::String();
  expect_error(p, "tensor 5 ('scalar'): a string weight");
  p = string_plan();
  p.steps[0].args = {6, 1, 2};
  expect_error(p, "step 0 (kernel): passes string tensor 6 ('words') to a kernel");
  p = string_plan();
  p.tensors[8].dynamic_dim = -1;
  expect_error(p, "step 3 (StringNormalizer): output 0 tensor 8 ('kept') is not an arena tensor");
  p = string_plan();
  p.steps[2].params = {static_cast<int64_t>(runtime::DTypeCode::Int), 32};
  expect_error(
      p, "step 2 (CastString): CastString: casts float32 to int32; one side must be a string");
  p = string_plan();
  p.tensors[6].dtype = runtime::DType{runtime::DTypeCode::String, 32};
  expect_error(p, "tensor 6 ('words'): invalid dtype (code 5, 32 bits)");
}

}  // namespace
}  // namespace tessel::deploy_test
