// The smallest tessel program: describe c = a + b, schedule it, compile it, run it.
#include <cstdio>
#include <vector>

#include "driver/build.h"
#include "ir/printer.h"
#include "runtime/ndarray.h"
#include "schedule/schedule.h"
#include "te/compute.h"

using namespace tessel;

int main() {
  const int64_t n = 1000;
  te::Tensor a = te::placeholder({n}, ir::DataType::Float(32), "a");
  te::Tensor b = te::placeholder({n}, ir::DataType::Float(32), "b");
  te::Tensor c = te::compute({n}, [&](te::Var i) { return a(i) + b(i); }, "c", {"i"});

  // 1000 is not a multiple of 16: the split adds a guard that loop_partition peels off.
  schedule::Schedule s({c});
  auto [outer, inner] = s.split(c, "i", 16);
  s.parallel(c, outer);
  s.vectorize(c, inner);

  driver::Kernel kernel = driver::build(s, {a, b, c}, "vector_add");
  std::printf("%s", ir::to_string(kernel.optimized()).c_str());

  runtime::NDArray x({n}, runtime::DType::Float(32)), y({n}, runtime::DType::Float(32)),
      z({n}, runtime::DType::Float(32));
  for (int64_t i = 0; i < n; ++i) {
    x.data_as<float>()[i] = static_cast<float>(i);
    y.data_as<float>()[i] = 2.0f * static_cast<float>(i);
  }
  kernel.run({x.data(), y.data(), z.data()});
  int wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += z.data_as<float>()[i] != 3.0f * static_cast<float>(i);
  std::printf("%s\n", wrong == 0 ? "c = a + b: all 1000 elements right" : "WRONG RESULT");
  return wrong == 0 ? 0 : 1;
}
