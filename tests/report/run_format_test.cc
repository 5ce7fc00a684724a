// Run report formatting: the JSON parses back with every field, in a fixed
// order, byte-identical for identical reports; the table names every job.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "report/run_json.h"
#include "report/run_table.h"

namespace colo::report {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::ordered_json;

experiment::RunReport SampleReport() {
  experiment::RunReport r;
  r.scenario = "bert-vs-resnet";
  r.gpu = "A100-SXM4-40GB";
  r.mode = "mps";
  r.seed = 42;
  r.duration = Seconds(10);
  r.system_throughput = 1.7512345678;
  r.kernels_simulated = 123456;

  experiment::JobReport bert;
  bert.name = "bert";
  bert.kind = WorkloadKind::kInference;
  bert.priority = PriorityClass::kHigh;
  bert.completed = 1980;
  bert.arrived = 1982;  // 2 unfinished: 0.1%, not overloaded.
  bert.unfinished = 2;
  bert.solo_unfinished = 1;
  bert.kernels = 1980 * 573;
  bert.shared_throughput = 198;
  bert.solo_throughput = 200;
  bert.normalized = 0.99;
  // Latencies 1..100 ms: nearest rank p50 = 50 ms, p95 = 95 ms, p99 = 99 ms.
  std::vector<Duration> samples;
  for (int i = 1; i <= 100; ++i) samples.push_back(Milliseconds(i));
  bert.shared_latency = experiment::ComputeLatencyStats(samples);
  for (Duration& d : samples) d /= 2;
  bert.solo_latency = experiment::ComputeLatencyStats(samples);
  bert.p99_overhead = 1.0;  // 99 ms vs 49.5 ms.
  // 3 of its kernels took longer than alone: by 10, 20 and 300 us.
  bert.kernel_delays = experiment::KernelDelays{
      .compared = 1980 * 573,
      .delayed = 3,
      .delay = experiment::ComputeLatencyStats(
          {Microseconds(300), Microseconds(10), Microseconds(20)})};
  r.jobs.push_back(bert);

  experiment::JobReport resnet;
  resnet.name = "resnet50-train";
  resnet.kind = WorkloadKind::kTraining;
  resnet.completed = 120;
  resnet.kernels = 120 * 300;
  resnet.shared_throughput = 12;
  resnet.solo_throughput = 15;
  resnet.normalized = 0.8;
  resnet.kernel_delays = experiment::KernelDelays{
      .compared = 120 * 300, .delayed = 0, .delay = {}};  // none delayed.
  r.jobs.push_back(resnet);

  experiment::GpuReport gpu;
  gpu.name = "A100-SXM4-40GB";
  for (int i = 0; i < 50; ++i) {
    sim::UtilizationSample s;
    s.start = AtNanos(int64_t{i} * 200'000'000);
    s.sm_occupancy = i / 49.0;
    s.sm_active = 1.0;
    s.dram_util = 0.3;
    gpu.timeline.push_back(s);
  }
  gpu.mean_sm_occupancy = 0.5;
  gpu.mean_sm_active = 1.0;
  gpu.mean_dram_util = 0.3;
  r.gpus.push_back(gpu);
  return r;
}

std::vector<std::string> KeysOf(const Json& j) {
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  return keys;
}

TEST(RunJsonTest, ParsesBackWithEveryFieldInOrder) {
  const std::string text = FormatRunJson(SampleReport());
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  const Json j = Json::parse(text);
  EXPECT_EQ(KeysOf(j),
            (std::vector<std::string>{
                "format", "scenario", "gpu", "mode", "policy",
                "preemption_bound_us", "seed", "duration_ns", "duration_s",
                "system_throughput", "kernels_simulated", "wave_by_wave",
                "ideal_preemption", "copies", "jobs", "gpus"}));
  EXPECT_EQ(j["format"], "colo.sim.run/1");
  EXPECT_EQ(j["scenario"], "bert-vs-resnet");
  EXPECT_EQ(j["seed"], 42);
  EXPECT_TRUE(j["policy"].is_null());               // no policy: null.
  EXPECT_TRUE(j["preemption_bound_us"].is_null());  // no priority policy: null.
  EXPECT_EQ(j["duration_ns"], 10'000'000'000LL);
  EXPECT_EQ(j["duration_s"], 10.0);
  EXPECT_EQ(j["kernels_simulated"], 123456);
  EXPECT_EQ(j["wave_by_wave"], false);
  EXPECT_TRUE(j["ideal_preemption"].is_null());  // a real run, not a bound.
  // The sample run copied nothing: zeros, in both directions.
  EXPECT_EQ(KeysOf(j["copies"]),
            (std::vector<std::string>{"host_to_device", "device_to_host"}));
  EXPECT_EQ(
      KeysOf(j["copies"]["host_to_device"]),
      (std::vector<std::string>{"count", "bytes", "busy_ns", "busy_fraction"}));
  EXPECT_EQ(j["copies"]["device_to_host"]["count"], 0);
  EXPECT_EQ(j["system_throughput"], 1.75123);  // 6 significant digits.

  ASSERT_EQ(j["jobs"].size(), 2u);
  const Json& bert = j["jobs"][0];
  EXPECT_EQ(KeysOf(bert),
            (std::vector<std::string>{
                "name", "class", "kind", "instance", "completed", "arrived",
                "unfinished", "solo_unfinished", "kernels", "solo_throughput",
                "shared_throughput", "normalized", "instance_solo_throughput",
                "normalized_instance", "p99_overhead", "shared_latency",
                "solo_latency", "kernel_delays", "slo"}));
  EXPECT_EQ(bert["name"], "bert");
  EXPECT_EQ(bert["class"], "high");
  EXPECT_EQ(bert["kind"], "inference");
  EXPECT_TRUE(bert["instance"].is_null());  // not MIG.
  EXPECT_EQ(bert["completed"], 1980);
  EXPECT_EQ(bert["arrived"], 1982);
  EXPECT_EQ(bert["unfinished"], 2);
  EXPECT_EQ(bert["solo_unfinished"], 1);
  EXPECT_EQ(bert["normalized"], 0.99);
  EXPECT_EQ(bert["p99_overhead"], 1.0);
  const Json& lat = bert["shared_latency"];
  EXPECT_EQ(KeysOf(lat),
            (std::vector<std::string>{"count", "mean_ns", "p50_ns", "p95_ns",
                                      "p99_ns", "max_ns", "mean_ms", "p50_ms",
                                      "p95_ms", "p99_ms", "max_ms"}));
  EXPECT_EQ(lat["count"], 100);
  EXPECT_EQ(lat["p50_ns"], 50'000'000);
  EXPECT_EQ(lat["p95_ns"], 95'000'000);
  EXPECT_EQ(lat["p99_ns"], 99'000'000);
  EXPECT_EQ(lat["max_ms"], 100.0);
  EXPECT_EQ(lat["mean_ms"], 50.5);
  EXPECT_EQ(bert["solo_latency"]["p99_ms"], 49.5);
  const Json& delays = bert["kernel_delays"];
  EXPECT_EQ(KeysOf(delays),
            (std::vector<std::string>{"compared", "delayed", "threshold_ns",
                                      "delay"}));
  EXPECT_EQ(delays["compared"], 1980 * 573);
  EXPECT_EQ(delays["delayed"], 3);
  EXPECT_EQ(delays["threshold_ns"], 1000);
  EXPECT_EQ(delays["delay"]["count"], 3);
  EXPECT_EQ(delays["delay"]["p50_ns"], 20'000);  // nearest rank: the 2nd of 3.
  EXPECT_EQ(delays["delay"]["max_ms"], 0.3);

  const Json& resnet = j["jobs"][1];
  EXPECT_EQ(resnet["class"], "best-effort");
  EXPECT_EQ(resnet["kind"], "training");
  EXPECT_TRUE(resnet["arrived"].is_null());  // no requests in training.
  EXPECT_TRUE(resnet["unfinished"].is_null());
  EXPECT_TRUE(resnet["solo_unfinished"].is_null());
  EXPECT_TRUE(resnet["shared_latency"].is_null());
  EXPECT_TRUE(resnet["solo_latency"].is_null());
  EXPECT_TRUE(resnet["p99_overhead"].is_null());
  // Compared, none delayed: no percentiles. Without a solo run: null.
  EXPECT_EQ(resnet["kernel_delays"]["delayed"], 0);
  EXPECT_TRUE(resnet["kernel_delays"]["delay"].is_null());

  ASSERT_EQ(j["gpus"].size(), 1u);
  const Json& gpu = j["gpus"][0];
  EXPECT_EQ(KeysOf(gpu), (std::vector<std::string>{
                             "name", "mean_sm_occupancy", "mean_sm_active",
                             "mean_dram_util", "timeline"}));
  ASSERT_EQ(gpu["timeline"].size(), 50u);
  EXPECT_EQ(KeysOf(gpu["timeline"][1]),
            (std::vector<std::string>{"start_ns", "start_ms", "sm_occupancy",
                                      "sm_active", "dram_util"}));
  EXPECT_EQ(gpu["timeline"][1]["start_ns"], 200'000'000);
  EXPECT_EQ(gpu["timeline"][1]["start_ms"], 200.0);
  EXPECT_EQ(gpu["timeline"][1]["sm_occupancy"],
            0.0204082);  // 1/49 to 6 digits.
}

TEST(RunJsonTest, IdenticalReportsGiveIdenticalBytes) {
  EXPECT_EQ(FormatRunJson(SampleReport()), FormatRunJson(SampleReport()));
}

TEST(RunJsonTest, NoiseBelowSixDigitsDoesNotChangeTheBytes) {
  experiment::RunReport a = SampleReport();
  experiment::RunReport b = SampleReport();
  b.jobs[0].normalized = std::nextafter(*a.jobs[0].normalized, 2.0);
  b.system_throughput += 1e-12;
  EXPECT_EQ(FormatRunJson(a), FormatRunJson(b));
  b.jobs[0].normalized = 0.991;
  EXPECT_NE(FormatRunJson(a), FormatRunJson(b));
}

TEST(RunJsonTest, NonFiniteNumbersAreNull) {
  experiment::RunReport r = SampleReport();
  r.jobs[1].normalized = std::numeric_limits<double>::quiet_NaN();
  r.system_throughput = std::numeric_limits<double>::infinity();
  const Json j = Json::parse(FormatRunJson(r));
  EXPECT_TRUE(j["jobs"][1]["normalized"].is_null());
  EXPECT_TRUE(j["system_throughput"].is_null());
}

TEST(RunTableTest, HeaderJobsAndGpuLines) {
  const std::string table = FormatRunTable(SampleReport());
  EXPECT_THAT(table, HasSubstr("scenario  bert-vs-resnet\n"));
  EXPECT_THAT(table, HasSubstr("gpu       A100-SXM4-40GB\n"));
  EXPECT_THAT(table, HasSubstr("mode      mps\n"));
  EXPECT_THAT(table, HasSubstr("policy    none\n"));
  EXPECT_THAT(table, HasSubstr("seed      42\n"));
  EXPECT_THAT(table, HasSubstr("duration  10s simulated\n"));
  EXPECT_THAT(table, HasSubstr("bert "));
  EXPECT_THAT(table, HasSubstr("resnet50-train "));
  EXPECT_THAT(table,
              ::testing::ContainsRegex(
                  "job +class +kind +completed +arrived +unfinished +solo/s"));
  // bert: 1982 requests arrived, 2 unfinished, 200 solo/s, 198 shared/s,
  // 0.990, p50/p95/p99 50/95/99 ms, +100% p99; resnet: no requests, "-".
  EXPECT_THAT(
      table,
      ::testing::ContainsRegex(
          "bert +high +inference +1980 +1982 +2 +200\\.00 +198\\.00 +0\\.990 "
          "+50\\.000 +95\\.000 +99\\.000 +\\+100\\.0%"));
  EXPECT_THAT(
      table,
      ::testing::ContainsRegex(
          "resnet50-train +best-effort +training +120 +- +- [^\n]* -\n"));
  EXPECT_THAT(table, ::testing::Not(HasSubstr("warning")));
  EXPECT_THAT(table, ::testing::Not(HasSubstr("instance")));
  EXPECT_THAT(table, HasSubstr("  SM occupancy  50.0% mean  |"));
  EXPECT_THAT(table, HasSubstr("  DRAM util     30.0% mean  |"));
  EXPECT_THAT(table, HasSubstr("system throughput  1.751"));
  EXPECT_THAT(table, HasSubstr("kernels simulated  123456"));
  EXPECT_EQ(table, FormatRunTable(SampleReport()));
  EXPECT_THAT(table, ::testing::Not(HasSubstr("copies")));  // none made.
  // Kernel delays: bert 3 of 1,134,540 (0.0%), 20 / 300 / 300 us (nearest
  // rank of 10, 20, 300); resnet none, "-".
  EXPECT_THAT(
      table,
      HasSubstr("\nkernels delayed: took more than 1us longer than alone, "));
  EXPECT_THAT(table, ::testing::ContainsRegex(
                         "\njob +delayed +of +share +p50 +p99 +max\n"));
  EXPECT_THAT(table, ::testing::ContainsRegex(
                         "\nbert +3 +1134540 +0\\.0% +20us +300us +300us\n"));
  EXPECT_THAT(table, ::testing::ContainsRegex(
                         "\nresnet50-train +0 +36000 +0\\.0% +- +- +-\n"));

  // Without a job that serves requests, no request columns.
  experiment::RunReport training = SampleReport();
  training.jobs.erase(training.jobs.begin());
  EXPECT_THAT(FormatRunTable(training),
              ::testing::ContainsRegex("job +class +kind +completed +solo/s"));
  // Without solo runs, nothing to compare the kernels with: no section.
  experiment::RunReport shared_only = SampleReport();
  for (experiment::JobReport& j : shared_only.jobs) j.kernel_delays.reset();
  EXPECT_THAT(FormatRunTable(shared_only),
              ::testing::Not(HasSubstr("kernels delayed")));
}

TEST(RunFormatTest, AServiceThatCompletedNothingHasNullLatency) {
  // No request completed: no percentiles, "-" in the table and null in the
  // JSON (not count 0 with 0 ms), like a training job's.
  experiment::RunReport r = SampleReport();
  r.jobs[0].completed = 0;
  r.jobs[0].shared_latency = experiment::ComputeLatencyStats({});
  r.jobs[0].solo_latency = experiment::ComputeLatencyStats({});
  r.jobs[0].p99_overhead.reset();
  const Json j = Json::parse(FormatRunJson(r));
  EXPECT_TRUE(j["jobs"][0]["shared_latency"].is_null());
  EXPECT_TRUE(j["jobs"][0]["solo_latency"].is_null());
  EXPECT_THAT(FormatRunTable(r),
              ::testing::ContainsRegex(
                  "\nbert +high +inference +0 [^\n]* - +- +- +-\n"));
}

TEST(RunFormatTest, AnOverloadedServiceIsWarnedAbout) {
  // 1000 requests arrived, 100 completed: 900 (90%) were queued or in
  // service at the end, as many alone. Its latencies describe only the 100,
  // so the table says so below the jobs.
  experiment::RunReport r = SampleReport();
  r.jobs[0].completed = 100;
  r.jobs[0].arrived = 1000;
  r.jobs[0].unfinished = 900;
  r.jobs[0].solo_unfinished = 900;
  const std::string table = FormatRunTable(r);
  EXPECT_THAT(
      table,
      HasSubstr("\nwarning: job 'bert' left 900 (90.0%) of 1000 "
                "requests unfinished at the end of the run, 900 (90.0%) "
                "alone; its latency figures cover only the 100 completed\n"));
  EXPECT_EQ(Json::parse(FormatRunJson(r))["jobs"][0]["unfinished"], 900);

  // The threshold: more than 1% of the arrivals and more than one request
  // (the one in service when the run ends is no overload).
  auto warned = [&](int64_t unfinished, int64_t arrived,
                    std::optional<int64_t> solo = std::nullopt) {
    r.jobs[0].arrived = arrived;
    r.jobs[0].unfinished = unfinished;
    r.jobs[0].solo_unfinished = solo;
    return FormatRunTable(r).find("warning: job 'bert'") != std::string::npos;
  };
  EXPECT_FALSE(warned(10, 1000));  // 1.0%
  EXPECT_TRUE(warned(11, 1000));   // 1.1%
  EXPECT_FALSE(warned(1, 20));     // 5%, but one request
  EXPECT_TRUE(warned(2, 20));
  EXPECT_TRUE(warned(0, 1000, 50));  // overloaded alone
  EXPECT_FALSE(warned(0, 0));
}

TEST(RunFormatTest, MigInstancesAreNamedPerJob) {
  // Two jobs on two 3g.20gb instances: each row and JSON job names its
  // instance, which is the name of its "gpus" entry.
  experiment::RunReport r = SampleReport();
  r.mode = "mig";
  r.jobs[0].instance = "A100-SXM4-40GB/3g.20gb#0";
  r.jobs[1].instance = "A100-SXM4-40GB/3g.20gb#1";
  r.gpus[0].name = "A100-SXM4-40GB/3g.20gb#0";
  r.gpus.push_back(r.gpus[0]);
  r.gpus[1].name = "A100-SXM4-40GB/3g.20gb#1";
  const std::string table = FormatRunTable(r);
  EXPECT_THAT(
      table, ::testing::ContainsRegex("job +class +kind +instance +completed"));
  EXPECT_THAT(
      table, ::testing::ContainsRegex(
                 "\nbert +high +inference +A100-SXM4-40GB/3g\\.20gb#0 +1980 "));
  EXPECT_THAT(
      table,
      ::testing::ContainsRegex(
          "\nresnet50-train +best-effort +training +A100-SXM4-40GB/3g\\.20gb#1 "
          "+120 "));
  EXPECT_THAT(table, HasSubstr("\ngpu A100-SXM4-40GB/3g.20gb#0\n"));
  EXPECT_THAT(table, HasSubstr("\ngpu A100-SXM4-40GB/3g.20gb#1\n"));
  const Json j = Json::parse(FormatRunJson(r));
  EXPECT_EQ(j["jobs"][0]["instance"], j["gpus"][0]["name"]);
  EXPECT_EQ(j["jobs"][1]["instance"], j["gpus"][1]["name"]);
  EXPECT_NE(j["gpus"][0]["name"], j["gpus"][1]["name"]);
}

TEST(RunFormatTest, PolicyNameInTableAndJson) {
  experiment::RunReport r = SampleReport();
  r.policy = "priority";
  EXPECT_THAT(FormatRunTable(r), HasSubstr("policy    priority\n"));
  EXPECT_EQ(Json::parse(FormatRunJson(r))["policy"], "priority");
  // A priority run says its preemption bound.
  r.preemption_bound = Microseconds(50);
  EXPECT_THAT(FormatRunTable(r),
              HasSubstr("policy    priority (preemption bound 50us)\n"));
  EXPECT_EQ(Json::parse(FormatRunJson(r))["preemption_bound_us"], 50.0);
}

TEST(RunFormatTest, CopiesAreCountedInTableAndJson) {
  experiment::RunReport r = SampleReport();
  // 1980 requests of 1.5 MiB in (1.5 MiB / 25 GB/s = 62.9 us each) and of
  // 4 KiB out.
  r.copies[0] = {1980, 1980 * 1572864LL, Nanoseconds(1980 * 62915LL)};
  r.copies[1] = {1980, 1980 * 4096LL, Nanoseconds(1980 * 164LL)};
  EXPECT_THAT(
      FormatRunTable(r),
      HasSubstr("copies             in 1980 (2970.0 MiB, engine busy 1.2%), "
                "out 1980 (7.7 MiB, engine busy 0.0%)\n"));
  const Json j = Json::parse(FormatRunJson(r));
  EXPECT_EQ(j["copies"]["host_to_device"]["count"], 1980);
  EXPECT_EQ(j["copies"]["host_to_device"]["bytes"], 1980 * 1572864LL);
  EXPECT_EQ(j["copies"]["host_to_device"]["busy_ns"], 1980 * 62915LL);
  EXPECT_EQ(j["copies"]["host_to_device"]["busy_fraction"], 0.0124572);
  EXPECT_EQ(j["copies"]["device_to_host"]["bytes"], 1980 * 4096LL);
}

TEST(RunTableTest, ColumnsLineUp) {
  const std::string table = FormatRunTable(SampleReport());
  // The header row and both job rows end at the same column ("p99 +%" is
  // right-aligned).
  const size_t header = table.find("job ");
  ASSERT_NE(header, std::string::npos);
  std::vector<size_t> lengths;
  size_t start = header;
  for (int row = 0; row < 3; ++row) {
    const size_t end = table.find('\n', start);
    lengths.push_back(end - start);
    start = end + 1;
  }
  EXPECT_EQ(lengths[0], lengths[1]);
  EXPECT_EQ(lengths[0], lengths[2]);
}

TEST(SparklineTest, LevelsAndDownsampling) {
  // 10 levels " .:-=+*#%@": v -> level round(9 v).
  EXPECT_EQ(Sparkline({0.0, 1.0, 0.5, 1.0 / 9, 2.0, -1.0}, 60), " @+.@ ");
  EXPECT_EQ(Sparkline({}, 60), "");
  // 120 values into at most 60 characters: pairs averaged.
  std::vector<double> values;
  for (int i = 0; i < 60; ++i) {
    values.push_back(0.0);
    values.push_back(1.0);
  }
  const std::string line = Sparkline(values, 60);
  EXPECT_EQ(line.size(), 60u);
  EXPECT_EQ(line, std::string(60, '+'));  // mean 0.5 -> round(4.5) = 5 -> '+'
}

}  // namespace
}  // namespace colo::report
