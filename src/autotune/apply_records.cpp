// choose_from_records: best record per task -> the kernel's schedule.
#include "autotune/apply_records.h"

#include "autotune/task.h"
#include "compiler/group_kernel.h"
#include "schedule/replay.h"
#include "support/error.h"

namespace tessel::autotune {

compiler::ScheduleChooser choose_from_records(std::shared_ptr<const RecordDatabase> db,
                                              std::string target,
                                              std::shared_ptr<std::vector<AppliedRecord>> applied) {
  return
      [db, target, applied](const compiler::GroupKernel& kernel) -> std::optional<schedule::Trace> {
        AppliedRecord entry;
        entry.task_key = task_key(kernel, target);
        std::optional<Record> best = db->best(entry.task_key, target);
        std::optional<schedule::Trace> trace;
        if (best) {
          entry.task_name = best->task_name;
          entry.best_cost = best->mean_cost();
          try {
            schedule::Trace candidate = schedule::Trace::from_json(best->trace_json);
            schedule::replay(kernel.scheduler->outputs(), candidate);  // still valid?
            trace = std::move(candidate);
            entry.tuned = true;
          } catch (const CompileError& e) {
            entry.note = std::string("record does not replay: ") + e.what();
          }
        }
        applied->push_back(std::move(entry));
        return trace;
      };
}

}  // namespace tessel::autotune
