// Arrival traces: Orion's inter-arrival JSON and one-timestamp-per-line text.
#include "profile/arrival_trace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "temp_dir.h"

namespace colo::profile {
namespace {

using ::testing::HasSubstr;

TEST(ArrivalTraceTest, OrionInterArrivalTimes) {
  // README §1: 6240 inter-arrival times, total 299.7 s, mean 0.048 s. Every
  // value has 3 decimals, so each rounds to whole microseconds exactly and the
  // last offset (the cumulative sum) is exactly 299.733 s; mean gap =
  // 299.733 / 6240 = 0.048034 s. The first offset is the first gap, 0.031 s.
  auto t = LoadArrivalTrace(std::string(COLO_DATA_DIR) +
                            "/orion/inter_arrival_times.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->size(), 6240u);
  EXPECT_EQ(t->front(), Milliseconds(31));
  EXPECT_EQ(t->back(), Milliseconds(299733));
  EXPECT_NEAR(ToSeconds(t->back()), 299.7, 0.05);
  EXPECT_NEAR(ToSeconds(t->back()) / t->size(), 0.048, 0.0005);
  // min gap 0.004 s, max 0.213 s: offsets strictly increase.
  for (size_t i = 1; i < t->size(); ++i) {
    const Duration gap = (*t)[i] - (*t)[i - 1];
    ASSERT_GE(gap, Milliseconds(4)) << i;
    ASSERT_LE(gap, Milliseconds(213)) << i;
  }
}

class ArrivalTraceFiles : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(dir_.ok()); }
  std::string Write(const std::string& contents) {
    return dir_.Write("trace" + std::to_string(n_++), contents);
  }
  // Expects InvalidArgument with "<path><where>" and `what` in the message.
  void ExpectBad(const std::string& contents, const std::string& where,
                 const std::string& what) {
    const std::string path = Write(contents);
    auto t = LoadArrivalTrace(path);
    ASSERT_FALSE(t.ok()) << contents;
    EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(t.status().message(), HasSubstr(path + where));
    EXPECT_THAT(t.status().message(), HasSubstr(what));
  }
  testing::TempDir dir_;
  int n_ = 0;
};

TEST_F(ArrivalTraceFiles, JsonGapsAreSummed) {
  // Gaps 0.5, 0, 1.25 -> offsets 0.5, 0.5, 1.75 s (a zero gap is a burst).
  auto t = LoadArrivalTrace(Write("  \n[0.5, 0, 1.25]"));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(*t, (std::vector<Duration>{Milliseconds(500), Milliseconds(500),
                                       Milliseconds(1750)}));
}

TEST_F(ArrivalTraceFiles, TextTimestampsWithHeaderCommentsAndCrlf) {
  // Line 1 is a header, line 2 a comment, line 4 blank; "2.5,extra" keeps its
  // first field; equal timestamps are allowed (non-decreasing).
  auto t =
      LoadArrivalTrace(Write("timestamp_s\r\n# from a log\r\n0.25\r\n\r\n1 # "
                             "one second\r\n2.5,extra\r\n2.5"));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(*t,
            (std::vector<Duration>{Milliseconds(250), Seconds(1),
                                   Milliseconds(2500), Milliseconds(2500)}));
}

TEST_F(ArrivalTraceFiles, JsonErrorsNameTheIndex) {
  ExpectBad("[0.1, -0.2, 0.3]", ": [1]",
            "inter-arrival time must be >= 0 s, got -0.2");
  ExpectBad("[0.1, \"x\"]", ": [1]", "expected a number of seconds, got \"x\"");
  ExpectBad("[0.1, null]", ": [1]", "expected a number");
  ExpectBad("[]", ":", "empty trace");
  ExpectBad("[0.1, 0.2", ":", "invalid JSON (byte");
  ExpectBad("[0.1, 1e300]", ": [1]", "out of range");
}

TEST_F(ArrivalTraceFiles, TextErrorsNameTheLine) {
  ExpectBad("0.1\n0.2\nabc\n",
            ":3:", "expected an arrival time in seconds, got 'abc'");
  ExpectBad("0.1\n-0.2\n", ":2:", "must be >= 0 s");
  ExpectBad("0.1\n0.5\n0.4\n", ":3:", "earlier than the one before (0.5 s)");
  ExpectBad("0.1\ntime\n", ":2:", "got 'time'");  // a header only on line 1.
  ExpectBad("", ":", "empty trace");
  // A header with nothing below it: line 1 is named, not "empty".
  ExpectBad("time_s\n# nothing\n", ":1:",
            "got 'time_s' (read as a header line, and no arrival time follows");
  ExpectBad("nan\n", ":1:", "got 'nan'");
  ExpectBad("0\n0x10\n", ":2:", "got '0x10'");  // not 16 s
  // JSON: a number past double's range, and an object, are errors too.
  ExpectBad("[0.01, 1e400]", ":", "invalid JSON");
  ExpectBad("{\"a\": 1}", ":", "expected a JSON array");
  ExpectBad("0\ninf\n", ":2:", "got 'inf'");
}

TEST_F(ArrivalTraceFiles, MissingFileIsNotFound) {
  auto t = LoadArrivalTrace(dir_.path() + "/none.json");
  EXPECT_EQ(t.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace colo::profile
