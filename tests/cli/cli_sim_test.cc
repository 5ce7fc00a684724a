// `colo sim` end to end through the built executable: bad input exits 2 with
// a message naming the file, the line and what was expected; the same
// scenario and seed print byte-identical JSON.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/colo_process.h"
#include "scenario/test_files.h"

namespace colo::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// A small scenario that simulates quickly: a high-priority inference job with
// Poisson arrivals (so that the seed matters) beside a training job.
constexpr const char* kScenario = R"(name: cli-demo
gpu: A100
mode: mps
seed: 7
duration_s: 0.2
jobs:
  - name: infer
    workload:
      kernels:
        - {name: conv, grid: 216, block: 256, duration_us: 150, sm: 0.6, dram: 0.4}
        - {name: fc, grid: 54, block: 256, duration_us: 60, sm: 0.4, dram: 0.6}
    class: high
    arrivals: {poisson: 300}
  - name: train
    workload: {kernels: [{name: gemm, grid: 432, block: 256, duration_us: 400, sm: 0.8, dram: 0.3}]}
)";

class CliSimTest : public ::testing::Test {
 protected:
  CliSimTest() : dir_("cli") {}

  // Writes `yaml` to s.yaml and runs `colo sim <it> extra...`.
  ProcessResult Sim(const std::string& yaml,
                    std::vector<std::string> extra = {}) {
    scenario_ = dir_.Write("s.yaml", yaml);
    std::vector<std::string> args = {"sim", scenario_};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunColo(args, dir_.path());
  }

  // Bad input: exit status 2, one message on stderr naming file and line.
  void ExpectBadInput(const ProcessResult& r, int line,
                      const std::string& expected) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_THAT(r.err, StartsWith("colo: error: " + scenario_ + ":" +
                                  std::to_string(line) + ": "));
    EXPECT_THAT(r.err, HasSubstr(expected));
    EXPECT_EQ(r.out, "");
  }

  ScratchDir dir_;
  std::string scenario_;
};

TEST_F(CliSimTest, UnknownGpu) {
  ExpectBadInput(Sim("gpu: RTX9090\njobs: []\n"), 1,
                 "gpu: unknown GPU 'RTX9090'; expected one of V100-SXM2-32GB");
}

TEST_F(CliSimTest, NegativeRate) {
  ExpectBadInput(
      Sim("gpu: A100\njobs:\n  - name: j\n"
          "    workload: {kernels: [{grid: 1, block: 32, duration_us: 5}]}\n"
          "    arrivals: {poisson: -5}\n"),
      5,
      "jobs[0].arrivals.poisson: expected a number > 0 and at most 1e+06 "
      "(requests/s), got -5");
}

TEST_F(CliSimTest, MissingWorkloadFile) {
  const ProcessResult r =
      Sim("gpu: A100\njobs:\n  - name: j\n    workload: {orion: gone.csv}\n");
  ExpectBadInput(r, 4,
                 "jobs[0].workload.orion: Orion kernel table not found: " +
                     (dir_.path() / "gone.csv").string());
}

TEST_F(CliSimTest, MalformedCsvRow) {
  const std::string csv =
      dir_.Write("tables/model.csv",
                 "Name,Profile,Memory_footprint,SM_usage,Duration\n"
                 "Conv,1,0,98,100480\n"
                 "Relu,0,0,12,oops\n");
  const ProcessResult r =
      Sim("gpu: A100\njobs:\n  - name: j\n    workload:\n      orion: "
          "tables/model.csv\n");
  ExpectBadInput(r, 5, "jobs[0].workload.orion: " + csv + ":3: ");
  EXPECT_THAT(r.err, HasSubstr("Duration"));
  EXPECT_THAT(r.err, HasSubstr("'oops'"));
}

TEST_F(CliSimTest, YamlTypeError) {
  ExpectBadInput(Sim("gpu: A100\nduration_s: {seconds: 3}\njobs: []\n"), 2,
                 "duration_s: expected a number > 0 and at most 1e+06 "
                 "(seconds; at least 1 ns), got a mapping");
}

