// The sharing model of a memory domain (hostqos/saturation_model.h) and the
// host built on it (host_state.h), checked against the formulas by hand.
#include "hostqos/saturation_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "hostqos/host_state.h"

namespace colo::hostqos {
namespace {

// With L(rho) = 1 + a (rho - knee), a = beta / (1 - knee), flows that are
// all memory settle where rho * L(rho) = x (x = demand / peak):
// a rho^2 + (1 - a knee) rho - x = 0.
double FixedPointRho(const SaturationModel& m, double x) {
  const double a = m.beta / (1 - m.knee);
  const double b = 1 - a * m.knee;
  return (-b + std::sqrt(b * b + 4 * a * x)) / (2 * a);
}

TEST(SaturationModel, BelowTheKneeNothingIsLost) {
  // 30 GB/s asked of a 50 GB/s domain: rho = 0.6 < knee 0.7, so L = 1 and
  // every byte is delivered.
  const SaturationModel m;
  const DomainState s = SolveDemand(m, 50, 30);
  EXPECT_DOUBLE_EQ(s.latency_factor, 1.0);
  EXPECT_DOUBLE_EQ(s.delivered_gbps, 30);
  EXPECT_DOUBLE_EQ(s.utilization, 0.6);
  // At the knee exactly, still no loss.
  EXPECT_DOUBLE_EQ(SolveDemand(m, 50, 35).latency_factor, 1.0);
}

TEST(SaturationModel, PastTheKneeTwoFlowsLoseInProportion) {
  // Flows of 10 and 40 GB/s in a 50 GB/s domain: x = 1. With knee 0.7 and
  // beta 3 (a = 10): 10 rho^2 - 6 rho - 1 = 0, rho = (6 + sqrt(76)) / 20 =
  // 0.7359, L = x / rho = 1.3589. Each flow gets its demand / L: 7.359 and
  // 29.44 GB/s, the same fraction 1/L of what each asked for.
  const SaturationModel m;
  const double rho = FixedPointRho(m, 1.0);
  EXPECT_NEAR(rho, (6 + std::sqrt(76.0)) / 20, 1e-12);
  const double l = 1.0 / rho;
  double flow_a = 0, flow_b = 0;
  const DomainState s = SolveDomain(m, 50, [&](double latency) {
    flow_a = 10 / latency;
    flow_b = 40 / latency;
    return flow_a + flow_b;
  });
  EXPECT_NEAR(s.latency_factor, l, 1e-9);
  EXPECT_NEAR(s.utilization, rho, 1e-9);
  EXPECT_NEAR(flow_a, 10 / l, 1e-9);
  EXPECT_NEAR(flow_b, 40 / l, 1e-9);
  EXPECT_NEAR(flow_b / flow_a, 4.0, 1e-12);
  EXPECT_GT(s.latency_factor, 1.3);  // a real loss, not rounding.
}

TEST(SaturationModel, UtilizationNeverPassesThePeak) {
  // rho * L(rho) at rho = 1 is 1 + beta = 4: a demand of 4x the peak just
  // fills the domain (L = 4); twice that, and L doubles while the domain
  // still delivers exactly its peak.
  const SaturationModel m;
  const DomainState at4 = SolveDemand(m, 50, 200);
  EXPECT_NEAR(at4.utilization, 1.0, 1e-9);
  EXPECT_NEAR(at4.latency_factor, 4.0, 1e-9);
  const DomainState at8 = SolveDemand(m, 50, 400);
  EXPECT_NEAR(at8.delivered_gbps, 50, 1e-6);
  EXPECT_NEAR(at8.latency_factor, 8.0, 1e-6);
}

TEST(SaturationModel, ValidateNamesTheBadField) {
  SaturationModel m;
  m.knee = 1.0;
  EXPECT_NE(m.Validate().message().find("knee"), std::string::npos);
  m = {};
  m.beta = 0;
  EXPECT_NE(m.Validate().message().find("beta"), std::string::npos);
}

HostSpec OneJobHost() {
  HostSpec spec;
  spec.domains = {{.name = "d0", .peak_gbps = 50, .cores = 14}};
  GpuJobHost job;
  job.name = "train";
  job.domain = "d0";
  job.gpu_step_ms = 100;
  job.host_cpu_ms = 15;
  job.input_gb_per_step = 1.35;
  job.copy_gb_per_step = 0.1;  // pageable: 3 passes
  job.input_gbps = 20;
  spec.gpu_jobs = {job};
  return spec;
}

TEST(HostState, StepIsMaxWhenTheLoaderRunsAheadAndSumOtherwise) {
  // Host bytes per step: 1.35 + 3 * 0.1 = 1.65 GB, at 20 GB/s = 82.5 ms,
  // plus 15 ms of compute: 97.5 ms. Alone the job draws 1.65 GB / 0.1 s =
  // 16.5 GB/s, rho 0.33: no loss.
  HostSpec spec = OneJobHost();
  ASSERT_TRUE(spec.Validate().ok());
  EXPECT_DOUBLE_EQ(spec.gpu_jobs[0].HostGbPerStep(), 1.65);
  HostSnapshot s = EvaluateHost(spec, OpenKnobs(spec), {});
  EXPECT_DOUBLE_EQ(s.step_ms[0], 100.0);  // max(100, 97.5)
  EXPECT_DOUBLE_EQ(s.slowdown[0], 0.0);
  spec.gpu_jobs[0].loader_ahead = false;
  s = EvaluateHost(spec, OpenKnobs(spec), {});
  EXPECT_NEAR(s.step_ms[0], 197.5, 1e-9);  // 100 + 97.5
}

TEST(HostState, AnAggressorPastTheKneeSlowsTheLoader) {
  // A 50 GB/s streaming job beside the loader: the domain settles past the
  // knee at some L > 1; the loader's memory part becomes 82.5 ms * L, so the
  // step is 15 + 82.5 L (> 100 ms once L > 1.0303).
  HostSpec spec = OneJobHost();
  Aggressor be;
  be.name = "be";
  be.domain = "d0";
  be.demand_gbps = 50;
  spec.aggressors = {be};
  const HostSnapshot s = EvaluateHost(spec, OpenKnobs(spec), {true});
  const double l = s.domains[0].latency_factor;
  EXPECT_GT(l, 1.5);
  EXPECT_NEAR(s.step_ms[0], 15 + 82.5 * l, 1e-9);
  // The aggressor (memory fraction 0.8) works at 1 / (0.2 + 0.8 L).
  EXPECT_NEAR(s.aggressor_rate[0], 1 / (0.2 + 0.8 * l), 1e-12);
  // Its MBA cap at 50% doubles its memory time: less traffic, lower L.
  HostKnobs knobs = OpenKnobs(spec);
  knobs.aggressors[0].mba_percent = 50;
  const HostSnapshot capped = EvaluateHost(spec, knobs, {true});
  EXPECT_LT(capped.domains[0].latency_factor, l);
  EXPECT_LT(capped.slowdown[0], s.slowdown[0]);
}

}  // namespace
}  // namespace colo::hostqos
