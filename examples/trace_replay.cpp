// A schedule is a trace of primitives: save it as JSON, replay it onto a freshly built DAG,
// and get the identical loop IR.
#include <cstdio>

#include "ir/structural.h"
#include "lower/lower.h"
#include "ops/conv2d.h"
#include "schedule/replay.h"
#include "schedules/cpu/conv2d.h"
#include "target/host.h"

using namespace tessel;

namespace {

std::vector<te::Tensor> build_conv() {
  te::Tensor x = te::placeholder({1, 16, 14, 14}, ir::DataType::Float(32), "data");
  te::Tensor w = te::placeholder({16, 16, 3, 3}, ir::DataType::Float(32), "weight");
  return {x, w,
          ops::conv2d_nchw(x, w, {1, 1, schedules::conv2d_weight_block(tessel::target::host())},
                           "conv")};
}

}  // namespace

int main() {
  std::vector<te::Tensor> first = build_conv();
  schedule::Schedule s({first[2]});
  schedules::schedule_conv2d_cpu(s, first[2], tessel::target::host(),
                                 schedules::default_conv2d_config());
  std::string json = s.trace().to_json();
  std::printf("trace (%zu steps):\n%s\n", s.trace().steps().size(), json.c_str());

  std::vector<te::Tensor> second = build_conv();  // a fresh DAG with the same names
  schedule::Schedule replayed = schedule::replay({second[2]}, schedule::Trace::from_json(json));
  bool same = ir::structural_equal(lower::lower(s, first, "conv"),
                                   lower::lower(replayed, second, "conv"));
  std::printf("replayed schedule lowers to %s loop IR\n", same ? "identical" : "DIFFERENT");
  return same ? 0 : 1;
}
