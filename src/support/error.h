// Errors raised by tessel.
//
// Two families, kept apart on purpose:
//  - CompileError: the user's mistake (a bad schedule, an unsupported shape, a bad model).
//    The message names the object, what was expected and what was found.
//    ScheduleError is the kind raised by schedule primitives; tuners catch it to drop a
//    candidate.
//  - InternalError: a bug in tessel (a broken invariant). Raised through TESSEL_ICHECK /
//    TESSEL_INTERNAL_ERROR with file and line.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace tessel {

/// A mistake in the user's input: model, operator description or schedule.
class CompileError : public std::runtime_error {
 public:
  explicit CompileError(const std::string& message) : std::runtime_error(message) {}
};

/// An illegal schedule primitive; names the stage and loop involved.
class ScheduleError : public CompileError {
 public:
  ScheduleError(const std::string& stage, const std::string& loop, const std::string& message);
  const std::string& stage() const { return stage_; }
  const std::string& loop() const { return loop_; }

 private:
  std::string stage_;
  std::string loop_;
};

/// A broken internal invariant: always a tessel bug.
class InternalError : public std::logic_error {
 public:
  InternalError(const char* file, int line, const std::string& message);
};

namespace detail {
/// Builds a message from stream-insertable parts.
template <class... Parts>
std::string concat(const Parts&... parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}
}  // namespace detail

}  // namespace tessel

/// Fails with an InternalError when `cond` is false; the remaining arguments form the message.
#define TESSEL_ICHECK(cond, ...)                                                          \
  do {                                                                                    \
    if (!(cond))                                                                          \
      throw ::tessel::InternalError(__FILE__, __LINE__, ::tessel::detail::concat(        \
                                                            "check failed: " #cond ": ", \
                                                            __VA_ARGS__));                \
  } while (0)

#define TESSEL_INTERNAL_ERROR(...) \
  throw ::tessel::InternalError(__FILE__, __LINE__, ::tessel::detail::concat(__VA_ARGS__))

/// Throws a CompileError built from the arguments.
#define TESSEL_USER_ERROR(...) throw ::tessel::CompileError(::tessel::detail::concat(__VA_ARGS__))
