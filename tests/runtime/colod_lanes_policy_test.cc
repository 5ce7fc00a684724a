// Live turns under priority, srtf and fifo (issue 39): colod with a `jobs:`
// section and lane_trainer programs (tests/cuda_programs) run through
// `colo run --memory-persistent --memory-ephemeral --iterations`, on the
// simulated GPU (an A100 with 100 MiB usable, as in colod_lanes_test.cc;
// lane_step kernels take 2 ms, 2 per iteration). What is compared is
// colod's own record of each client (joined, left, iterations: the stats'
// lanes.finished), never a wall-time threshold; every wait is bounded.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "colod_harness.h"
#include "colod_lanes_harness.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;
const std::string kColo = kBin + "/colo";

std::string Config(const std::string& jobs_extra) {
  return LanesColodConfig("lane_step", 2000, jobs_extra,
                          "grants:\n"
                          "  - {token: urgent, class: high}\n");
}

// `colo run` of lane_trainer ITERATIONS 10 5 declaring P 10 MiB, E 5 MiB
// and its iterations; `extra` goes before "--".
std::unique_ptr<Process> RunTrainer(const Colod& colod, const TempDir& dir,
                                    const std::string& tag, int iterations,
                                    std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), {"--iterations", std::to_string(iterations)});
  return ColoRunDeclared(colod, dir, tag, "10MiB", "5MiB", extra,
                         "lane_trainer",
                         {std::to_string(iterations), "10", "5"});
}

// colod's client id of process `pid` once it is in a lane, or -1.
int LaneClientId(const nlohmann::json& stats, pid_t pid) {
  for (const nlohmann::json& c : stats["clients"]) {
    if (c["pid"] == pid && !c["lane"].is_null()) return c["id"].get<int>();
  }
  return -1;
}

struct Finished {
  double jct_us = 0;  // left - joined, on colod's clock
  double left_us = 0;
  int64_t iterations = 0;
};

// lanes.finished by client id.
std::map<int, Finished> FinishedById(const nlohmann::json& stats) {
  std::map<int, Finished> out;
  for (const nlohmann::json& f : stats["lanes"]["finished"]) {
    out[f["id"].get<int>()] = {
        f["left_us"].get<double>() - f["joined_us"].get<double>(),
        f["left_us"].get<double>(), f["iterations"].get<int64_t>()};
  }
  return out;
}

// Runs lane_trainer programs of 400, 200 and 50 iterations under `policy`,
// all released at one instant: a blocker (P 90 + E 5 MiB of the 100)
// holds the GPU while the three join and wait for memory (95 + 10 + 5 >
// 100), and is killed once all three wait. Returns colod's record of each
// (in the order 400, 200, 50), with jct_us measured from the blocker's
// leaving, when the three were admitted.
std::vector<Finished> RunThree(const std::string& policy) {
  TempDir dir;
  Colod colod(dir, Config("  policy: " + policy + "\n"));
  EXPECT_TRUE(colod.ready()) << colod.Log();
  if (!colod.ready()) return {};
  Process blocker({kColo, "run", "--socket", colod.socket(),
                   "--memory-persistent", "90MiB", "--memory-ephemeral", "5MiB",
                   "--", Program("lane_trainer"), "1000000", "90", "5"},
                  {}, dir.path() + "/blocker.out", dir.path() + "/blocker.err");
  EXPECT_TRUE(colod.StatsReach([&](const nlohmann::json& j) {
    return LaneClientId(j, blocker.pid()) >= 0;
  })) << colod.Log();
  const int blocker_id = LaneClientId(colod.Stats(), blocker.pid());
  std::vector<std::unique_ptr<Process>> runs;
  std::vector<int> ids;
  for (int n : {400, 200, 50}) {
    runs.push_back(RunTrainer(colod, dir, std::to_string(n), n));
    const pid_t pid = runs.back()->pid();
    EXPECT_TRUE(colod.StatsReach([&](const nlohmann::json& j) {
      return LaneClientId(j, pid) >= 0;
    })) << colod.Log();
    ids.push_back(LaneClientId(colod.Stats(), pid));
  }
  EXPECT_EQ(colod.Stats()["lanes"]["waiting"], 3) << colod.Log();
  blocker.Kill();
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i]->Wait(seconds(120)), 0)
        << runs[i]->Output() << runs[i]->Errors();
  }
  std::map<int, Finished> by_id;
  EXPECT_TRUE(colod.StatsReach([&](const nlohmann::json& j) {
    by_id = FinishedById(j);
    return by_id.size() == 4;
  })) << colod.Log();
  const double released = by_id[blocker_id].left_us;
  std::vector<Finished> out;
  for (int id : ids) {
    out.push_back(by_id[id]);
    out.back().jct_us = out.back().left_us - released;
  }
  return out;
}

