// Fuzz target: importing tuning records (JSON lines) into a records database in memory.
// Every imported record is stored: the database then holds as many as the import reported.
#include <sstream>

#include "autotune/records.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessel;
  autotune::RecordDatabase db(":memory:");
  std::istringstream in(fuzz::as_string(data, size));
  size_t imported = 0;
  if (!fuzz::accepts([&] { imported = db.import_jsonl(in, "fuzz.jsonl"); })) {
    fuzz::require(db.all().empty(), "a refused import stores nothing");
    return 0;
  }
  fuzz::require(db.all().size() == imported, "the database holds every imported record");
  return 0;
}
