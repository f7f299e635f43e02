// Expected failures as values: a Status (ok, or a message that says what failed and where) and a
// Result<T> (a value, or the Status saying why there is none). Exceptions stay for what a caller
// cannot go on from (a damaged trace mid-read, a broken invariant); a function that can fail in
// the ordinary course of a run (a worker refused the handshake, a flag names a missing file)
// returns one of these instead of a bool and a std::string& out-parameter.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "fleet/util/exit_codes.h"

namespace fleet {

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  static Status error(std::string message, ExitCode code = ExitCode::kBadInput) {
    Status s;
    s.message_ = std::move(message);
    s.code_ = code;
    return s;
  }
  bool ok() const { return code_ == ExitCode::kOk; }
  explicit operator bool() const { return ok(); }
  const std::string& message() const { return message_; }
  // The exit status a binary ends with when this failure ends it.
  ExitCode code() const { return code_; }

 private:
  std::string message_;
  ExitCode code_ = ExitCode::kOk;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}            // NOLINT: implicit by design
  Result(Status failure) : status_(std::move(failure)) {}  // NOLINT: must not be ok
  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace fleet