// Three programs of 400, 200 and 50 iterations (u = one iteration, the same
// for all: 2 kernels of 2 ms), released together (RunThree).
//   fifo runs them one at a time in arrival order: completions near 400u,
//   600u, 650u: average ~550u.
//   srtf gives the turn to the least remaining iterations x iteration time
//   (the same measured time for all): the 50 finishes first (~50u), then the
//   200 (~250u), then the 400 (~650u): average ~317u, below fifo's.
// Asserted: srtf's finishing order is shortest first, fifo's is arrival
// order, every program ran all its iterations in colod's count, and srtf's
// average completion (from colod's clock) is below fifo's.
TEST(ColodLanesPolicyTest, SrtfFinishesShortestFirstAndBeatsFifoOnAverage) {
  SKIP_WITHOUT_PROGRAMS();
  const std::vector<Finished> srtf = RunThree("srtf");
  const std::vector<Finished> fifo = RunThree("fifo");
  ASSERT_EQ(srtf.size(), 3u);
  ASSERT_EQ(fifo.size(), 3u);
  const int64_t iterations[] = {400, 200, 50};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(srtf[i].iterations, iterations[i]);
    EXPECT_EQ(fifo[i].iterations, iterations[i]);
  }
  EXPECT_LT(srtf[2].left_us, srtf[1].left_us);  // 50 before 200
  EXPECT_LT(srtf[1].left_us, srtf[0].left_us);  // 200 before 400
  EXPECT_LT(fifo[0].left_us, fifo[1].left_us);  // fifo: arrival order
  EXPECT_LT(fifo[1].left_us, fifo[2].left_us);
  auto average = [](const std::vector<Finished>& f) {
    return (f[0].jct_us + f[1].jct_us + f[2].jct_us) / 3;
  };
  EXPECT_LT(average(srtf), average(fifo));
  std::printf(
      "average completion (colod, from the release): srtf %.1f ms, fifo "
      "%.1f ms, "
      "ratio %.3f\n",
      average(srtf) / 1000, average(fifo) / 1000,
      average(srtf) / average(fifo));
}

// pack with one lane (max_lanes: 1): in a lane the client admitted first
// keeps the turn, so a best-effort program B arriving behind A would wait
// for all of A's 400 iterations. H, granted high (token), arriving after
// A: A gives the turn up at its next boundary, H runs its 30 iterations and
// leaves while A still has most of its own left: H leaves before A, and B
// (best effort, also behind A) after A, colod's records say.
TEST(ColodLanesPolicyTest, HighPriorityNeverWaitsBehindBestEffort) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, Config("  policy: pack\n  max_lanes: 1\n"));
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto a = RunTrainer(colod, dir, "a", 400);
  ASSERT_TRUE(colod.StatsReach([&](const nlohmann::json& j) {
    return LaneClientId(j, a->pid()) >= 0;
  })) << colod.Log();
  const int a_id = LaneClientId(colod.Stats(), a->pid());
  auto b = RunTrainer(colod, dir, "b", 30);
  ASSERT_TRUE(colod.StatsReach([&](const nlohmann::json& j) {
    return LaneClientId(j, b->pid()) >= 0;
  })) << colod.Log();
  const int b_id = LaneClientId(colod.Stats(), b->pid());
  auto h =
      RunTrainer(colod, dir, "h", 30, {"--class", "high", "--token", "urgent"});
  EXPECT_EQ(h->Wait(seconds(120)), 0) << h->Output() << h->Errors();
  EXPECT_EQ(a->Wait(seconds(120)), 0) << a->Output() << a->Errors();
  EXPECT_EQ(b->Wait(seconds(120)), 0) << b->Output() << b->Errors();
  EXPECT_TRUE(colod.LogHas("(pid " + std::to_string(h->pid()) + ", uid"))
      << colod.Log();
  EXPECT_TRUE(colod.LogHas("registered as high")) << colod.Log();
  std::map<int, Finished> done;
  ASSERT_TRUE(colod.StatsReach([&](const nlohmann::json& j) {
    done = FinishedById(j);
    return done.size() == 3;
  })) << colod.Log();
  int h_id = -1;
  for (const auto& [id, f] : done) {
    if (id != a_id && id != b_id) h_id = id;
  }
  ASSERT_GE(h_id, 0);
  EXPECT_EQ(done[h_id].iterations, 30);
  EXPECT_EQ(done[a_id].iterations, 400);
  EXPECT_LT(done[h_id].left_us, done[a_id].left_us);
  EXPECT_LT(done[a_id].left_us, done[b_id].left_us);
}

