// Error types: message formatting.
#include "support/error.h"

namespace tessel {

ScheduleError::ScheduleError(const std::string& stage, const std::string& loop,
                             const std::string& message)
    : CompileError("schedule error in stage '" + stage + "'" +
                   (loop.empty() ? std::string() : ", loop '" + loop + "'") + ": " + message),
      stage_(stage),
      loop_(loop) {}

InternalError::InternalError(const char* file, int line, const std::string& message)
    : std::logic_error(std::string("internal error at ") + file + ":" + std::to_string(line) +
                       ": " + message) {}

}  // namespace tessel
