// `colo run`, `colo top` and `colod` as a user types them: exit codes (2 on
// bad input) and a program run through `colo run` counted by colod.
#include <gtest/gtest.h>

#include "colod_harness.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;

const std::string kColo = kBin + "/colo";

int RunColo(const TempDir& dir, std::vector<std::string> args,
            std::string* out = nullptr) {
  args.insert(args.begin(), kColo);
  Process p(args, {}, dir.path() + "/colo.out", dir.path() + "/colo.err");
  const int rc = p.Wait(seconds(30));
  if (out != nullptr) *out = p.Output() + ReadFile(dir.path() + "/colo.err");
  return rc;
}

TEST(CliRuntimeTest, BadInputExitsTwo) {
  TempDir dir;
  std::string out;
  EXPECT_EQ(RunColo(dir, {"run", "--class", "urgent", "--", "/bin/true"}, &out),
            2);
  EXPECT_NE(out.find("--class must be"), std::string::npos) << out;
  EXPECT_EQ(RunColo(dir, {"run"}, &out), 2);
  EXPECT_EQ(RunColo(dir, {"run", "--", dir.path() + "/no-such-program"}, &out),
            2);
  EXPECT_EQ(RunColo(dir, {"top", "--interval-ms", "0", "--socket", "x"}), 2);
  // colod: unreadable or bad config.
  Process missing({kColod, "--config", dir.path() + "/none.yaml"}, {},
                  dir.path() + "/d.out", dir.path() + "/d.err");
  EXPECT_EQ(missing.Wait(seconds(10)), 2);
  std::ofstream(dir.path() + "/bad.yaml") << "policy: fastest\n";
  Process bad({kColod, "--config", dir.path() + "/bad.yaml"}, {},
              dir.path() + "/d.out", dir.path() + "/d.err");
  EXPECT_EQ(bad.Wait(seconds(10)), 2);
}

TEST(CliRuntimeTest, TopWithoutColodFails) {
  TempDir dir;
  std::string out;
  EXPECT_EQ(
      RunColo(dir, {"top", "--once", "--socket", dir.path() + "/none.sock"},
              &out),
      1);
  EXPECT_NE(out.find("cannot reach colod"), std::string::npos) << out;
}

TEST(CliRuntimeTest, RunAndTopAgainstColod) {
  if (!ProgramsBuilt())
    GTEST_SKIP() << "the CUDA test programs were not built (no nvcc)";
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  std::string out;
  ASSERT_EQ(RunColo(dir,
                    {"run", "--socket", colod.socket(), "--",
                     Program("infer_loop"), "3", "2", "10"},
                    &out),
            0)
      << out;
  EXPECT_EQ(ValueOf(out, "launched"), 6);
  ASSERT_EQ(
      RunColo(dir, {"top", "--once", "--json", "--socket", colod.socket()},
              &out),
      0)
      << out;
  nlohmann::json j =
      nlohmann::json::parse(out.substr(0, out.find('\n')), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_EQ(j["kernels_launched"], 6);
  // Alone on the device, a launch takes its solo time: stretch 1 (colod
  // times launches in simulated time, from the policy's hand-over to the
  // end; the program has gone, its class keeps the totals).
  const nlohmann::json& be = j["classes"]["best-effort"];
  EXPECT_EQ(be["launches_timed"], 6) << out;
  ASSERT_TRUE(be["stretch"].is_number()) << out;
  EXPECT_NEAR(be["stretch"].get<double>(), 1.0, 0.01) << out;
  EXPECT_GT(be["solo_ms"].get<double>(), 0) << out;
  EXPECT_EQ(j["classes"]["high"]["launches_timed"], 0) << out;
  EXPECT_TRUE(j["classes"]["high"]["stretch"].is_null()) << out;
  ASSERT_EQ(RunColo(dir, {"top", "--once", "--socket", colod.socket()}, &out),
            0)
      << out;
  EXPECT_NE(out.find("kernels 6 launched"), std::string::npos) << out;
  EXPECT_NE(out.find("high - over 0 launches, best-effort 1.00x over 6"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace colo::testing