// Programs that declare nothing run outside the lanes, and their memory is
// in the safety condition (C = 100 MiB usable, fair, no pad):
//   A declares P 40 + E 10: 50 MiB.
//   U1 declares nothing and allocates 20 + 10 MiB: 50 + 30 = 80 <= 100,
//   granted; then 40 MiB more: 80 + 40 = 120 > 100: refused with
//   cudaErrorMemoryAllocation (2), to U1 only, with a log line.
//   U2 (after U1 has gone) allocates 20 + 10, then 20 more: 50 + 50 = 100
//   <= 100: granted (0).
// A runs on throughout; once U1 and U2 have gone nothing is held outside.
TEST(ColodLanesPolicyTest, UndeclaredMemoryCountsInTheSafetyCondition) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, Config("  policy: fair\n"));
  ASSERT_TRUE(colod.ready()) << colod.Log();
  Process a({kColo, "run", "--socket", colod.socket(), "--memory-persistent",
             "40MiB", "--memory-ephemeral", "10MiB", "--",
             Program("lane_trainer"), "100000", "40", "10"},
            {}, dir.path() + "/a.out", dir.path() + "/a.err");
  ASSERT_TRUE(colod.StatsReach([&](const nlohmann::json& j) {
    return LaneClientId(j, a.pid()) >= 0;
  })) << colod.Log();
  auto undeclared = [&](const std::string& tag, const std::string& over) {
    return std::make_unique<Process>(
        std::vector<std::string>{kColo, "run", "--socket", colod.socket(), "--",
                                 Program("lane_trainer"), "5", "20", "10", "2",
                                 over},
        std::map<std::string, std::string>{}, dir.path() + "/" + tag + ".out",
        dir.path() + "/" + tag + ".err");
  };
  auto u1 = undeclared("u1", "40");
  EXPECT_EQ(u1->Wait(seconds(60)), 0) << u1->Output() << u1->Errors();
  EXPECT_NE(u1->Output().find("over_error=2\n"), std::string::npos)
      << u1->Output();
  EXPECT_NE(u1->Output().find("iterations=5"), std::string::npos);
  EXPECT_TRUE(colod.LogHas("(pid " + std::to_string(u1->pid()) +
                           "): allocation of 41943040 bytes refused: the "
                           "client declares no memory"))
      << colod.Log();
  auto u2 = undeclared("u2", "20");
  EXPECT_EQ(u2->Wait(seconds(60)), 0) << u2->Output() << u2->Errors();
  EXPECT_NE(u2->Output().find("over_error=0\n"), std::string::npos)
      << u2->Output();
  EXPECT_TRUE(colod.StatsReach([&](const nlohmann::json& j) {
    return j["lanes"]["outside_bytes"] == 0 &&
           j["lanes"]["used_bytes"] == 50 * (int64_t{1} << 20);
  })) << colod.Log();
  EXPECT_EQ(
      colod.Log().find("(pid " + std::to_string(a.pid()) + "): allocation"),
      std::string::npos);
  a.Kill();
}

}  // namespace
}  // namespace colo::testing
