// Iteration boundaries at NVTX ranges and live pairing by busy fraction
// (issue 39), end to end: colod with a `jobs:` section on the simulated GPU
// (an A100 with 100 MiB usable, as in colod_lanes_test.cc), nvtx_trainer
// (tests/cuda_programs, nvcc-built, NVTX v3 from the toolkit) run through
// `colo run`. What is compared is colod's own record (its stats), never a
// wall-time threshold; every wait is bounded.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "colod_harness.h"
#include "colod_lanes_harness.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;

std::string Config(const std::string& policy, int kernel_us) {
  return LanesColodConfig("nvtx_step", kernel_us, "  policy: " + policy + "\n");
}

// `colo run` of nvtx_trainer ARGS declaring P 10 MiB + E 5 MiB (its own
// allocations), with `extra` before "--".
std::unique_ptr<Process> RunTrainer(const Colod& colod, const TempDir& dir,
                                    const std::string& tag,
                                    std::vector<std::string> extra,
                                    std::vector<std::string> args) {
  return ColoRunDeclared(colod, dir, tag, "10MiB", "5MiB", extra,
                         "nvtx_trainer", args);
}

// The iterations colod counted for the n-th client to leave (0-based), once
// n + 1 have left; -1 if that never happens.
int64_t FinishedIterations(const Colod& colod, size_t n) {
  int64_t iterations = -1;
  colod.StatsReach([&](const nlohmann::json& j) {
    if (j["lanes"]["finished"].size() <= n) return false;
    iterations = j["lanes"]["finished"][n]["iterations"].get<int64_t>();
    return true;
  });
  return iterations;
}

// nvtx_trainer 12 4 3 0: 12 ranges "train_step" (each with a nested
// "forward"), 3 synchronizing calls in each, 1 in a top-level "setup"
// range before and 1 after: 1 + 12 x 3 + 1 = 38 syncs, 13 top-level ranges.
//   --iteration-range train_step: colod counts 12 iterations, all at ranges.
//   no --iteration-range: every sync is a boundary: at least 12 x 3 = 36.
//   --iteration-range '*': the 13 ranges pushed at depth 0.
TEST(ColodIterationMarksTest, NvtxRangesCountIterationsNotSyncs) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, Config("fifo", 1000));
  ASSERT_TRUE(colod.ready()) << colod.Log();
  const std::vector<std::string> args = {"12", "4", "3", "0"};
  auto ranged = RunTrainer(colod, dir, "ranged",
                           {"--iteration-range", "train_step"}, args);
  ASSERT_EQ(ranged->Wait(seconds(120)), 0)
      << ranged->Output() << ranged->Errors();
  EXPECT_NE(ranged->Output().find("iterations=12 syncs=38"), std::string::npos)
      << ranged->Output();
  EXPECT_TRUE(colod.LogHas("iterations end at its NVTX ranges")) << colod.Log();
  EXPECT_EQ(FinishedIterations(colod, 0), 12) << colod.Log();
  EXPECT_EQ(colod.Stats()["lanes"]["ranged_iterations"], 12);

  auto syncs = RunTrainer(colod, dir, "syncs", {}, args);
  ASSERT_EQ(syncs->Wait(seconds(120)), 0) << syncs->Output() << syncs->Errors();
  EXPECT_GE(FinishedIterations(colod, 1), 36) << colod.Log();

  auto any = RunTrainer(colod, dir, "any", {"--iteration-range", "*"}, args);
  ASSERT_EQ(any->Wait(seconds(120)), 0) << any->Output() << any->Errors();
  EXPECT_EQ(FinishedIterations(colod, 2), 13) << colod.Log();
  EXPECT_EQ(colod.Stats()["lanes"]["ranged_iterations"], 12 + 13);
}

