#include "report/progress_reporter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace colo::report {

std::string FormatEta(Duration d) {
  const int64_t s =
      std::max<int64_t>(0, (d.count() + 500'000'000) / 1'000'000'000);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

ProgressReporter::ProgressReporter(const Clock& clock, Sink sink, double total,
                                   ProgressOptions options)
    : clock_(clock),
      sink_(std::move(sink)),
      total_(total > 0 ? total : 1),
      options_(options),
      start_(clock.Now()) {}

void ProgressReporter::Announce(Duration estimate, std::string_view how) {
  if (!sink_ || estimate <= options_.announce_over) return;
  sink_(fmt::format("colo: this run will take about {} ({})\n",
                    FormatEta(estimate), how));
}

void ProgressReporter::Update(double done) {
  if (!sink_) return;
  const TimePoint now = clock_.Now();
  const Duration elapsed = now - start_;
  if (elapsed < options_.quiet_for) return;
  if (last_line_ && now - *last_line_ < options_.interval) return;
  done = std::clamp(done, 0.0, total_);
  std::string line = fmt::format("colo: {:.0f}% done", 100 * done / total_);
  if (done > 0) {
    const double left_ns =
        static_cast<double>(elapsed.count()) * (total_ - done) / done;
    line += ", about " +
            FormatEta(Duration(static_cast<int64_t>(std::llround(left_ns)))) +
            " left";
  }
  // Padded so that a shorter line overwrites a longer one.
  sink_(fmt::format("{:<40}\r", line));
  last_line_ = now;
  line_open_ = true;
}

void ProgressReporter::Finish() {
  if (!sink_ || !line_open_) return;
  sink_(fmt::format("{:<40}\r", ""));
  line_open_ = false;
}

}  // namespace colo::report
