// Memory lanes live (issue 39): colod with a `jobs:` section and
// lane_trainer programs (tests/cuda_programs, nvcc-built) declaring memory
// through `colo run --memory-persistent --memory-ephemeral`, on the
// simulated GPU. Every wait is bounded; nothing asserts a wall time.
//
// The GPU: an A100 (40 GiB = 40960 MiB) with reserve_mib 40860 and no pad,
// so the lanes have C = 100 MiB usable. lane_step kernels take 2 ms each.
#include <gtest/gtest.h>

#include <csignal>
#include <string>
#include <vector>

#include "colod_harness.h"
#include "colod_lanes_harness.h"
#include "jobs/memory_lanes.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;
const std::string kColo = kBin + "/colo";
constexpr int64_t kMiB = int64_t{1} << 20;

std::string Config(const std::string& policy) {
  return LanesColodConfig("lane_step", 2000, "  policy: " + policy + "\n");
}

// `colo run` with declared memory: lane_trainer ARGS under colod.
std::unique_ptr<Process> RunDeclared(const Colod& colod, const TempDir& dir,
                                     const std::string& tag,
                                     const std::string& persistent,
                                     const std::string& ephemeral,
                                     std::vector<std::string> args) {
  return ColoRunDeclared(colod, dir, tag, persistent, ephemeral, {},
                         "lane_trainer", args);
}

// The client entry of process `pid` in colod's stats, or null.
nlohmann::json ClientOf(const nlohmann::json& stats, pid_t pid) {
  for (const nlohmann::json& c : stats["clients"]) {
    if (c["pid"] == pid) return c;
  }
  return nullptr;
}

std::string LaneState(const nlohmann::json& stats, pid_t pid) {
  const nlohmann::json c = ClientOf(stats, pid);
  if (c.is_null() || c["lane"].is_null()) return "";
  return c["lane"]["state"].get<std::string>();
}

