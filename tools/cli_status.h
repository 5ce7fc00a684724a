// tools/cli_status.h — how the `colo` executables report a Status to a user.
//
// Bad input (InvalidArgument, NotFound) exits with status 2, anything else
// that failed with 1, success with 0. Messages go to stderr as
// "colo: error: <message>".
#pragma once

#include <cstdio>

#include "colo/status.h"

namespace colo::tools {

inline int ExitCodeFor(const Status& s) {
  if (s.ok()) return 0;
  if (s.code() == StatusCode::kInvalidArgument ||
      s.code() == StatusCode::kNotFound)
    return 2;
  return 1;
}

// Prints the error (if any) and returns the exit code for it.
inline int ReportStatus(const Status& s) {
  if (!s.ok()) std::fprintf(stderr, "colo: error: %s\n", s.message().c_str());
  return ExitCodeFor(s);
}

}  // namespace colo::tools
