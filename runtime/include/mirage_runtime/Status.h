//===- Status.h - Errors without exceptions ---------------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// The runtime builds without exceptions: fallible functions return a Status
// (success or a message) or an Expected<T> (a value or a message). Messages
// are complete sentences for people; callers prefix context as they go up.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_RUNTIME_STATUS_H
#define MIRAGE_RUNTIME_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace mirage::runtime {

/// Success, or an error with its message.
class [[nodiscard]] Status {
public:
  static Status success() { return Status(); }
  static Status error(std::string message) {
    Status status;
    status.failed = true;
    status.text = std::move(message);
    return status;
  }

  bool ok() const { return !failed; }
  const std::string &message() const { return text; }

  /// Prepends `context` (e.g. "kernels.ptx: ") to the message of an error.
  Status withContext(const std::string &context) && {
    if (failed)
      text = context + text;
    return std::move(*this);
  }

private:
  Status() = default;
  bool failed = false;
  std::string text;
};

/// A value, or the error that prevented computing it.
template <typename T>
class [[nodiscard]] Expected {
public:
  Expected(T result) : value(std::move(result)) {}
  /// `error` must be a failed Status.
  Expected(Status failure) : error(std::move(failure)) {
    assert(!error.ok() && "Expected built from a successful Status");
  }

  bool ok() const { return value.has_value(); }
  explicit operator bool() const { return ok(); }

  T &operator*() { return *value; }
  const T &operator*() const { return *value; }
  T *operator->() { return &*value; }
  const T *operator->() const { return &*value; }

  /// The error; only meaningful when !ok().
  const Status &status() const { return error; }
  const std::string &message() const { return error.message(); }

private:
  std::optional<T> value;
  Status error = Status::success();
};

} // namespace mirage::runtime

#endif // MIRAGE_RUNTIME_STATUS_H
