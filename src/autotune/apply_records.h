// Compiling with tuning records: each kernel takes the schedule of its task's best record.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "autotune/records.h"
#include "compiler/compile_model.h"

namespace tessel::autotune {

/// What applying records did, one entry per distinct kernel.
struct AppliedRecord {
  std::string task_key;
  std::string task_name;  ///< from the record ("" when the kernel had none)
  bool tuned = false;     ///< its best record's schedule was applied
  std::string note;       ///< why not, when a record exists but could not be replayed
  double best_cost = 0;
};

/// A ScheduleChooser that replays, for each kernel, the best record of its task on
/// `target` (a target_key) from `db`, and notes every decision in `applied`. A record
/// whose trace no longer replays is noted and the default schedule kept.
compiler::ScheduleChooser choose_from_records(std::shared_ptr<const RecordDatabase> db,
                                              std::string target,
                                              std::shared_ptr<std::vector<AppliedRecord>> applied);

}  // namespace tessel::autotune
