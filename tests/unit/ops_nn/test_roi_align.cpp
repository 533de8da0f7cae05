// RoiAlign's refusals (its numbers are checked against ONNX Runtime in
// tests/onnx-cases/roi-align and against the ONNX node suite).
#include "unit/ops_test_util.h"

namespace tessel::ops::testing {
namespace {

TEST(RoiAlign, RefusesWhatItCannotCompile) {
  NDArray x = make_array(kF32, {1, 1, 4, 4}, std::vector<double>(16, 1.0));
  NDArray rois = make_array(kF32, {1, 4}, {0, 0, 3, 3});
  NDArray batch = make_array(kI64, {1}, {0});
  expect_compile_error(
      [&] {
        run_op("RoiAlign", {&x, &rois, &batch}, {}, 16);
      },
      "sampling_ratio 0 is not supported: an adaptive grid's size depends on the "
      "regions' values");
  NDArray wrong = make_array(kF32, {1, 3}, {0, 0, 3});
  expect_compile_error(
      [&] {
        run_op("RoiAlign", {&x, &wrong, &batch}, {{"sampling_ratio", Attribute::of_int(2)}}, 16);
      },
      "input rois [1, 3] must be [num_rois, 4]");
  expect_compile_error(
      [&] {
        run_op("RoiAlign", {&x, &rois, &batch},
               {{"sampling_ratio", Attribute::of_int(2)}, {"mode", Attribute::of_string("median")}},
               16);
      },
      "mode 'median' is not avg or max");
}

}  // namespace
}  // namespace tessel::ops::testing
