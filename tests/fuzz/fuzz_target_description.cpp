// Fuzz target: target descriptions, as --target and the library API take them. A
// description is parsed; an accepted one has lanes and registers of a real vector unit,
// prints a description that parses back to the same triple, CPU and features, and its
// features satisfy their own implications (parsing the printed text changes nothing).
// Refusals (CompileError) are fine.
#include "fuzz_util.h"
#include "target/parse_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessel;
  target::Target t;
  if (!fuzz::accepts([&] { t = target::parse_target(fuzz::as_string(data, size)); })) return 0;
  int lanes = t.float_lanes();
  fuzz::require(lanes == 4 || lanes == 8 || lanes == 16, "a target has 4, 8 or 16 float lanes");
  fuzz::require(t.vector_registers >= 16 && t.scalar_registers >= 16,
                "a target has a register file");
  target::Target again = target::parse_target(t.to_string());
  fuzz::require(again.triple == t.triple && again.cpu == t.cpu && again.features == t.features,
                "a target's description parses back to the same target");
  return 0;
}
