// Progress for a person at a terminal, with a simulated clock: nothing for
// a short run, at most one line per interval, a time left extrapolated from
// the time so far, and an estimate over a minute announced at once.
#include "report/progress_reporter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace colo::report {
namespace {

using ::testing::HasSubstr;

struct Captured {
  std::vector<std::string> lines;
  ProgressReporter::Sink Sink() {
    return [this](std::string_view s) { lines.emplace_back(s); };
  }
};

TEST(ProgressReporterTest, FormatEtaRoundsToSecondsMinutesHours) {
  EXPECT_EQ(FormatEta(Milliseconds(44'600)), "45s");
  EXPECT_EQ(FormatEta(Seconds(200)), "3m20s");
  EXPECT_EQ(FormatEta(Seconds(3900)), "1h05m");
  EXPECT_EQ(FormatEta(Seconds(-5)), "0s");
}

// 10 units; after 4 s wall with 2 done, 8 remain at 2 s each: 16 s left.
// At 4.5 s (within the 1 s interval) nothing; at 6 s with 5 done, 6 s left.
TEST(ProgressReporterTest, TimeLeftIsExtrapolatedAndLinesAreSpaced) {
  SimClock clock;
  Captured out;
  ProgressReporter p(clock, out.Sink(), 10);
  clock.AdvanceTo(TimeZero() + Seconds(1));
  p.Update(1);  // within quiet_for (2 s): a short run prints nothing.
  EXPECT_TRUE(out.lines.empty());
  clock.AdvanceTo(TimeZero() + Seconds(4));
  p.Update(2);
  ASSERT_EQ(out.lines.size(), 1u);
  EXPECT_THAT(out.lines[0], HasSubstr("colo: 20% done, about 16s left"));
  EXPECT_EQ(out.lines[0].back(), '\r');
  clock.AdvanceTo(TimeZero() + Milliseconds(4500));
  p.Update(3);
  EXPECT_EQ(out.lines.size(), 1u);
  clock.AdvanceTo(TimeZero() + Seconds(6));
  p.Update(5);
  ASSERT_EQ(out.lines.size(), 2u);
  EXPECT_THAT(out.lines[1], HasSubstr("colo: 50% done, about 6s left"));
  p.Finish();
  ASSERT_EQ(out.lines.size(), 3u);
  EXPECT_EQ(out.lines[2].find_first_not_of(' '), out.lines[2].size() - 1);
}

TEST(ProgressReporterTest, AnEstimateOverAMinuteIsAnnounced) {
  SimClock clock;
  Captured out;
  ProgressReporter p(clock, out.Sink(), 1);
  p.Announce(Seconds(59), "from a probe");
  EXPECT_TRUE(out.lines.empty());
  p.Announce(Seconds(200), "from a 0.1 s probe");
  ASSERT_EQ(out.lines.size(), 1u);
  EXPECT_EQ(out.lines[0],
            "colo: this run will take about 3m20s (from a 0.1 s probe)\n");
}

// Without a sink (stderr not a terminal) nothing is written and nothing
// fails; a run that never printed needs no Finish line.
TEST(ProgressReporterTest, NoSinkNoOutput) {
  SimClock clock;
  ProgressReporter p(clock, nullptr, 4);
  clock.AdvanceTo(TimeZero() + Seconds(100));
  p.Announce(Seconds(1000), "x");
  p.Update(2);
  p.Finish();
  Captured out;
  ProgressReporter q(clock, out.Sink(), 4);
  q.Finish();
  EXPECT_TRUE(out.lines.empty());
}

}  // namespace
}  // namespace colo::report