TEST_F(CliSimTest, YamlSyntaxError) {
  ExpectBadInput(Sim("gpu: A100\njobs: [\n"), 3, "YAML syntax error");
}

TEST_F(CliSimTest, MissingScenarioFile) {
  const std::string missing = (dir_.path() / "none.yaml").string();
  const ProcessResult r = RunColo({"sim", missing}, dir_.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr(missing + ": scenario file not found"));
}

TEST_F(CliSimTest, BadFlagValues) {
  const ProcessResult r = Sim(kScenario, {"--duration-s", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--duration-s: expected a number > 0 and at "
                               "most 1e+06 (seconds; at least 1 ns), got '0'"));
  // The same ranges as the scenario file: nothing wraps or reads as 0.
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--duration-s", ""}, "--duration-s: expected"},
      {{"--duration-s", "1e30"}, "--duration-s: expected"},
      {{"--bound-us", "1e30"}, "--bound-us: expected"},
      {{"--seed", "-1"},
       "--seed: expected an integer in 0..9223372036854775807"},
      {{"--seed", "18446744073709551616"}, "--seed: expected an integer"},
      {{"--seed", ""}, "--seed: expected an integer"},
      {{"--seed", "many"}, "--seed: expected an integer"},
      {{"--out", ""}, "--out: expected a file path"},
      {{"--policies", "all,mps"},
       "--policies: 'all' in 'all,mps': 'all' stands alone"},
      {{"--sim-tolerance", "0.3"},
       "--sim-tolerance: expected a fraction of a wave's duration in [0, "
       "0.25] (0: exact), got '0.3'"},
      {{"--sim-tolerance", "-0.01"}, "--sim-tolerance: expected"},
      {{"--sim-tolerance", "nan"}, "--sim-tolerance: expected"},
      {{"--sim-tolerance", "0.05", "--sweep", "a.rate=1:2:1"},
       "--sim-tolerance applies to one run or a comparison of policies, not "
       "to --sweep"}};
  for (const auto& [args, message] : cases) {
    const ProcessResult bad = Sim(kScenario, args);
    EXPECT_EQ(bad.exit_code, 2) << args[0] << " " << args[1];
    EXPECT_EQ(bad.out, "") << args[0] << " " << args[1];
    EXPECT_THAT(bad.err, HasSubstr("colo: error: " + message))
        << args[0] << " '" << args[1] << "'";
  }
  // A usage error is one line in the same format.
  const ProcessResult usage = RunColo({"sim"}, dir_.path());
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_THAT(usage.err, ::testing::StartsWith("colo: error: "));
  EXPECT_EQ(std::count(usage.err.begin(), usage.err.end(), '\n'), 1)
      << usage.err;
}

TEST_F(CliSimTest, ADirectoryOrDeviceIsNotAScenario) {
  ProcessResult r = RunColo({"sim", dir_.path().string()}, dir_.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("is a directory, expected a scenario file"));
  r = RunColo({"sim", "/dev/null"}, dir_.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("/dev/null: not a regular file"));
}

