// Fuzz target: the runtime's check of a model library's plan (the metadata a .so carries).
// An accepted plan serialises back to the same bytes.
#include <cstring>

#include "fuzz_util.h"
#include "runtime/model_plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessel;
  runtime::ModelPlan plan;
  if (!fuzz::accepts([&] { plan = runtime::deserialize_plan(data, size); })) return 0;
  std::vector<uint8_t> again = runtime::serialize_plan(plan);
  fuzz::require(again.size() == size && std::memcmp(again.data(), data, size) == 0,
                "an accepted plan serialises back to its bytes");
  return 0;
}
