// TraceWriter against the Chrome trace-event format (trace_format.h), and
// the checker itself against traces that break it.
#include "trace/trace_writer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "scenario/test_files.h"
#include "trace/trace_format.h"

namespace colo::trace {
namespace {

using test::TraceFormatProblems;

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

TEST(TraceWriterTest, EveryPhaseHasTheFieldsTheFormatRequires) {
  test::ScratchDir dir("trace-writer");
  const std::string path = (dir.path() / "t.json").string();
  Result<std::unique_ptr<TraceWriter>> w = TraceWriter::Open(path);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  TraceWriter& writer = **w;
  writer.ProcessName(1, "gpu", 1);
  writer.ThreadName(1, 2, "kernels", 2);
  // 1,234,567 ns = 1234.567 us; 2,000,001 ns = 2000.001 us.
  writer.Complete(1, 2, "gemm", "kernel", AtNanos(1'234'567),
                  Nanoseconds(2'000'001), "\"sms\":54");
  writer.Instant(1, 2, "retreat", "policy", AtNanos(5), 't', "");
  writer.Counter(1, "utilization", AtNanos(0), "\"sm_active\":42.5");
  ASSERT_TRUE(writer.Finish("\"k\":1").ok());

  const nlohmann::json root = ReadJson(path);
  EXPECT_EQ(TraceFormatProblems(root), std::vector<std::string>{});
  const nlohmann::json& events = root["traceEvents"];
  // 2 events per name (name + sort index) x 2, then X, i, C.
  ASSERT_EQ(events.size(), 7u);
  EXPECT_EQ(writer.events(), 7);
  const nlohmann::json& x = events[4];
  EXPECT_EQ(x["ph"], "X");
  EXPECT_DOUBLE_EQ(x["ts"].get<double>(), 1234.567);
  EXPECT_DOUBLE_EQ(x["dur"].get<double>(), 2000.001);
  EXPECT_EQ(x["args"]["sms"], 54);
  EXPECT_EQ(x["cat"], "kernel");
  EXPECT_DOUBLE_EQ(events[5]["ts"].get<double>(), 0.005);
  EXPECT_EQ(events[5]["s"], "t");
  EXPECT_FALSE(events[5].contains("args"));
  EXPECT_EQ(events[6]["args"]["sm_active"], 42.5);
  EXPECT_EQ(root["metadata"]["k"], 1);
  EXPECT_EQ(root["displayTimeUnit"], "ns");
}

TEST(TraceWriterTest, NamesAreEscapedAndBadUtf8Replaced) {
  test::ScratchDir dir("trace-names");
  const std::string path = (dir.path() / "t.json").string();
  auto w = TraceWriter::Open(path);
  ASSERT_TRUE(w.ok());
  const std::string odd = "k\"er\\nel\n\t<T>";
  (*w)->ProcessName(1, "p", 1);
  (*w)->ThreadName(1, 1, "t", 1);
  (*w)->Complete(1, 1, odd, "kernel", TimeZero(), Duration(1), "");
  (*w)->Complete(1, 1, std::string("bad\xff\xfe utf8"), "kernel", TimeZero(),
                 Duration(1), "");
  ASSERT_TRUE((*w)->Finish("").ok());
  const nlohmann::json root = ReadJson(path);  // throws if not JSON
  EXPECT_EQ(root["traceEvents"][4]["name"], odd);
  // Each of the two bad bytes becomes U+FFFD (EF BF BD in UTF-8).
  EXPECT_EQ(root["traceEvents"][5]["name"], "bad\xef\xbf\xbd\xef\xbf\xbd utf8");
  EXPECT_EQ(JsonString("plain"), "\"plain\"");
}

TEST(TraceWriterTest, AWriterNotFinishedRemovesItsFile) {
  test::ScratchDir dir("trace-abandon");
  const std::string path = (dir.path() / "t.json").string();
  {
    auto w = TraceWriter::Open(path);
    ASSERT_TRUE(w.ok());
    (*w)->Counter(1, "c", TimeZero(), "\"v\":1");
    EXPECT_TRUE(std::filesystem::exists(path));
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(TraceWriterTest, AFileInAMissingDirectoryIsAnError) {
  test::ScratchDir dir("trace-missing");
  const std::string path = (dir.path() / "no" / "t.json").string();
  auto w = TraceWriter::Open(path);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(w.status().message().find(path), std::string::npos);
}

// In memory (colod's trace windows): the same text a file would hold, and
// its size, with no file anywhere. 2 metadata events for the process, 2
// for the thread, 1 complete event: 5.
TEST(TraceWriterTest, InMemoryKeepsTheWholeTraceAsText) {
  std::unique_ptr<TraceWriter> w = TraceWriter::InMemory();
  w->ProcessName(1, "p", 1);
  w->ThreadName(1, 1, "t", 1);
  w->Complete(1, 1, "k", "kernel", TimeZero() + Microseconds(5),
              Microseconds(2), "\"form\":\"whole\"");
  EXPECT_EQ(w->events(), 5);
  ASSERT_TRUE(w->Finish("\"generator\":\"test\"").ok());
  EXPECT_EQ(w->bytes(), w->text().size());
  const nlohmann::json t = nlohmann::json::parse(w->text());
  EXPECT_TRUE(TraceFormatProblems(t).empty());
  ASSERT_EQ(t["traceEvents"].size(), 5u);
  EXPECT_DOUBLE_EQ(t["traceEvents"][4]["ts"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(t["traceEvents"][4]["dur"].get<double>(), 2.0);
  EXPECT_EQ(t["metadata"]["generator"], "test");
  EXPECT_TRUE(w->path().empty());
}

// The checker must be able to fail: each trace breaks one rule.
TEST(TraceFormatCheckTest, FindsEachBrokenRule) {
  auto problems = [](const char* text) {
    return TraceFormatProblems(nlohmann::json::parse(text)).size();
  };
  const char* named =
      R"({"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"p"}},
         {"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"t"}})";
  auto with = [&](const std::string& event) {
    return "{\"traceEvents\":[" + std::string(named) + "," + event + "]}";
  };
  EXPECT_EQ(
      problems(with(R"({"name":"k","ph":"X","pid":1,"tid":1,"ts":1,"dur":2})")
                   .c_str()),
      0u);
  // X without dur; negative ts; string pid; unbalanced E; B never ended;
  // counter with a string value; instant of scope "x"; an unnamed thread.
  EXPECT_EQ(
      problems(with(R"({"name":"k","ph":"X","pid":1,"tid":1,"ts":1})").c_str()),
      1u);
  EXPECT_EQ(
      problems(with(R"({"name":"k","ph":"X","pid":1,"tid":1,"ts":-1,"dur":1})")
                   .c_str()),
      1u);
  EXPECT_EQ(
      problems(with(R"({"name":"k","ph":"X","pid":"1","tid":1,"ts":1,"dur":1})")
                   .c_str()),
      1u);
  EXPECT_EQ(
      problems(with(R"({"name":"k","ph":"E","pid":1,"tid":1,"ts":1})").c_str()),
      1u);
  EXPECT_EQ(
      problems(with(R"({"name":"k","ph":"B","pid":1,"tid":1,"ts":1})").c_str()),
      1u);
  EXPECT_EQ(
      problems(
          with(
              R"({"name":"c","ph":"C","pid":1,"tid":0,"ts":1,"args":{"v":"x"}})")
              .c_str()),
      1u);
  EXPECT_EQ(
      problems(with(R"({"name":"i","ph":"i","pid":1,"tid":1,"ts":1,"s":"x"})")
                   .c_str()),
      1u);
  EXPECT_EQ(
      problems(with(R"({"name":"k","ph":"X","pid":1,"tid":9,"ts":1,"dur":1})")
                   .c_str()),
      1u);
}

}  // namespace
}  // namespace colo::trace