// Three programs declare memory on C = 100 MiB under fair (one lane):
//   A (P 40, E 10) and B (P 40, E 10): 80 + max(10, 10) = 90 <= 100, both
//   admitted to the lane, one iteration at a time;
//   C (P 20, E 10): 100 + 10 = 110 > 100: waits, its first allocation held;
// once A or B leaves, 60 + 10 = 70 <= 100: C is admitted and runs.
// Every cudaStreamSynchronize of a lane client is an iteration boundary
// colod sees, so colod counts 400 + 400 + 20 iterations in all; the turn
// switches at some of them (at least once: fair hands B the turn at A's
// first boundary, B having had no GPU time), and never elsewhere.
TEST(ColodLanesTest, ThreeProgramsOneWaitsForItsLaneAndTurnsSwitchAtSyncs) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, Config("fair"));
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto a = RunDeclared(colod, dir, "a", "40MiB", "10MiB", {"400", "40", "10"});
  ASSERT_TRUE(colod.StatsReach([&](const nlohmann::json& j) {
    return LaneState(j, a->pid()) != "";
  })) << colod.Log();
  auto b = RunDeclared(colod, dir, "b", "40MiB", "10MiB", {"400", "40", "10"});
  ASSERT_TRUE(colod.StatsReach([&](const nlohmann::json& j) {
    const std::string s = LaneState(j, b->pid());
    return s != "" && s != "waiting";
  })) << colod.Log();
  auto c = RunDeclared(colod, dir, "c", "20MiB", "10MiB", {"20", "20", "10"});
  ASSERT_TRUE(colod.StatsReach([&](const nlohmann::json& j) {
    return LaneState(j, c->pid()) == "waiting" && j["lanes"]["waiting"] == 1;
  })) << colod.Log();
  // It asked for its memory and was not answered: no "allocated" yet.
  EXPECT_TRUE(
      colod.LogHas("allocation of 20971520 bytes waits until the "
                   "client is admitted to a memory lane"))
      << colod.Log();
  EXPECT_EQ(c->Output().find("allocated"), std::string::npos);
  EXPECT_TRUE(colod.LogHas("(pid " + std::to_string(c->pid()) +
                           ", lane_trainer): P 20 MiB + E 10 MiB (declared by "
                           "the client): waits for a memory lane"))
      << colod.Log();
  // A and B both make progress while C waits: they take turns.
  EXPECT_TRUE(colod.StatsReach([&](const nlohmann::json& j) {
    const nlohmann::json ca = ClientOf(j, a->pid());
    const nlohmann::json cb = ClientOf(j, b->pid());
    return !ca.is_null() && !cb.is_null() &&
           ca["lane"]["iterations"].get<int64_t>() > 0 &&
           cb["lane"]["iterations"].get<int64_t>() > 0;
  })) << colod.Log();

  EXPECT_EQ(a->Wait(seconds(120)), 0) << a->Output() << a->Errors();
  EXPECT_EQ(b->Wait(seconds(120)), 0) << b->Output() << b->Errors();
  EXPECT_EQ(c->Wait(seconds(120)), 0) << c->Output() << c->Errors();
  EXPECT_NE(a->Output().find("iterations=400"), std::string::npos);
  EXPECT_NE(c->Output().find("iterations=20"), std::string::npos);
  // C was admitted only after A or B had gone.
  const std::string log = colod.Log();
  const size_t admitted = log.find("(pid " + std::to_string(c->pid()) +
                                   ", lane_trainer): admitted");
  const size_t first_gone =
      std::min(log.find("(pid " + std::to_string(a->pid()) + ") disconnected"),
               log.find("(pid " + std::to_string(b->pid()) + ") disconnected"));
  ASSERT_NE(admitted, std::string::npos) << log;
  ASSERT_NE(first_gone, std::string::npos) << log;
  EXPECT_LT(first_gone, admitted) << log;

  const nlohmann::json j = colod.Stats();
  ASSERT_TRUE(j.is_object());
  const nlohmann::json& lanes = j["lanes"];
  EXPECT_EQ(lanes["policy"], "fair");
  EXPECT_EQ(lanes["iterations"].get<int64_t>(), 400 + 400 + 20);
  EXPECT_GE(lanes["switches"].get<int64_t>(), 1);
  EXPECT_LE(lanes["switches"].get<int64_t>(),
            lanes["iterations"].get<int64_t>());
  // Each switch to a parked program is timed until its first launch.
  EXPECT_GE(lanes["switch_us"]["measured"].get<int64_t>(), 1);
  EXPECT_EQ(lanes["waiting"], 0);
  EXPECT_EQ(lanes["used_bytes"], 0);
  std::printf("switches=%lld iterations=%lld switch_us mean=%.1f max=%.1f\n",
              static_cast<long long>(lanes["switches"].get<int64_t>()),
              static_cast<long long>(lanes["iterations"].get<int64_t>()),
              lanes["switch_us"]["mean"].get<double>(),
              lanes["switch_us"]["max"].get<double>());
}

// A program that allocates past its declaration (P 40 + E 10, then 20 MiB
// more) gets cudaErrorMemoryAllocation (2) for that allocation, and only
// it: B, beside it in the lane, allocates and runs as declared.
TEST(ColodLanesTest, AllocationPastTheDeclarationIsRefusedToThatProgramOnly) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, Config("fair"));
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto a = RunDeclared(colod, dir, "a", "40MiB", "10MiB",
                       {"20", "40", "10", "2", "20"});
  auto b = RunDeclared(colod, dir, "b", "40MiB", "10MiB", {"20", "40", "10"});
  EXPECT_EQ(a->Wait(seconds(60)), 0) << a->Output() << a->Errors();
  EXPECT_EQ(b->Wait(seconds(60)), 0) << b->Output() << b->Errors();
  EXPECT_NE(a->Output().find("over_error=2\n"), std::string::npos)
      << a->Output();
  EXPECT_NE(b->Output().find("iterations=20"), std::string::npos);
  const std::string log = colod.Log();
  EXPECT_NE(log.find("(pid " + std::to_string(a->pid()) +
                     "): allocation of 20971520 bytes refused"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("(pid " + std::to_string(b->pid()) + "): allocation"),
            std::string::npos)
      << log;
}

