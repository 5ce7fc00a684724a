// experiment::ScenarioSpec::Validate, the sharing-mode names and the
// nearest-rank latency statistics (src/experiment/scenario_spec.cc,
// src/experiment/run_report.cc).
#include "experiment/scenario_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "experiment/run_report.h"

namespace colo::sim {
namespace {

using ::testing::HasSubstr;

experiment::JobSpec TrainingJob(const std::string& name) {
  experiment::JobSpec job;
  job.name = name;
  job.workload.name = name;
  KernelDesc k;
  k.name = "k";
  k.grid = {8, 1, 1};
  k.block = {256, 1, 1};
  k.solo_duration = Microseconds(10);
  job.workload.kernels = {k};
  return job;
}

experiment::ScenarioSpec ValidSpec() {
  experiment::ScenarioSpec spec;
  spec.name = "s";
  spec.gpu = *GpuPreset("A100");
  spec.jobs = {TrainingJob("a"), TrainingJob("b")};
  return spec;
}

void ExpectInvalid(const experiment::ScenarioSpec& spec,
                   const std::string& phrase) {
  const Status s = spec.Validate();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr(phrase));
}

TEST(ScenarioSpecTest, ValidSpecPasses) {
  EXPECT_TRUE(ValidSpec().Validate().ok());
}

TEST(ScenarioSpecTest, BasicFields) {
  experiment::ScenarioSpec spec = ValidSpec();
  spec.jobs.clear();
  ExpectInvalid(spec, "needs at least one job");
  spec = ValidSpec();
  spec.jobs[1].name = "a";
  ExpectInvalid(spec, "job name 'a' is used twice");
  spec = ValidSpec();
  spec.duration = Duration(0);
  ExpectInvalid(spec, "duration must be > 0");
  spec = ValidSpec();
  spec.sample_interval = Duration(-1);
  ExpectInvalid(spec, "sample_interval must be >= 0");
  spec = ValidSpec();
  spec.gpu.sm_count = 0;
  ExpectInvalid(spec, "sm_count must be > 0");
  spec = ValidSpec();
  spec.jobs[0].workload.kernels.clear();
  ExpectInvalid(spec, "has no kernels");
  spec = ValidSpec();
  spec.time_slice.quantum = Duration(0);
  ExpectInvalid(spec, "quantum must be >= 100us");
  spec.time_slice.quantum = Microseconds(99);
  ExpectInvalid(spec, "quantum must be >= 100us, got 99us");
  spec.time_slice.quantum = Microseconds(100);
  EXPECT_TRUE(spec.Validate().ok());
}

TEST(ScenarioSpecTest, MpsPercentage) {
  experiment::ScenarioSpec spec = ValidSpec();
  spec.jobs[0].mps_active_thread_percentage = 100;
  EXPECT_TRUE(spec.Validate().ok());
  spec.jobs[0].mps_active_thread_percentage = 0;
  ExpectInvalid(spec, "must be in (0, 100]");
  spec.jobs[0].mps_active_thread_percentage = 50;
  spec.mode = experiment::SharingMode::kTimeSlicing;
  ExpectInvalid(spec, "only valid in mode mps, not time-slicing");
}

TEST(ScenarioSpecTest, MigProfiles) {
  experiment::ScenarioSpec spec = ValidSpec();
  spec.mode = experiment::SharingMode::kMig;
  ExpectInvalid(spec, "mode mig needs a mig_profile for every job");
  // 3g.20gb + 4g.20gb: 7 compute slices, 8 memory eighths: exactly full.
  spec.jobs[0].mig_profile = "3g.20gb";
  spec.jobs[1].mig_profile = "4g.20gb";
  EXPECT_TRUE(spec.Validate().ok());
  spec.jobs.push_back(TrainingJob("c"));
  spec.jobs[2].mig_profile = "1g.5gb";  // 8 compute slices > 7.
  ExpectInvalid(spec, "do not fit");
  spec.jobs.pop_back();
  spec.jobs[1].mig_profile = "9g.90gb";
  ExpectInvalid(spec, "has no MIG profile '9g.90gb'");
  spec.mode = experiment::SharingMode::kMps;
  spec.jobs[1].mig_profile = "4g.20gb";
  ExpectInvalid(spec, "only valid in mode mig, not mps");
}

TEST(ScenarioSpecTest, MigInstancesMustFitTheGpusSmsTogether) {
  // Each profile fits alone (two 3-slice instances of 50 SMs, one 4-slice
  // of 60, on 100 SMs), and 3 + 4 slices fit, but 50 + 60 SMs do not.
  experiment::ScenarioSpec spec = ValidSpec();
  spec.gpu.sm_count = 100;
  spec.gpu.mig_profiles = {{"3g.half", 3, 50, 4}, {"4g.more", 4, 60, 4}};
  ASSERT_TRUE(spec.gpu.Validate().ok());
  spec.mode = experiment::SharingMode::kMig;
  spec.jobs[0].mig_profile = "3g.half";
  spec.jobs[1].mig_profile = "3g.half";
  EXPECT_TRUE(spec.Validate().ok());
  spec.jobs[1].mig_profile = "4g.more";
  ExpectInvalid(
      spec,
      "need 7 of 7 compute slices, 8 of 8 memory slices and 110 of 100 SMs");
}

TEST(SharingModeTest, NamesRoundTrip) {
  for (experiment::SharingMode m :
       {experiment::SharingMode::kExclusive,
        experiment::SharingMode::kTimeSlicing, experiment::SharingMode::kMps,
        experiment::SharingMode::kMig, experiment::SharingMode::kStreams}) {
    auto parsed = experiment::ParseSharingMode(experiment::SharingModeName(m));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, m);
  }
  auto bad = experiment::ParseSharingMode("MPS");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(
      bad.status().message(),
      HasSubstr("expected one of exclusive, time-slicing, mps, mig, streams"));
}

TEST(LatencyStatsTest, NearestRank) {
  EXPECT_EQ(experiment::ComputeLatencyStats({}).count, 0);
  // 1..100 ms shuffled: nearest rank p = the p-th smallest.
  std::vector<Duration> samples;
  for (int i = 100; i >= 1; --i) samples.push_back(Milliseconds(i));
  experiment::LatencyStats s = experiment::ComputeLatencyStats(samples);
  EXPECT_EQ(s.count, 100);
  EXPECT_EQ(s.p50, Milliseconds(50));
  EXPECT_EQ(s.p95, Milliseconds(95));
  EXPECT_EQ(s.p99, Milliseconds(99));
  EXPECT_EQ(s.max, Milliseconds(100));
  EXPECT_EQ(s.mean, Microseconds(50500));
  // 10 samples: p50 rank ceil(5) = 5th, p95 rank ceil(9.5) = 10th, p99 10th.
  samples.clear();
  for (int i = 1; i <= 10; ++i) samples.push_back(Milliseconds(i));
  s = experiment::ComputeLatencyStats(samples);
  EXPECT_EQ(s.p50, Milliseconds(5));
  EXPECT_EQ(s.p95, Milliseconds(10));
  EXPECT_EQ(s.p99, Milliseconds(10));
  // One sample: every percentile is it.
  s = experiment::ComputeLatencyStats({Microseconds(7)});
  EXPECT_EQ(s.p50, Microseconds(7));
  EXPECT_EQ(s.p99, Microseconds(7));
  EXPECT_EQ(s.mean, Microseconds(7));
}

}  // namespace
}  // namespace colo::sim
