// Watching the loop-IR passes work: print the IR after each pass that changed it, with
// timings, for a softmax.
#include <iostream>

#include "driver/build.h"
#include "ops/softmax.h"
#include "schedules/cpu/softmax.h"

using namespace tessel;

int main() {
  te::Tensor x = te::placeholder({4, 40}, ir::DataType::Float(32), "X");
  te::Tensor y = ops::softmax(x, "softmax");
  schedule::Schedule s({y});
  schedules::schedule_softmax_cpu(s, y, 8);

  tir::PassOptions opts;
  opts.print_after = {"all"};
  opts.time_passes = true;
  opts.verify = true;
  opts.log = &std::cout;
  driver::lower_and_optimize(s, {x, y}, "softmax", opts);
  return 0;
}