// P 90 + E 20 = 110 MiB > 100 MiB usable: refused at its hello with the
// figures (MemoryLanes::CheckFitsAlone's words), which the program's
// interposer prints; its CUDA calls fail.
TEST(ColodLanesTest, ADeclarationAboveTheGpuIsRefusedAtHelloWithTheFigures) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, Config("pack"));
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = RunDeclared(colod, dir, "p", "90MiB", "20MiB", {"1", "1", "1"});
  EXPECT_EQ(p->Wait(seconds(30)), 3) << p->Output() << p->Errors();
  jobs::LaneOptions o;
  o.capacity_bytes = int64_t{40} << 30;
  o.reserve_bytes = 40860 * kMiB;
  o.persistent_pad = 0;
  const std::string figures(
      jobs::MemoryLanes(o).CheckFitsAlone({90 * kMiB, 20 * kMiB}).message());
  ASSERT_FALSE(figures.empty());
  // The reason travels in a 200-byte field: its beginning, at least.
  EXPECT_NE(p->Errors().find(figures.substr(0, 150)), std::string::npos)
      << p->Errors() << "\nexpected: " << figures;
  EXPECT_NE(colod.Log().find("refused: " + figures), std::string::npos)
      << colod.Log();
}

// A holds the lane's turn in a long iteration (4000 kernels of 2 ms) when
// B joins its lane (fair: 40 + 40 + 10 <= 100) and parks; A is killed while
// it holds the turn. Its turn and memory go: B gets the turn and runs to
// its end.
TEST(ColodLanesTest, AProgramThatDiesHoldingTheTurnReleasesIt) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, Config("fair"));
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto a = RunDeclared(colod, dir, "a", "40MiB", "10MiB",
                       {"10", "40", "10", "4000"});
  ASSERT_TRUE(colod.StatsReach([&](const nlohmann::json& j) {
    return LaneState(j, a->pid()) == "running";
  })) << colod.Log();
  auto b = RunDeclared(colod, dir, "b", "40MiB", "10MiB", {"5", "40", "10"});
  ASSERT_TRUE(colod.StatsReach([&](const nlohmann::json& j) {
    const std::string s = LaneState(j, b->pid());
    return (s == "queued" || s == "parked") &&
           LaneState(j, a->pid()) == "running";
  })) << colod.Log();
  a->Kill();
  EXPECT_EQ(b->Wait(seconds(60)), 0) << b->Output() << b->Errors();
  EXPECT_NE(b->Output().find("iterations=5"), std::string::npos);
  EXPECT_TRUE(
      colod.LogHas("(pid " + std::to_string(a->pid()) + ") disconnected"))
      << colod.Log();
}

// Bad input: colod refuses a lane option with a policy without lanes and a
// simulation-only policy (exit 2, file:line); `colo run` refuses a size
// that is not one and a declaration of one kind only (exit 2).
TEST(ColodLanesTest, BadInputExitsTwo) {
  TempDir dir;
  const std::string cfg = dir.path() + "/bad.yaml";
  for (const auto& [text, says] :
       std::vector<std::pair<std::string, std::string>>{
           {"jobs:\n  policy: fair\n  max_lanes: 2\n",
            ":3: jobs.max_lanes: is a lane option"},
           {"jobs:\n  policy: pack-unsafe\n", ":2: jobs.policy:"}}) {
    std::ofstream(cfg) << text;
    Process p({kColod, "--config", cfg}, {}, dir.path() + "/d.out",
              dir.path() + "/d.err");
    EXPECT_EQ(p.Wait(seconds(10)), 2) << text;
    EXPECT_NE(p.Errors().find(cfg + says), std::string::npos) << p.Errors();
  }
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {"--memory-persistent", "2GB", "--memory-ephemeral", "1GiB"},
           {"--memory-persistent", "2GiB"}}) {
    std::vector<std::string> argv = {kColo, "run"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--", "/bin/true"});
    Process p(argv, {}, dir.path() + "/r.out", dir.path() + "/r.err");
    EXPECT_EQ(p.Wait(seconds(10)), 2) << p.Errors();
    EXPECT_NE(p.Errors().find("--memory-"), std::string::npos) << p.Errors();
  }
}

}  // namespace
}  // namespace colo::testing
