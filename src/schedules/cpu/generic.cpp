// The generic default CPU schedule (see generic.h).
#include "schedules/cpu/generic.h"

namespace tessel::schedules {

void schedule_generic(schedule::Schedule& s, const std::vector<te::Tensor>& outputs,
                      const target::Target& target) {
  for (const te::Tensor& out : outputs) {
    const schedule::Stage& stage = s.stage(out);
    if (stage.is_transformed() || stage.is_placeholder()) continue;
    std::vector<std::string> spatial;
    for (const std::string& root : stage.roots)
      if (stage.find_loop(root)->kind == ir::IterKind::DataPar) spatial.push_back(root);
    if (spatial.empty()) continue;
    bool has_reduction = spatial.size() < stage.roots.size();
    std::vector<int64_t> shape = te::static_shape(out);
    int lanes = target.float_lanes();
    if (!has_reduction && out.dtype() == ir::DataType::Float(32) && shape.back() >= lanes) {
      auto [outer, inner] = s.split(out, spatial.back(), lanes);
      s.vectorize(out, inner);
      spatial.back() = outer;
    }
    if (te::shape_size(shape) < kParallelMinElements) continue;
    std::string outermost = spatial.front();
    if (spatial.size() >= 3) {
      for (size_t k = 1; k + 1 < spatial.size(); ++k)
        outermost = s.fuse(out, outermost, spatial[k]);
    }
    s.parallel(out, outermost);
  }
}

}  // namespace tessel::schedules
