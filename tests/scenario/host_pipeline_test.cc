// Training jobs with an input pipeline: host time per step (iteration_gap_us)
// and a copy of each batch (transfers.in_mb) around a step's kernels. Alone,
// a step is H (host) + C (copy in) + G (kernels) long, one after the other,
// so the job runs at 1 / (H + C + G) steps/s. Jobs that spend most of a step
// on the host hardly meet on the GPU: under MPS, N of them reach close to N
// times one alone — the collocation paper's small jobs (examples/
// collocation-small/).
#include <gtest/gtest.h>

#include <string>

#include "experiment/scenario_runner.h"
#include "scenario/scenario_loader.h"

namespace colo::scenario {
namespace {

constexpr double kDurationS = 2;

// One training job of one 1-wave kernel of `g_us` on an A100 (108 blocks of
// 256 threads: one per SM) that takes its SMs' whole issue rate (sm: 1, so
// that two such kernels side by side each run at half speed), `h_us` of host
// time per step, `in_mb` MiB copied
// in per step, `copies` copies of it, in `mode`.
std::string Job(double h_us, double g_us, double in_mb, int copies,
                const std::string& mode = "mps") {
  return "gpu: A100\nmode: " + mode +
         "\nseed: 1\nduration_s: " + std::to_string(kDurationS) +
         "\njobs:\n  - name: small\n    kind: training\n"
         "    workload: {kernels: [{name: k, grid: 108, block: 256, "
         "sm: 1, duration_us: " +
         std::to_string(g_us) +
         "}]}\n    iteration_gap_us: " + std::to_string(h_us) +
         "\n    transfers: {in_mb: " + std::to_string(in_mb) +
         "}\n    copies: " + std::to_string(copies) + "\n";
}

Result<experiment::RunReport> RunYaml(const std::string& yaml) {
  Result<experiment::ScenarioSpec> spec =
      LoadScenarioString(yaml, "pipeline.yaml", COLO_DATA_DIR);
  if (!spec.ok()) return spec.status();
  return experiment::RunScenario(*spec);
}

// A job's throughput counts whole steps plus the finished part of the one
// under way, so it is within one step of D / (step time) over a run of D
// seconds: a tolerance of 1 / D steps/s.
constexpr double kOneStepPerS = 1.0 / kDurationS;

TEST(HostPipelineTest, AloneAStepIsHostPlusCopyPlusKernels) {
  struct Case {
    double h_us, g_us, in_mb;
  } cases[] = {{9000, 1000, 0}, {4000, 1000, 25}, {0, 2000, 0}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.h_us) + " us host, " +
                 std::to_string(c.g_us) + " us kernels, " +
                 std::to_string(c.in_mb) + " MiB in");
    Result<experiment::ScenarioSpec> spec = LoadScenarioString(
        Job(c.h_us, c.g_us, c.in_mb, 1), "pipeline.yaml", COLO_DATA_DIR);
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    // The copy runs at the GPU's copy bandwidth (bytes/s).
    const double copy_s = c.in_mb * 1048576.0 / spec->gpu.copy_bandwidth;
    const double step_s = (c.h_us + c.g_us) * 1e-6 + copy_s;
    Result<experiment::RunReport> r = experiment::RunScenario(*spec);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->jobs.size(), 1u);
    EXPECT_NEAR(r->jobs[0].shared_throughput, 1.0 / step_s, kOneStepPerS);
    // Alone, the shared run is the solo run.
    EXPECT_NEAR(r->jobs[0].solo_throughput, 1.0 / step_s, kOneStepPerS);
  }
}

// N jobs of H host and G kernel time per step under MPS. Each step of a job
// waits at worst for one step's GPU work of each other job, so its step is at
// most H + N G long and it keeps at least (H + G) / (H + N G) of its solo
// throughput; it cannot do better than alone. So the system throughput lies
// in [N (H + G) / (H + N G), N], less the one-step tolerance per job: near N
// when H >> G (with H = 19 G: 1.90 for two jobs), far below it when the GPU
// work dominates (H = 0: a bound of 1, and the GPU has no idle time to give).
TEST(HostPipelineTest, JobsMostlyOnTheHostAddUpUnderMps) {
  struct Case {
    double h_us, g_us;
    int n;
  } cases[] = {{19000, 1000, 2}, {19000, 1000, 3}, {29000, 1000, 7}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.n) + " jobs, H " + std::to_string(c.h_us) +
                 " us, G " + std::to_string(c.g_us) + " us");
    Result<experiment::RunReport> r = RunYaml(Job(c.h_us, c.g_us, 0, c.n));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->jobs.size(), static_cast<size_t>(c.n));
    const double solo = 1e6 / (c.h_us + c.g_us);         // steps/s alone.
    const double tolerance = c.n * kOneStepPerS / solo;  // in normalized units.
    const double lower =
        c.n * (c.h_us + c.g_us) / (c.h_us + c.n * c.g_us) - tolerance;
    EXPECT_GE(r->system_throughput, lower);
    EXPECT_LE(r->system_throughput, c.n + tolerance);
  }
  // The contrast: with no host time the GPU is never idle alone, and two jobs
  // share it: together about one job's throughput, nowhere near two.
  Result<experiment::RunReport> busy = RunYaml(Job(0, 1000, 0, 2));
  ASSERT_TRUE(busy.ok()) << busy.status().ToString();
  EXPECT_LT(busy->system_throughput, 1.1);
}

// Every example of the small-job study loads and runs, and under MPS its N
// jobs stay within the bound above, with H from the file and each job's
// solo step time T = 1 / (solo throughput), so B = T - H is its GPU part
// (copy and kernels): at least N T / (H + N B).
TEST(HostPipelineTest, CollocationSmallExamplesAddUpUnderMps) {
  for (int n : {1, 2, 3}) {
    SCOPED_TRACE("mps-" + std::to_string(n));
    Result<experiment::ScenarioSpec> spec = LoadScenarioFile(
        std::string(COLO_SOURCE_DIR) + "/examples/collocation-small/mps-" +
        std::to_string(n) + ".yaml");
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    const double h_s = ToSeconds(spec->jobs[0].workload.iteration_gap);
    Result<experiment::RunReport> r = experiment::RunScenario(*spec);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->jobs.size(), static_cast<size_t>(n));
    const double t_s = 1.0 / r->jobs[0].solo_throughput;
    const double b_s = t_s - h_s;
    ASSERT_GT(b_s, 0);
    const double tolerance = n * t_s / ToSeconds(spec->duration);
    EXPECT_GE(r->system_throughput, n * t_s / (h_s + n * b_s) - tolerance);
    EXPECT_LE(r->system_throughput, n + tolerance);
  }
}

}  // namespace
}  // namespace colo::scenario
