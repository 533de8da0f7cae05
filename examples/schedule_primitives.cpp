// How each schedule primitive reshapes the loop nest of a matmul: the lowered IR is printed
// after every step.
#include <cstdio>

#include "ir/printer.h"
#include "lower/lower.h"
#include "ops/matmul.h"

using namespace tessel;

namespace {

void show(const char* step, const schedule::Schedule& s, const std::vector<te::Tensor>& args) {
  std::printf("---- %s\n%s\n", step, ir::to_string(lower::lower(s, args, "matmul")).c_str());
}

}  // namespace

int main() {
  te::Tensor a = te::placeholder({64, 32}, ir::DataType::Float(32), "A");
  te::Tensor b = te::placeholder({32, 48}, ir::DataType::Float(32), "B");
  te::Tensor c = ops::matmul(a, b, /*panel=*/32, "C");  // B packed in panels of 32 columns
  std::vector<te::Tensor> args = {a, b, c};
  schedule::Schedule s({c});
  show("as written", s, args);

  te::Tensor acc = s.cache_write(c, "local");
  show("cache_write(C, local): C copies from an accumulator stage", s, args);

  schedule::TileLoops t = s.tile(c, "i", "j", 8, 16);
  show("tile(C, i, j, 8, 16)", s, args);

  s.compute_at(acc, c, t.y_outer);
  show("compute_at(C.local, C, j.outer): one 8x16 accumulator per tile", s, args);

  s.reorder(acc, {"k", "i", "j"});
  s.unroll(acc, "i");
  s.vectorize(acc, "j");
  s.parallel(c, t.x_outer);
  show("reorder / unroll / vectorize / parallel", s, args);

  std::printf("---- the trace of this schedule\n%s\n", s.trace().to_json().c_str());
  return 0;
}