TEST_F(CliSimTest, RunningOutOfMemoryIsOneErrorLineNotAnAbort) {
  // 10^6 requests/s of a 10 ms kernel for 9 s (9 x 10^6 requests, within
  // the loader's cap of 10^7): the service completes 100 a second, so the
  // rest queue, 8 bytes each, about 72 MB, more than the 64 MiB of address
  // space the process gets here (it starts in less than 30). The
  // std::bad_alloc that the queue's growth throws is an error with status
  // 1, not "terminate called ..." and signal 6.
  scenario_ = dir_.Write(
      "s.yaml",
      "gpu: A100\nduration_s: 9\njobs:\n  - name: infer\n"
      "    workload: {kernels: [{grid: 108, block: 256, duration_us: 10000}]}\n"
      "    arrivals: {fixed: 1e6}\n");
  const ProcessResult r =
      RunColo({"sim", scenario_}, dir_.path(), rlim_t{64} << 20);
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, StartsWith("colo: error: out of memory while simulating " +
                                scenario_ + " ("));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(CliSimTest, AnyCommandRunningOutOfMemoryIsOneErrorLine) {
  // main() catches what a command lets escape: here `colo profile import`
  // of a 40 MB nvidia-smi log, 600,000 samples, in 64 MiB of address space.
  std::string log =
      "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk\n"
      "# Idx      W      C      C      %      %      %      %    MHz    MHz\n";
  const std::string sample =
      "    0    250     60     50     80     40      0      0   877  1380\n";
  log.reserve(log.size() + 600'000 * sample.size());
  for (int i = 0; i < 600'000; ++i) log += sample;
  const std::string path = dir_.Write("smi.log", log);
  const ProcessResult r =
      RunColo({"profile", "import", "--name", "x", "--smi", path}, dir_.path(),
              rlim_t{64} << 20);
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, StartsWith("colo: error: "));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(CliSimTest, TablePrintsEveryJob) {
  const ProcessResult r = Sim(kScenario);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(r.out, HasSubstr("scenario  cli-demo\n"));
  EXPECT_THAT(r.out, HasSubstr("\ninfer "));
  EXPECT_THAT(r.out, HasSubstr("\ntrain "));
  EXPECT_THAT(r.out, HasSubstr("gpu A100-SXM4-40GB\n"));
}

TEST_F(CliSimTest, TransfersAreCopiedAndReported) {
  // The service copies 1 MiB in and 0.25 MiB out per request; the trainer
  // 2 MiB in per iteration. Every copy that ended is counted with its bytes.
  std::string yaml = kScenario;
  yaml.replace(yaml.find("    arrivals: {poisson: 300}\n"), 0,
               "    transfers: {in_mb: 1, out_mb: 0.25}\n");
  yaml += "    transfers: {in_mb: 2}\n";
  const ProcessResult table = Sim(yaml);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(
      table.out,
      ::testing::ContainsRegex(
          "\ncopies +in [0-9]+ \\([0-9.]+ MiB, engine busy [0-9.]+%\\), "
          "out [0-9]+ \\([0-9.]+ MiB, engine busy [0-9.]+%\\)\n"));
  const ProcessResult json = Sim(yaml, {"--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  const int64_t served = j["jobs"][0]["completed"].get<int64_t>();
  const int64_t iterations = j["jobs"][1]["completed"].get<int64_t>();
  ASSERT_GT(served, 0);
  ASSERT_GT(iterations, 0);
  const auto& in = j["copies"]["host_to_device"];
  const auto& out = j["copies"]["device_to_host"];
  // Copies out are the served requests' last work; copies in may include
  // the request and iteration under way at the end.
  EXPECT_EQ(out["count"].get<int64_t>(), served);
  EXPECT_EQ(out["bytes"].get<int64_t>(), served * (int64_t{1} << 18));
  const int64_t ins = in["count"].get<int64_t>();
  EXPECT_GE(ins, served + iterations);
  EXPECT_LE(ins, served + iterations + 2);
  // 1 MiB at 25 GB/s is 41944 ns (rounded up), 2 MiB 83887 ns.
  const int64_t in_bytes = in["bytes"].get<int64_t>();
  const int64_t big =
      (in_bytes - ins * (int64_t{1} << 20)) >> 20;  // 2 MiB copies.
  EXPECT_EQ(in_bytes,
            (ins - big) * (int64_t{1} << 20) + big * (int64_t{2} << 20));
  EXPECT_EQ(in["busy_ns"].get<int64_t>(), (ins - big) * 41944 + big * 83887);
}

TEST_F(CliSimTest, SameSeedSameBytesOtherSeedOtherBytes) {
  const ProcessResult first = Sim(kScenario, {"--json"});
  const ProcessResult second = Sim(kScenario, {"--json"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(first.out, second.out);
  const auto json = nlohmann::json::parse(first.out);
  EXPECT_EQ(json["seed"], 7);
  EXPECT_EQ(json["scenario"], "cli-demo");
  EXPECT_GT(json["jobs"][0]["completed"].get<int64_t>(), 0);

  // --seed overrides the scenario's seed; Poisson arrivals then differ.
  const ProcessResult reseeded = Sim(kScenario, {"--json", "--seed", "8"});
  ASSERT_EQ(reseeded.exit_code, 0) << reseeded.err;
  EXPECT_NE(first.out, reseeded.out);
  EXPECT_EQ(nlohmann::json::parse(reseeded.out)["seed"], 8);
  const ProcessResult reseeded_again =
      Sim(kScenario, {"--json", "--seed", "8"});
  EXPECT_EQ(reseeded.out, reseeded_again.out);
}

TEST_F(CliSimTest, OutFileAndDurationOverride) {
  const std::string out = (dir_.path() / "report.json").string();
  const ProcessResult r =
      Sim(kScenario, {"--json", "--duration-s", "0.1", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const std::string written = ReadWholeFile(out);
  const auto json = nlohmann::json::parse(written);
  EXPECT_EQ(json["duration_ns"], 100'000'000);
  EXPECT_EQ(written, Sim(kScenario, {"--json", "--duration-s", "0.1"}).out);
}

// --out is checked before the run: the scenario itself is refused (the
// report would overwrite its input, which stays as it was), and so is a
// path in a directory that does not exist; neither writes anything.
TEST_F(CliSimTest, OutIsCheckedBeforeTheRunAndNeverOverwritesTheScenario) {
  const std::string scenario = (dir_.path() / "s.yaml").string();
  const ProcessResult self = Sim(kScenario, {"--out", scenario});
  EXPECT_EQ(self.exit_code, 2) << self.err;
  EXPECT_THAT(self.err, HasSubstr("the report would overwrite it"));
  EXPECT_EQ(ReadWholeFile(scenario), std::string(kScenario));
  const std::string missing =
      (dir_.path() / "no-such-dir" / "report.txt").string();
  const ProcessResult nowhere = Sim(kScenario, {"--out", missing});
  EXPECT_EQ(nowhere.exit_code, 2);
  EXPECT_THAT(nowhere.err, HasSubstr("--out " + missing + ": directory"));
  EXPECT_THAT(nowhere.err, HasSubstr("does not exist"));
  EXPECT_EQ(nowhere.out, "");
  const ProcessResult dir = Sim(kScenario, {"--out", dir_.path().string()});
  EXPECT_EQ(dir.exit_code, 2);
  EXPECT_THAT(dir.err, HasSubstr("is a directory"));
}

TEST_F(CliSimTest, ALongerDurationIsCheckedAgainstTheRequestLimit) {
  // 10^6 requests/s: 1 s loads (10^6), --duration-s 100 would bring 10^8,
  // past the loader's limit of 10^7: bad input, before anything runs.
  const ProcessResult r = Sim(
      "gpu: A100\nduration_s: 1\njobs:\n  - name: infer\n"
      "    workload: {kernels: [{grid: 108, block: 256, duration_us: 10}]}\n"
      "    arrivals: {fixed: 1e6}\n",
      {"--duration-s", "100"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, StartsWith("colo: error: --duration-s 100: "));
  EXPECT_NE(r.err.find("more than the limit of 1e+07"), std::string::npos)
      << r.err;
}

// --policies: one comparison row per policy; bad lists and bounds are bad
// input (exit 2) with a message that says what is valid.
TEST_F(CliSimTest, PoliciesAllPrintsOneRowPerPolicy) {
  const ProcessResult r =
      Sim(kScenario, {"--policies", "all", "--duration-s", "0.05"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(r.out, HasSubstr("scenario  cli-demo\n"));
  EXPECT_THAT(r.out,
              ::testing::ContainsRegex(
                  "policy +hp p50 ms +hp p99 ms +hp p99 \\+% +hp delayed "
                  "+delay p99 us +delay max us +be norm +system +SM occ\n"));
  for (const char* policy :
       {"mps", "time-slice", "priority-streams", "priority", "orion", "tgs",
        "mps-priority", "reef"}) {
    EXPECT_THAT(
        r.out, ::testing::ContainsRegex("\n" + std::string(policy) + " +[0-9]"))
        << policy;
  }
}

TEST_F(CliSimTest, PoliciesJsonIsAnArrayOfRunReports) {
  const ProcessResult r =
      Sim(kScenario, {"--policies", "priority,mps", "--bound-us", "40",
                      "--duration-s", "0.05", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  ASSERT_TRUE(json.is_array());
  ASSERT_EQ(json.size(), 2u);
  EXPECT_EQ(json[0]["policy"], "priority");
  EXPECT_EQ(json[0]["preemption_bound_us"], 40.0);
  EXPECT_EQ(json[1]["policy"], "mps");
  EXPECT_TRUE(json[1]["preemption_bound_us"].is_null());
  EXPECT_EQ(r.out, Sim(kScenario, {"--policies", "priority,mps", "--bound-us",
                                   "40", "--duration-s", "0.05", "--json"})
                       .out);
}

TEST_F(CliSimTest, IdealAddsTheBoundAsALastRowAndNeedsPolicies) {
  const ProcessResult r = Sim(
      kScenario, {"--policies", "priority", "--ideal", "--duration-s", "0.05"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(
      r.out,
      ::testing::ContainsRegex(
          "\npriority +[0-9].*\nideal bound +[0-9.]+ +[0-9.]+ +\\+0\\.0% "));
  EXPECT_THAT(r.out, HasSubstr("\nideal bound: not a policy but a bound"));
  const ProcessResult alone = Sim(kScenario, {"--ideal"});
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_THAT(
      alone.err,
      HasSubstr("--ideal adds the ideal-preemption bound to a comparison of "
                "policies: pass --policies too"));
  EXPECT_EQ(alone.out, "");
}

TEST_F(CliSimTest, UnknownPolicyListsTheValidOnes) {
  const ProcessResult r = Sim(kScenario, {"--policies", "mps,bogus"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown policy 'bogus'; expected one of mps, "
                               "time-slice, priority-streams, priority, "
                               "orion, tgs"));
  EXPECT_EQ(r.out, "");
}

TEST_F(CliSimTest, BoundMustBePositiveAndNeedsThePriorityPolicy) {
  const ProcessResult zero =
      Sim(kScenario, {"--policies", "all", "--bound-us", "0"});
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_THAT(zero.err, HasSubstr("--bound-us: expected a number > 0"));
  EXPECT_EQ(zero.out, "");
  const ProcessResult no_priority =
      Sim(kScenario, {"--policies", "mps,orion", "--bound-us", "50"});
  EXPECT_EQ(no_priority.exit_code, 2);
  EXPECT_THAT(no_priority.err, HasSubstr("does not include priority"));
  const ProcessResult no_policy = Sim(kScenario, {"--bound-us", "50"});
  EXPECT_EQ(no_policy.exit_code, 2);
  EXPECT_THAT(no_policy.err, HasSubstr("does not run the priority policy"));
}

// --bound-us 25,50,...: the priority row once per bound, named with it, in
// the place priority has in the list; a single bound keeps the plain name.
TEST_F(CliSimTest, SeveralBoundsMakeAPriorityRowEach) {
  const ProcessResult r =
      Sim(kScenario, {"--policies", "mps,priority,tgs", "--bound-us",
                      "25,400,25", "--duration-s", "0.05"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::ContainsRegex(
                         "\nmps +[0-9][^\n]*\npriority 25us +[0-9][^\n]*\n"
                         "priority 400us +[0-9][^\n]*\ntgs +[0-9]"));
  const ProcessResult json =
      Sim(kScenario, {"--policies", "priority", "--bound-us", "25,400",
                      "--duration-s", "0.05", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto runs = nlohmann::json::parse(json.out);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0]["preemption_bound_us"], 25.0);
  EXPECT_EQ(runs[1]["preemption_bound_us"], 400.0);
  // Each bound is checked; several need --policies.
  for (const char* bad : {"25,0", "25,,50", "25,x", "50,"}) {
    const ProcessResult e =
        Sim(kScenario, {"--policies", "priority", "--bound-us", bad});
    EXPECT_EQ(e.exit_code, 2) << bad;
    EXPECT_THAT(e.err, HasSubstr("--bound-us " + std::string(bad) +
                                 ": expected a number > 0"))
        << bad;
    EXPECT_EQ(e.out, "") << bad;
  }
  std::string yaml = kScenario;
  yaml.replace(yaml.find("jobs:"), 0, "policy: priority\n");
  const ProcessResult single_run = Sim(yaml, {"--bound-us", "25,50"});
  EXPECT_EQ(single_run.exit_code, 2);
  EXPECT_THAT(
      single_run.err,
      HasSubstr("--bound-us 25,50: several bounds make one priority run "
                "each, for a comparison table: pass --policies"));
  EXPECT_EQ(single_run.out, "");
  // One bound named twice is one bound.
  const ProcessResult twice =
      Sim(yaml, {"--bound-us", "25,25", "--duration-s", "0.05"});
  ASSERT_EQ(twice.exit_code, 0) << twice.err;
  EXPECT_THAT(twice.out,
              HasSubstr("policy    priority (preemption bound 25us)\n"));
}

TEST_F(CliSimTest, OptionOfAnotherPolicyNamesOptionPolicyAndLine) {
  std::string yaml = kScenario;
  yaml.replace(yaml.find("jobs:"), 0,
               "policy: {name: orion, preemption_bound_us: 50}\n");
  ExpectBadInput(Sim(yaml), 6,
                 "policy.preemption_bound_us: policy option "
                 "'preemption_bound_us' does not apply to policy 'orion'");
}

TEST_F(CliSimTest, ScenarioPolicyOptionsOfOtherPoliciesDoNotBreakOtherRuns) {
  // orion_be_cap_us belongs to orion: the other runs ignore it.
  std::string yaml = kScenario;
  yaml.replace(yaml.find("jobs:"), 0,
               "policy: {name: orion, orion_be_cap_us: 400}\n");
  const ProcessResult r = Sim(
      yaml, {"--policies", "all", "--bound-us", "50", "--duration-s", "0.05"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\npriority "));
}

// Three training jobs of multi-wave kernels under MPS: their waves interleave,
// which is where fusing them is not exact.
constexpr const char* kMultiWave = R"(name: multi-wave
gpu: A100
mode: mps
seed: 3
duration_s: 0.2
jobs:
  - name: a
    workload: {kernels: [{name: ga, grid: 2000, block: 256, duration_us: 700, sm: 0.7, dram: 0.4},
                         {name: ea, grid: 300, block: 128, duration_us: 90, sm: 0.3, dram: 0.8}]}
  - name: b
    workload: {kernels: [{name: gb, grid: 1500, block: 512, duration_us: 500, sm: 0.5, dram: 0.6}]}
  - name: c
    workload: {kernels: [{name: gc, grid: 5000, block: 128, duration_us: 1300, sm: 0.4, dram: 0.5},
                         {name: rc, grid: 90, block: 1024, duration_us: 40, sm: 0.2, dram: 0.2}]}
)";

TEST_F(CliSimTest, WaveByWaveIsReportedAndAgreesWithTheFusedDefault) {
  // Waves are fused by default, on the wave-by-wave run's schedule; the runs
  // differ only where groups of SMs merge at the events one of them has
  // (SimGpuTest.FusedWavesUnderMpsFollowTheWaveByWaveScheduleToTheNanosecond
  // checks the schedule without merging). On this MPS scenario: within 1% in
  // kernels and 0.01 in system throughput (measured: 446 kernels and 1.1543
  // wave by wave, 449 and 1.1590 fused).
  const ProcessResult fused = Sim(kMultiWave, {"--json"});
  const ProcessResult plain = Sim(kMultiWave, {"--json", "--wave-by-wave"});
  ASSERT_EQ(fused.exit_code, 0) << fused.err;
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const auto f = nlohmann::json::parse(fused.out);
  const auto p = nlohmann::json::parse(plain.out);
  EXPECT_EQ(f["wave_by_wave"], false);
  EXPECT_EQ(p["wave_by_wave"], true);
  const double kf = f["kernels_simulated"], kp = p["kernels_simulated"];
  EXPECT_NEAR(kf / kp, 1.0, 0.01);
  EXPECT_NEAR(f["system_throughput"].get<double>(),
              p["system_throughput"].get<double>(), 0.01);
  EXPECT_THAT(Sim(kMultiWave, {"--wave-by-wave"}).out,
              HasSubstr("wave by wave"));
  EXPECT_THAT(Sim(kMultiWave, {}).out, Not(HasSubstr("wave by wave")));

  // --fuse-waves, once the opt-in, is the default: accepted, same output;
  // with --wave-by-wave it is a contradiction.
  const ProcessResult old_flag = Sim(kMultiWave, {"--json", "--fuse-waves"});
  ASSERT_EQ(old_flag.exit_code, 0) << old_flag.err;
  EXPECT_EQ(old_flag.out, fused.out);
  EXPECT_EQ(Sim(kMultiWave, {"--fuse-waves", "--wave-by-wave"}).exit_code, 2);
}

// A host scenario's runs are recorded only once its report is written, as
// on kernel scenarios: /dev/full passes the --out check (a file colo may
// write) and then fails the write (ENOSPC), so the run fails and the
// database holds no run; the same run to a real file records one run per
// controller (so that the first count could have been other than 0).
TEST_F(CliSimTest, AHostRunWhoseReportIsNotWrittenIsNotRecorded) {
  const std::string scenario =
      std::string(COLO_SOURCE_DIR) + "/examples/hostqos/kelp-50.yaml";
  const std::string db = (dir_.path() / "runs.db").string();
  auto runs = [&] {
    const ProcessResult list =
        RunColo({"runs", "list", "--json", "--runs-db", db}, dir_.path());
    EXPECT_EQ(list.exit_code, 0) << list.err;
    return nlohmann::json::parse(list.out, nullptr, false);
  };
  const ProcessResult lost = RunColo(
      {"sim", scenario, "--json", "--out", "/dev/full", "--runs-db", db},
      dir_.path());
  EXPECT_EQ(lost.exit_code, 1) << lost.err;
  EXPECT_THAT(lost.err, HasSubstr("--out /dev/full: write failed"));
  const nlohmann::json none = runs();
  ASSERT_TRUE(none.is_array()) << none;
  EXPECT_EQ(none.size(), 0u) << none;

  const std::string out = (dir_.path() / "host.json").string();
  const ProcessResult kept = RunColo(
      {"sim", scenario, "--json", "--out", out, "--runs-db", db}, dir_.path());
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  std::ifstream file(out);
  const nlohmann::json printed = nlohmann::json::parse(file, nullptr, false);
  ASSERT_TRUE(printed.is_array());
  const nlohmann::json recorded = runs();
  ASSERT_TRUE(recorded.is_array());
  EXPECT_EQ(recorded.size(), printed.size());
  EXPECT_GE(printed.size(), 1u);
  for (const nlohmann::json& r : recorded) EXPECT_EQ(r["kind"], "host") << r;
}

// Approximate mode is said in the table and the JSON, and only there.
TEST_F(CliSimTest, SimToleranceIsReportedWhereItWasUsed) {
  const ProcessResult approx = Sim(kScenario, {"--sim-tolerance", "0.05"});
  ASSERT_EQ(approx.exit_code, 0) << approx.err;
  EXPECT_THAT(approx.out, HasSubstr("approximate"));
  const ProcessResult exact = Sim(kScenario);
  ASSERT_EQ(exact.exit_code, 0) << exact.err;
  EXPECT_THAT(exact.out, Not(HasSubstr("approximate")));
  const ProcessResult json =
      Sim(kScenario, {"--sim-tolerance", "0.05", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out).at("time_tolerance"), 0.05);
}

}  // namespace
}  // namespace colo::test
