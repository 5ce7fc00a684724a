// tools/top_trace.h — `colo top --trace FILE --seconds S`: asks colod for
// a trace window (kTrace, ipc/wire.h; runtime/live_trace.h) and writes the
// trace colod records over it, Chrome trace-event JSON that Perfetto UI
// opens.
#pragma once

#include <string>

#include "colo/status.h"

namespace colo::tools {

struct TopTraceRequest {
  std::string socket;      // colod's socket.
  std::string path;        // --trace: the file to write.
  std::string seconds;     // --seconds, as given: 0.001 to 600.
  std::string max_events;  // --trace-max-events, as given, or empty.
};

// Checks the flags and the path before asking colod (InvalidArgument, exit
// 2, for a bad one), waits out the window, writes the trace and says on
// stderr what it holds, and where it was cut. Unavailable if colod cannot
// be reached or refuses the window (one is open already).
Status RunTopTrace(const TopTraceRequest& request);

}  // namespace colo::tools
