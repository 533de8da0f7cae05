// The row-parallel CPU schedule of softmax() (see softmax.h).
#include "schedules/cpu/softmax.h"

namespace tessel::schedules {

void schedule_softmax_cpu(schedule::Schedule& s, const te::Tensor& y, int vector_lanes) {
  s.parallel(y, "n");
  auto [d_outer, d_inner] = s.split(y, "d", vector_lanes);
  s.vectorize(y, d_inner);
  for (const char* suffix : {".max", ".exp", ".sum"}) s.compute_at(y.name() + suffix, y, "n");
  auto [e_outer, e_inner] = s.split(y.name() + ".exp", "d", vector_lanes);
  s.vectorize(y.name() + ".exp", e_inner);
}

}  // namespace tessel::schedules
