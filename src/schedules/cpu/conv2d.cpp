// The direct CPU schedule of conv2d_nchw() (see conv2d.h).
#include "schedules/cpu/conv2d.h"

#include <algorithm>
#include <string>
#include <vector>

#include "schedules/cpu/target_budget.h"

namespace tessel::schedules {

Conv2dConfig default_conv2d_config() {
  return Conv2dConfig{};
}

int64_t fitted_conv_tile_ow(int64_t ow, int64_t vectors_per_column, const target::Target& target) {
  int64_t accumulators = direct_conv_accumulators(target);
  int64_t widest = std::max<int64_t>(1, accumulators / std::max<int64_t>(1, vectors_per_column));
  int64_t best = widest, best_padded = (ow + widest - 1) / widest * widest;
  for (int64_t t = widest - 1; t >= widest / 2 + 1; --t) {
    int64_t padded = (ow + t - 1) / t * t;
    if (padded < best_padded) {
      best = t;
      best_padded = padded;
    }
  }
  return best;
}

void schedule_conv2d_cpu(schedule::Schedule& s, const te::Tensor& conv_output,
                         const target::Target& target, const Conv2dConfig& config,
                         const te::Tensor& given_epilogue) {
  // Given conv2d_nchw's "<name>.k" stage, the convolution is the stage it reads and it is
  // the epilogue itself.
  te::Tensor out = conv_output, epilogue = given_epilogue;
  if (!out.op()->has_reduction()) {
    out = conv_output.op()->inputs.at(0);
    if (!epilogue.defined()) epilogue = conv_output;
  }
  const te::Tensor& padded = out.op()->inputs.at(0);
  const te::Tensor& packed = out.op()->inputs.at(1);
  int64_t block = *ir::as_const_int(packed.shape()[4]);
  // The accumulator stores the channels of a column together: [n][oh][ow][k].
  te::Tensor acc = s.cache_write(out, "local", schedule::Layout{}.reorder({0, 2, 3, 1}));
  // With an epilogue, each tile goes from the registers through the epilogue to memory.
  // (Inlining rebuilds the epilogue's operation: it is named by its stage from here on.)
  std::string tiled = s.stage(out).name;
  if (epilogue.defined() && epilogue.op().get() != out.op().get()) {
    tiled = s.stage(epilogue).name;
    s.compute_inline(out);
  }
  std::vector<std::string> axes = s.stage(tiled).roots;  // n, k, oh, ow

  auto [ko, ki] = s.split(tiled, axes[1], block);
  int64_t tile_ow = config.tile_ow > 0 ? config.tile_ow
                                       : fitted_conv_tile_ow(*ir::as_const_int(out.shape()[3]),
                                                             block / target.float_lanes(), target);
  auto [owo, owi] = s.split(tiled, axes[3], tile_ow);
  s.reorder(tiled, {axes[0], ko, axes[2], owo, ki, owi});
  std::string outer = s.fuse(tiled, s.fuse(tiled, axes[0], ko), axes[2]);
  if (config.parallel) s.parallel(tiled, outer);
  s.unroll(tiled, ki);

  s.compute_at(acc, tiled, owo);
  s.reorder(acc, {"rc", "ry", "rx", "n", "oh", "ow", "k"});
  s.unroll(acc, "ow");
  s.vectorize(acc, "k");

  if (!s.stage(padded).is_placeholder()) {
    std::vector<std::string> pad_loops = s.stage(padded).leaves;  // n, c, h, w
    std::string pad_outer = s.fuse(padded, pad_loops[0], pad_loops[1]);
    if (config.parallel) s.parallel(padded, pad_outer);
    s.vectorize(padded, pad_loops.back());
  }

  // Packing, unless the compiler folded it (constant weights): contiguous blocks.
  if (s.stage(packed).is_placeholder()) return;
  std::vector<std::string> pack_loops = s.stage(packed).leaves;  // kb, c, ry, rx, kk
  s.vectorize(packed, pack_loops.back());
}

}  // namespace tessel::schedules
