// colo/status.h — errors as values.
//
// Status carries success or one of a small set of error codes with a message a
// user can act on. Result<T> carries a T or a non-OK Status. Both are
// [[nodiscard]]: dropping one is a compile warning (an error in CI).
// Modelled on Abseil's status.h, reduced to what colo needs.
//
// Thread safety: value types; distinct objects may be used from distinct
// threads without synchronization.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace colo {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // the caller gave something malformed (bad input)
  kNotFound,            // a named thing (file, workload, GPU) does not exist
  kResourceExhausted,   // a limit was hit (memory, queue)
  kFailedPrecondition,  // the system is not in a state to do this
  kUnavailable,         // a peer (daemon, device) cannot be reached now
  kInternal,            // an invariant broke; a bug worth reporting
};

// Returns a stable lower-case name for `code`, e.g. "invalid argument".
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  // An OK status.
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "invalid argument: <message>" or "ok".
  std::string ToString() const;

  // Returns a copy whose message is "<prefix>: <message>". OK stays OK.
  Status WithContext(std::string_view prefix) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status OkStatus() { return Status(); }
inline Status InvalidArgumentError(std::string m) {
  return Status(StatusCode::kInvalidArgument, std::move(m));
}
inline Status NotFoundError(std::string m) {
  return Status(StatusCode::kNotFound, std::move(m));
}
inline Status ResourceExhaustedError(std::string m) {
  return Status(StatusCode::kResourceExhausted, std::move(m));
}
inline Status FailedPreconditionError(std::string m) {
  return Status(StatusCode::kFailedPrecondition, std::move(m));
}
inline Status UnavailableError(std::string m) {
  return Status(StatusCode::kUnavailable, std::move(m));
}
inline Status InternalError(std::string m) {
  return Status(StatusCode::kInternal, std::move(m));
}

// Whether `text` holds a control character (a byte below 0x20, or 0x7f),
// which would break a one-line message or a report's table.
bool HasControlCharacter(std::string_view text);
// `text` with each control character written as a C escape ("\n", "\t",
// "\r", else "\x07"), so that a message quoting user text stays one line.
// Other bytes (UTF-8 included) are kept.
std::string EscapeControlCharacters(std::string_view text);

// Result<T>: a T on success, a non-OK Status on failure.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    assert(!status_.ok() && "Result built from an OK Status has no value");
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  // REQUIRES: ok().
  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace colo

#define COLO_STATUS_CONCAT_INNER_(a, b) a##b
#define COLO_STATUS_CONCAT_(a, b) COLO_STATUS_CONCAT_INNER_(a, b)

// Returns from the enclosing function if `expr` (a Status) is not OK.
#define COLO_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::colo::Status colo_status_ = (expr);        \
    if (!colo_status_.ok()) return colo_status_; \
  } while (0)

// `lhs = value of rexpr` (a Result<T>), or returns its Status.
#define COLO_ASSIGN_OR_RETURN(lhs, rexpr)                                  \
  COLO_ASSIGN_OR_RETURN_IMPL_(COLO_STATUS_CONCAT_(colo_result_, __LINE__), \
                              lhs, rexpr)
#define COLO_ASSIGN_OR_RETURN_IMPL_(result, lhs, rexpr) \
  auto result = (rexpr);                                \
  if (!result.ok()) return result.status();             \
  lhs = std::move(result).value()