// nvtx_trainer 12 4 3 0 train_step FORM: the same 12 iterations marked in
// each of NVTX's other forms (nvtx_trainer.cu), its "setup" range still a
// default-domain push:
//   domain (nvtxDomainRangePushEx in "colo_trainer", names registered)
//     with --iteration-domain colo_trainer: 12, all at ranges;
//   the same without --iteration-domain: only the default domain's ranges
//     count, and "setup" is not "train_step": 0 (its syncs do not count
//     either: its iterations end at ranges);
//   start (nvtxRangeStartA / nvtxRangeEnd, the default domain): 12;
//   domain-start (nvtxDomainRangeStartEx / End) with --iteration-domain
//     'colo_*': 12.
TEST(ColodIterationMarksTest, NamedDomainsAndUnnestedRangesCount) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, Config("fifo", 1000));
  ASSERT_TRUE(colod.ready()) << colod.Log();
  struct Case {
    std::string form;
    std::vector<std::string> extra;
    int64_t iterations;
  };
  const std::vector<Case> cases = {
      {"domain",
       {"--iteration-range", "train_step", "--iteration-domain",
        "colo_trainer"},
       12},
      {"domain", {"--iteration-range", "train_step"}, 0},
      {"start", {"--iteration-range", "train_step"}, 12},
      {"domain-start",
       {"--iteration-range", "train_step", "--iteration-domain", "colo_*"},
       12},
  };
  int64_t ranged = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    SCOPED_TRACE(c.form + " " + std::to_string(c.extra.size()) + " flags");
    auto p = RunTrainer(colod, dir, c.form + std::to_string(i), c.extra,
                        {"12", "4", "3", "0", "train_step", c.form});
    ASSERT_EQ(p->Wait(seconds(120)), 0) << p->Output() << p->Errors();
    EXPECT_NE(p->Output().find("iterations=12 syncs=38"), std::string::npos)
        << p->Output();
    EXPECT_EQ(FinishedIterations(colod, i), c.iterations) << colod.Log();
    ranged += c.iterations;
  }
  EXPECT_EQ(colod.Stats()["lanes"]["ranged_iterations"], ranged);
}

// nvtx_trainer 12 4 3 0 train_step FORM 3: 3 "train_step" ranges end
// before the program's first CUDA call, when the interposer has no
// connection to colod yet; it tells them at the connection, so colod
// counts 3 + 12 = 15, in the default domain (push) and in a named one
// (domain).
TEST(ColodIterationMarksTest, RangesBeforeTheFirstCudaCallCount) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, Config("fifo", 1000));
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto push =
      RunTrainer(colod, dir, "push", {"--iteration-range", "train_step"},
                 {"12", "4", "3", "0", "train_step", "push", "3"});
  ASSERT_EQ(push->Wait(seconds(120)), 0) << push->Output() << push->Errors();
  EXPECT_NE(push->Output().find("iterations=12 syncs=38 early=3"),
            std::string::npos)
      << push->Output();
  EXPECT_EQ(FinishedIterations(colod, 0), 15) << colod.Log();
  auto domain = RunTrainer(
      colod, dir, "domain",
      {"--iteration-range", "train_step", "--iteration-domain", "colo_trainer"},
      {"12", "4", "3", "0", "train_step", "domain", "3"});
  ASSERT_EQ(domain->Wait(seconds(120)), 0)
      << domain->Output() << domain->Errors();
  EXPECT_EQ(FinishedIterations(colod, 1), 15) << colod.Log();
  EXPECT_EQ(colod.Stats()["lanes"]["ranged_iterations"], 30);
}

// --iteration-domain names the domains of --iteration-range's ranges:
// alone it is refused (exit 2, saying what to add), before the program
// runs.
TEST(ColodIterationMarksTest, IterationDomainWithoutARangeIsRefused) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Process colo({kBin + "/colo", "run", "--socket", dir.path() + "/none.sock",
                "--iteration-domain", "colo_trainer", "--",
                Program("nvtx_trainer"), "1", "1", "1", "0"},
               {}, dir.path() + "/refused.out", dir.path() + "/refused.err");
  EXPECT_EQ(colo.Wait(seconds(30)), 2) << colo.Errors();
  EXPECT_NE(colo.Errors().find("give --iteration-range too"), std::string::npos)
      << colo.Errors();
  EXPECT_EQ(colo.Output().find("iterations="), std::string::npos)
      << colo.Output();
}

