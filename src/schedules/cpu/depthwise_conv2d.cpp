// The column-vectorised CPU schedule of the depthwise conv2d (see depthwise_conv2d.h).
#include "schedules/cpu/depthwise_conv2d.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tessel::schedules {

void schedule_depthwise_conv2d_cpu(schedule::Schedule& s, const te::Tensor& out,
                                   const target::Target& target) {
  const te::Tensor& phases = out.op()->inputs.at(0);
  int64_t lanes = target.float_lanes();
  int64_t ow = *ir::as_const_int(out.shape()[3]);
  // Up to four vectors of columns: independent accumulation chains.
  int64_t tile = std::min<int64_t>(4 * lanes, (ow + lanes - 1) / lanes * lanes);
  te::Tensor acc = s.cache_write(out, "local");
  auto [owo, owi] = s.split(out, "ow", tile);
  std::string rows = s.fuse(out, s.fuse(out, "n", "c"), "oh");
  s.parallel(out, rows);
  s.vectorize(out, owi);

  s.compute_at(acc, out, owo);
  s.reorder(acc, {"ry", "rx", "n", "c", "oh", "ow"});
  s.unroll(acc, "ry");
  s.unroll(acc, "rx");
  s.vectorize(acc, "ow");

  std::vector<std::string> pad_loops = s.stage(phases).leaves;  // n, c, h, phase, q
  s.parallel(phases, s.fuse(phases, pad_loops[0], pad_loops[1]));
}

}  // namespace tessel::schedules
