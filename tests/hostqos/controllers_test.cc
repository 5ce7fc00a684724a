// The host QoS controllers (hostqos/controllers.h), one step at a time, and
// the Kelp-like sweep end to end (host_sim.h).
#include "hostqos/controllers.h"

#include <gtest/gtest.h>

#include "hostqos/host_sim.h"

namespace colo::hostqos {
namespace {

Aggressor Streaming(const std::string& name, const std::string& domain,
                    double gbps) {
  Aggressor a;
  a.name = name;
  a.domain = domain;
  a.demand_gbps = gbps;
  return a;
}

// Two sub-NUMA domains; the GPU job in d0; one streaming aggressor in each
// domain at `percent` of the domain's 50 GB/s (examples/hostqos/kelp-*.yaml).
HostSpec KelpHost(double percent) {
  HostSpec spec;
  spec.domains = {{.name = "d0", .peak_gbps = 50, .cores = 14},
                  {.name = "d1", .peak_gbps = 50, .cores = 14}};
  GpuJobHost job;
  job.name = "train";
  job.domain = "d0";
  job.gpu_step_ms = 100;
  job.host_cpu_ms = 15;
  job.input_gb_per_step = 1.35;
  job.copy_gb_per_step = 0.1;
  job.input_gbps = 20;
  spec.gpu_jobs = {job};
  const double gbps = 50 * percent / 100;
  spec.aggressors = {Streaming("be0", "d0", gbps),
                     Streaming("be1", "d1", gbps)};
  return spec;
}

// A snapshot in which the GPU job slowed by `slowdown`, both aggressors run.
HostSnapshot Snap(double slowdown, bool be0_running = true) {
  HostSnapshot s;
  s.domains = {{.utilization = 0.75, .latency_factor = 1.5},
               {.utilization = 0.75, .latency_factor = 1.5}};
  s.step_ms = {100 * (1 + slowdown)};
  s.solo_step_ms = {100};
  s.slowdown = {slowdown};
  s.running = {be0_running, true};
  s.aggressor_rate = {0.8, 0.8};
  s.aggressor_gbps = {30, 31};
  return s;
}

TEST(LadderKnobs, MildestFirst) {
  // 1: prefetchers off; 2..10: MBA 90% .. 10%; 11..19: quota 90% .. 10%.
  const Aggressor a = Streaming("be", "d0", 10);  // 8 cores
  EXPECT_EQ(LadderKnobs(a, 0), (AggressorKnobs{.cores = 8}));
  EXPECT_EQ(LadderKnobs(a, 1),
            (AggressorKnobs{.cores = 8, .prefetch_off = true}));
  EXPECT_EQ(LadderKnobs(a, 2).mba_percent, 90);
  EXPECT_EQ(LadderKnobs(a, 10).mba_percent, 10);
  EXPECT_DOUBLE_EQ(LadderKnobs(a, 10).quota, 1.0);
  EXPECT_NEAR(LadderKnobs(a, 11).quota, 0.9, 1e-12);
  EXPECT_NEAR(LadderKnobs(a, kLadderTop).quota, 0.1, 1e-12);
}

TEST(ColoController, ThrottlesOnlyTheVictimsDomainOneStepAtATime) {
  const HostSpec spec = KelpHost(100);
  ControllerOptions o;  // throttle above 0.8 * 5% = 4%, release below 2%.
  auto c = MakeController(ControllerKind::kColo, spec, o);
  HostKnobs k = OpenKnobs(spec);
  c->Step(Snap(0.30), &k);
  EXPECT_TRUE(k.aggressors[0].prefetch_off);  // step 1 on be0 (in d0) ...
  EXPECT_EQ(k.aggressors[1], (AggressorKnobs{.cores = 8}));  // be1 (d1) never
  c->Step(Snap(0.30), &k);
  EXPECT_EQ(k.aggressors[0].mba_percent, 90);  // step 2
  c->Step(Snap(0.30), &k);
  EXPECT_EQ(k.aggressors[0].mba_percent, 80);  // step 3
  EXPECT_EQ(k.aggressors[1], (AggressorKnobs{.cores = 8}));
  EXPECT_EQ(c->actions(), 3);
}

TEST(ColoController, CountersUnderTheKneeSkipTheBandwidthSteps) {
  // The victim slowed, but its domain is at 30% of its bandwidth (knee
  // 70%): prefetchers and MBA would not help, the first step is the quota
  // at 90% (level 11). Without counters the ladder starts at level 1.
  const HostSpec spec = KelpHost(100);
  HostSnapshot snap = Snap(0.30);
  snap.domains[0].utilization = 0.3;
  auto c = MakeController(ControllerKind::kColo, spec, {});
  HostKnobs k = OpenKnobs(spec);
  c->Step(snap, &k);
  EXPECT_NEAR(k.aggressors[0].quota, 0.9, 1e-12);
  ControllerOptions blind;
  blind.bandwidth_counters = false;
  c = MakeController(ControllerKind::kColo, spec, blind);
  k = OpenKnobs(spec);
  c->Step(snap, &k);
  EXPECT_EQ(k.aggressors[0], LadderKnobs(spec.aggressors[0], 1));
}

TEST(ColoController, HoldsInTheBandAndReleasesAfterTheHold) {
  const HostSpec spec = KelpHost(100);
  ControllerOptions o;
  o.release_hold = 3;
  auto c = MakeController(ControllerKind::kColo, spec, o);
  HostKnobs k = OpenKnobs(spec);
  for (int i = 0; i < 3; ++i) c->Step(Snap(0.30), &k);  // level 3: MBA 80%
  // 3% is between release_below (2%) and the threshold (4%): hold.
  for (int i = 0; i < 10; ++i) c->Step(Snap(0.03), &k);
  EXPECT_EQ(k.aggressors[0].mba_percent, 80);
  // Below 2%: two calm intervals change nothing, the third releases a step.
  c->Step(Snap(0.0), &k);
  c->Step(Snap(0.0), &k);
  EXPECT_EQ(k.aggressors[0].mba_percent, 80);
  c->Step(Snap(0.0), &k);
  EXPECT_EQ(k.aggressors[0].mba_percent, 90);
  // A throttle right after that release doubles the hold to 6: five calm
  // intervals keep MBA at 80%, the sixth releases.
  c->Step(Snap(0.30), &k);
  EXPECT_EQ(k.aggressors[0].mba_percent, 80);
  for (int i = 0; i < 5; ++i) c->Step(Snap(0.0), &k);
  EXPECT_EQ(k.aggressors[0].mba_percent, 80);
  c->Step(Snap(0.0), &k);
  EXPECT_EQ(k.aggressors[0].mba_percent, 90);
}

TEST(ColoController, AStoppedAggressorIsReleasedAtOnce) {
  const HostSpec spec = KelpHost(100);
  auto c = MakeController(ControllerKind::kColo, spec, {});
  HostKnobs k = OpenKnobs(spec);
  for (int i = 0; i < 12; ++i) c->Step(Snap(0.30), &k);
  EXPECT_LT(k.aggressors[0].quota, 1.0);
  c->Step(Snap(0.03, /*be0_running=*/false), &k);
  EXPECT_EQ(k.aggressors[0], (AggressorKnobs{.cores = 8}));
}

TEST(HeraclesController, ThrottlesEveryBestEffortJobOnTheHost) {
  const HostSpec spec = KelpHost(100);
  ControllerOptions o;
  o.heracles_every = 1;
  auto c = MakeController(ControllerKind::kHeracles, spec, o);
  HostKnobs k = OpenKnobs(spec);
  c->Step(Snap(0.30), &k);
  EXPECT_EQ(k.aggressors[0].cores, 7);
  EXPECT_EQ(k.aggressors[1].cores, 7);  // in the other domain too
  c->Step(Snap(0.0), &k);
  EXPECT_EQ(k.aggressors[0].cores, 8);
  EXPECT_EQ(k.aggressors[1].cores, 8);
}

TEST(PartiesController, RevertsAnActionThatDidNotHelp) {
  const HostSpec spec = KelpHost(100);
  ControllerOptions o;
  o.revert_after = 5;
  auto c = MakeController(ControllerKind::kParties, spec, o);
  HostKnobs k = OpenKnobs(spec);
  c->Step(Snap(0.30), &k);  // one core from be0 (most cores, first) to train
  EXPECT_EQ(k.aggressors[0].cores, 7);
  EXPECT_EQ(k.loader_cores[0], 5);
  for (int i = 0; i < 4; ++i) c->Step(Snap(0.30), &k);
  EXPECT_EQ(k.aggressors[0].cores, 7);  // still waiting
  c->Step(Snap(0.30), &k);              // 5th: no better, reverted
  EXPECT_EQ(k.aggressors[0].cores, 8);
  EXPECT_EQ(k.loader_cores[0], 4);
  c->Step(Snap(0.30), &k);  // the next donor is be1
  EXPECT_EQ(k.aggressors[1].cores, 7);
}

TEST(CaladanController, RevokesFromTheHeaviestAboveTheThreshold) {
  const HostSpec spec = KelpHost(100);
  auto c = MakeController(ControllerKind::kCaladan, spec, {});
  HostKnobs k = OpenKnobs(spec);
  HostSnapshot s = Snap(0.0);  // it does not look at the slowdown
  s.domains[0].delivered_gbps = 37.5;
  s.domains[1].delivered_gbps = 37.5;  // 75% of the host > 70%
  c->Step(s, &k);
  EXPECT_EQ(k.aggressors[1].cores, 7);  // be1 draws 31 GB/s > be0's 30
  EXPECT_EQ(k.aggressors[0].cores, 8);
  s.domains[0].delivered_gbps = s.domains[1].delivered_gbps = 25;  // 50%
  c->Step(s, &k);
  EXPECT_EQ(k.aggressors[1].cores, 8);
}

TEST(KelpSweep, UnmanagedNearFortyPercentColoUnderFiveAheadOfHeracles) {
  // Kelp (HPCA'19): unmanaged host contention costs accelerated ML about
  // 40%; its controller keeps the ML task within a few percent with 17%
  // better efficiency than a socket-wide throttle.
  const HostRunOptions run;
  const HostSpec full = KelpHost(100);
  const HostRunReport none =
      RunHostSim(full, ControllerKind::kNone, run).value();
  const HostRunReport colo =
      RunHostSim(full, ControllerKind::kColo, run).value();
  const HostRunReport heracles =
      RunHostSim(full, ControllerKind::kHeracles, run).value();
  EXPECT_GT(none.gpu_jobs[0].degradation, 0.35);
  EXPECT_LT(none.gpu_jobs[0].degradation, 0.45);
  EXPECT_LE(colo.gpu_jobs[0].degradation, 0.05);
  EXPECT_GE(colo.aggressor_throughput, 1.17 * heracles.aggressor_throughput);
  // Degradation unmanaged grows with the aggressors' load; none at 0%.
  double last = -1;
  for (double percent : {0.0, 25.0, 50.0, 75.0, 100.0}) {
    const double d = RunHostSim(KelpHost(percent), ControllerKind::kNone, run)
                         .value()
                         .gpu_jobs[0]
                         .degradation;
    EXPECT_GE(d, last);
    last = d;
    if (percent == 0) {
      EXPECT_EQ(d, 0.0);
    }
  }
}

TEST(HostSim, ColoReleasesWhenTheAggressorStops) {
  // be0 runs for the first 20 s of 40: colo throttles it, and once it stops
  // the GPU job is back to its solo speed.
  HostSpec spec = KelpHost(100);
  spec.aggressors[0].stop_s = 20;
  HostRunOptions run;
  run.duration = Seconds(40);
  const HostRunReport r = RunHostSim(spec, ControllerKind::kColo, run).value();
  EXPECT_GT(r.actions, 1);
  EXPECT_EQ(r.gpu_jobs[0].final_slowdown, 0.0);
}

}  // namespace
}  // namespace colo::hostqos