// Two programs under colo, each in a lane of its own (15 + 15 MiB of 100),
// no iterations declared. Returns the most lanes that held a turn at once
// (colod's lanes.max_turns_at_once) once both have run out, and the least
// and most busy fraction colod showed for a client meanwhile.
struct PairRun {
  int64_t turns_at_once = 0;
  double busy_min = 2;
  double busy_max = -1;
};
PairRun RunPair(int kernel_us, const std::vector<std::string>& args) {
  TempDir dir;
  Colod colod(dir, Config("colo", kernel_us));
  PairRun out;
  EXPECT_TRUE(colod.ready()) << colod.Log();
  if (!colod.ready()) return out;
  auto a = RunTrainer(colod, dir, "a", {}, args);
  auto b = RunTrainer(colod, dir, "b", {}, args);
  // Sample the clients' busy fractions while they run (bounded: at most
  // 10 s of polling, then the programs' own bounded waits).
  colod.StatsReach([&](const nlohmann::json& j) {
    for (const nlohmann::json& c : j["clients"]) {
      if (c["lane"].is_null() || c["lane"]["busy_fraction"].is_null()) continue;
      const double u = c["lane"]["busy_fraction"].get<double>();
      out.busy_min = std::min(out.busy_min, u);
      out.busy_max = std::max(out.busy_max, u);
    }
    return j["lanes"]["finished"].size() == 2;
  });
  EXPECT_EQ(a->Wait(seconds(120)), 0) << a->Output() << a->Errors();
  EXPECT_EQ(b->Wait(seconds(120)), 0) << b->Output() << b->Errors();
  EXPECT_TRUE(colod.StatsReach([&](const nlohmann::json& j) {
    out.turns_at_once = j["lanes"]["max_turns_at_once"].get<int64_t>();
    return j["lanes"]["finished"].size() == 2;
  })) << colod.Log();
  std::printf(
      "kernel %d us: busy fraction seen %.3f..%.3f, turns at once %lld\n",
      kernel_us, out.busy_min, out.busy_max,
      static_cast<long long>(out.turns_at_once));
  return out;
}

// One 2 ms kernel then 8 ms of host work per iteration: u ~ 2 / 10 = 0.2
// (less with colod's own latency in the iteration). colo's speed model:
// one at u = 0.2 beside one not yet measured (u = 1): D = 1.2, each runs at
// min(1, 1/D) x 0.95 = 0.79 of its speed, 1.58 > 1; two at 0.2: 0.95 each.
// So they run side by side: both hold a turn at once.
TEST(ColodIterationMarksTest, ColoPairsProgramsThatLeaveTheGpuIdle) {
  SKIP_WITHOUT_PROGRAMS();
  const PairRun r = RunPair(2000, {"40", "1", "1", "8000"});
  EXPECT_EQ(r.turns_at_once, 2);
  EXPECT_LT(r.busy_min, 0.5);
}

// Eight 50 ms kernels back to back per iteration, no host work: u ~ 1
// (only the synchronizing call's round trip, a few ms of 400, is idle). Two at
// u = 1 would run at 0.475 each (0.95 < 1), and the one not yet measured
// counts as u = 1: colo pairs them only if the runner's u < 0.9
// (D < 1.9). They take turns.
TEST(ColodIterationMarksTest, ColoMakesBusyProgramsTakeTurns) {
  SKIP_WITHOUT_PROGRAMS();
  const PairRun r = RunPair(50000, {"6", "8", "1", "0"});
  EXPECT_EQ(r.turns_at_once, 1);
  EXPECT_GT(r.busy_max, 0.9);
}

}  // namespace
}  // namespace colo::testing
