// report/progress_reporter.h — progress and the time left of a long `colo
// sim`, for a person at a terminal.
//
// The caller says how much work there is (in any unit: runs, weighted by
// their expected cost) and, as it goes, how much is done. The reporter
// writes through its sink at most once per `interval`: "colo: 42% done,
// about 1m10s left", the time left extrapolated from the wall time so far
// (elapsed x (total - done) / done). An estimate of the whole (Announce)
// that passes `announce_over` is said at once, with how it was made.
// Progress lines end in '\r' (rewritten in place); Finish blanks the last
// one, so the report that follows starts on a clean line. The
// sink is where the text goes; `colo sim` gives stderr when it is a
// terminal and none otherwise, so no progress ever reaches stdout, a file or
// the JSON. Time comes from the injected Clock, so tests need no terminal
// and no waiting. Not thread-safe: one thread reports.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "colo/clock.h"
#include "colo/time.h"

namespace colo::report {

struct ProgressOptions {
  // Least wall time between two progress lines. Default: 1 s.
  Duration interval = Seconds(1);
  // An estimate above this is announced at the start. Default: 1 minute.
  Duration announce_over = Seconds(60);
  // No line before this much wall time has passed (a short run prints
  // nothing). Default: 2 s.
  Duration quiet_for = Seconds(2);
};

// "45s", "3m20s", "1h05m".
std::string FormatEta(Duration d);

class ProgressReporter {
 public:
  using Sink = std::function<void(std::string_view)>;

  // `clock` must outlive the reporter. `total` > 0 units of work.
  ProgressReporter(const Clock& clock, Sink sink, double total,
                   ProgressOptions options = {});

  // An estimate of the whole run's wall time, and how it was made ("from a
  // 10 ms probe of the shared run: 2.1 simulated s per wall s"): said at
  // once when above options.announce_over, e.g. "colo: this run will take
  // about 3m20s (from ...)".
  void Announce(Duration estimate, std::string_view how);

  // `done` units of the total are done (clamped to [0, total]).
  void Update(double done);

  // Ends the progress line if one was written.
  void Finish();

 private:
  const Clock& clock_;
  Sink sink_;
  double total_ = 1;
  ProgressOptions options_;
  TimePoint start_;
  std::optional<TimePoint> last_line_;  // when the last line was written.
  bool line_open_ = false;              // a '\r' line awaits its end.
};

}  // namespace colo::report
