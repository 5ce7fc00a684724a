// Scenario loader: what a well-formed file becomes, and that every malformed
// one fails with the file, the 1-based YAML line and what was expected.
#include "scenario/scenario_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "scenario/test_files.h"
#include "sim/sim_gpu.h"

namespace colo::scenario {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr const char* kFile = "test.yaml";
// One tiny inline kernel, for jobs whose workload does not matter.
constexpr const char* kKernel =
    "{kernels: [{grid: 4, block: 256, duration_us: 10}]}";

Result<experiment::ScenarioSpec> Load(const std::string& text) {
  return LoadScenarioString(text, kFile, COLO_DATA_DIR);
}

TEST(ScenarioLoaderTest, InlineKernelsAndEveryJobField) {
  auto spec = Load(R"(name: demo
gpu: a100
mode: mps
time_slice: {quantum_us: 1000, switch_cost_us: 25}
preemption: {flag_latency_us: 30, persistent_overhead: 0.05, persistent_block_us: 0.5, retreat_spread: false}
seed: 42
duration_s: 2.5
sample_interval_ms: 20
jobs:
  - name: infer
    workload:
      profiled_on: V100
      kernels:
        - {name: gemm, grid: [128, 2], block: [16, 16], registers: 64, shared_mem: 4096,
           duration_us: 120.5, sm: 0.8, dram: 0.2, transformable: false, repeat: 3}
        - {grid: 10, block: 128, duration_us: 7}
    class: high
    arrivals: {poisson: 20}
    kernel_gap_us: 5
    memory: {persistent_mb: 500, ephemeral_mb: 1.5}
    transfers: {in_mb: 0.5, out_mb: 0.001}
    mps_percentage: 50
    start_ms: 100
  - name: train
    workload: {kernels: [{grid: 1, block: 32, duration_us: 1000}]}
    iterations: 7
    iteration_gap_us: 200
)");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->name, "demo");
  EXPECT_EQ(spec->source, kFile);
  EXPECT_EQ(spec->gpu.name, "A100-SXM4-40GB");
  EXPECT_EQ(spec->mode, experiment::SharingMode::kMps);
  EXPECT_EQ(spec->time_slice.quantum, Microseconds(1000));
  EXPECT_EQ(spec->time_slice.switch_cost, Microseconds(25));
  EXPECT_EQ(spec->preemption.flag_latency, Microseconds(30));
  EXPECT_EQ(spec->preemption.persistent_overhead, 0.05);
  EXPECT_EQ(spec->preemption.persistent_block_cost, Nanoseconds(500));
  EXPECT_FALSE(spec->preemption.retreat_spread);
  EXPECT_EQ(spec->seed, 42u);
  EXPECT_EQ(spec->duration, Milliseconds(2500));
  EXPECT_EQ(spec->sample_interval, Milliseconds(20));
  ASSERT_EQ(spec->jobs.size(), 2u);

  const experiment::JobSpec& infer = spec->jobs[0];
  EXPECT_EQ(infer.name, "infer");
  EXPECT_EQ(infer.workload.name, "infer");
  EXPECT_EQ(infer.workload.kind,
            WorkloadKind::kInference);  // arrivals imply inference.
  EXPECT_EQ(infer.workload.priority, PriorityClass::kHigh);
  EXPECT_EQ(infer.workload.profiled_on, "V100-SXM2-32GB");
  EXPECT_EQ(infer.workload.arrivals.kind, ArrivalKind::kPoisson);
  EXPECT_DOUBLE_EQ(infer.workload.arrivals.rate_per_s, 20);
  EXPECT_EQ(infer.workload.kernel_gap, Microseconds(5));
  EXPECT_EQ(infer.workload.memory.persistent_bytes, 500LL << 20);
  EXPECT_EQ(infer.workload.memory.ephemeral_peak_bytes, 3LL << 19);  // 1.5 MiB
  EXPECT_EQ(infer.workload.copy_in_bytes, 1LL << 19);                // 0.5 MiB
  EXPECT_EQ(infer.workload.copy_out_bytes, 1049);  // 0.001 MiB, rounded
  EXPECT_EQ(infer.mps_active_thread_percentage, 50.0);
  EXPECT_EQ(infer.start, Milliseconds(100));
  ASSERT_EQ(infer.workload.kernels.size(), 4u);  // 3 repeats + 1
  const KernelDesc& gemm = infer.workload.kernels[0];
  EXPECT_EQ(gemm.name, "gemm");
  EXPECT_EQ(gemm.grid.x, 128);
  EXPECT_EQ(gemm.grid.y, 2);
  EXPECT_EQ(gemm.grid.z, 1);
  EXPECT_EQ(gemm.ThreadsPerBlock(), 256);
  EXPECT_EQ(gemm.registers_per_thread, 64);
  EXPECT_EQ(gemm.shared_mem_per_block, 4096);
  EXPECT_EQ(gemm.solo_duration, Nanoseconds(120500));
  EXPECT_DOUBLE_EQ(gemm.sm_throughput, 0.8);
  EXPECT_DOUBLE_EQ(gemm.dram_throughput, 0.2);
  EXPECT_FALSE(gemm.transformable);
  EXPECT_EQ(infer.workload.kernels[2].name, "gemm");
  EXPECT_EQ(infer.workload.kernels[3].name,
            "kernel1");  // default name: its index.
  EXPECT_DOUBLE_EQ(infer.workload.kernels[3].sm_throughput,
                   0.5);  // KernelDesc default.

  const experiment::JobSpec& train = spec->jobs[1];
  EXPECT_EQ(train.workload.kind, WorkloadKind::kTraining);
  EXPECT_EQ(train.workload.priority, PriorityClass::kBestEffort);
  EXPECT_EQ(train.workload.profiled_on,
            "A100-SXM4-40GB");  // default: the scenario's GPU.
  EXPECT_EQ(train.workload.iterations, 7);
  EXPECT_EQ(train.workload.iteration_gap, Microseconds(200));
  EXPECT_FALSE(train.mps_active_thread_percentage.has_value());
}

TEST(ScenarioLoaderTest, DefaultsAndNameFromFileStem) {
  auto spec = LoadScenarioString(
      std::string("gpu: H100\njobs:\n  - name: a\n    workload: ") + kKernel +
          "\n",
      "some/dir/my-scenario.yaml", "");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->name, "my-scenario");
  EXPECT_EQ(spec->gpu.name, "H100-SXM5-80GB");
  EXPECT_EQ(spec->mode, experiment::SharingMode::kMps);
  EXPECT_EQ(spec->seed, 1u);
  EXPECT_EQ(spec->duration, Seconds(10));
  EXPECT_EQ(spec->sample_interval, Duration(0));
  EXPECT_EQ(spec->time_slice.quantum, Microseconds(2090));
  // The persistent form's costs default to the simulated GPU's own.
  const sim::SimGpuOptions gpu;
  EXPECT_EQ(spec->preemption.flag_latency, gpu.retreat_flag_latency);
  EXPECT_EQ(spec->preemption.persistent_overhead, gpu.persistent_overhead);
  EXPECT_EQ(spec->preemption.persistent_block_cost, gpu.persistent_block_cost);
  EXPECT_EQ(spec->preemption.retreat_spread, gpu.retreat_spread);
}

TEST(ScenarioLoaderTest, PolicyByNameHasDefaultOptions) {
  auto spec = Load(std::string("gpu: A100\npolicy: tgs\njobs:\n  - name: a\n"
                               "    workload: ") +
                   kKernel + "\n");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_TRUE(spec->policy.has_value());
  EXPECT_EQ(*spec->policy, sched::PolicyKind::kTgs);
  EXPECT_TRUE(spec->policy_options.explicitly_set.empty());
  EXPECT_EQ(spec->policy_options.tgs_period, Milliseconds(10));
}

TEST(ScenarioLoaderTest, PolicyMappingSetsEveryOptionAndRecordsIt) {
  auto spec = Load(std::string(R"(gpu: A100
policy:
  name: priority
  preemption_bound_us: 250
  min_idle_us: 10
  long_idle_us: 2000.5
  slice_launch_gap_us: 0
  harvest_block_us: 0
jobs:
  - name: a
    workload: )") + kKernel +
                   "\n");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_TRUE(spec->policy.has_value());
  EXPECT_EQ(*spec->policy, sched::PolicyKind::kPriority);
  const sched::PolicyOptions& o = spec->policy_options;
  EXPECT_EQ(o.preemption_bound, Microseconds(250));
  EXPECT_EQ(o.min_idle, Microseconds(10));
  EXPECT_EQ(o.long_idle, Nanoseconds(2000500));
  EXPECT_EQ(o.slice_launch_gap, Duration(0));
  EXPECT_EQ(o.harvest_block_bound, Duration(0));
  EXPECT_EQ(o.explicitly_set,
            (std::vector<std::string>{"preemption_bound_us", "min_idle_us",
                                      "long_idle_us", "slice_launch_gap_us",
                                      "harvest_block_us"}));
  // Options of other policies keep their defaults.
  EXPECT_EQ(o.orion_be_cap, Microseconds(250));

  auto orion = Load(std::string("gpu: A100\npolicy: {name: orion, "
                                "orion_be_cap_us: 400}\njobs:\n  - name: a\n"
                                "    workload: ") +
                    kKernel + "\n");
  ASSERT_TRUE(orion.ok()) << orion.status().ToString();
  EXPECT_EQ(orion->policy_options.orion_be_cap, Microseconds(400));
  auto tgs = Load(std::string("gpu: A100\npolicy: {name: tgs, tgs_period_ms: "
                              "2.5}\njobs:\n  - name: a\n    workload: ") +
                  kKernel + "\n");
  ASSERT_TRUE(tgs.ok()) << tgs.status().ToString();
  EXPECT_EQ(tgs->policy_options.tgs_period, Microseconds(2500));
  EXPECT_EQ(tgs->policy_options.explicitly_set,
            std::vector<std::string>{"tgs_period_ms"});
}

TEST(ScenarioLoaderTest, CustomGpuMappingWithMigProfiles) {
  auto spec = Load(std::string(R"(gpu:
  name: half-a100
  sm_count: 54
  max_threads_per_sm: 2048
  max_blocks_per_sm: 32
  registers_per_sm: 65536
  shared_mem_per_sm: 167936
  max_shared_mem_per_block: 166912
  reserved_shared_mem_per_block: 1024
  memory_bytes: 21474836480
  dram_bandwidth: 7.775e11
  copy_bandwidth: 2.5e10
  sm_clock_mhz: 1410
  fp32_lanes_per_sm: 64
  mig_profiles:
    - {name: 1g.5gb, compute_slices: 1, sm_count: 7, memory_eighths: 1}
    - {name: 3g.10gb, compute_slices: 3, sm_count: 21, memory_eighths: 4}
mode: mig
jobs:
  - name: a
    workload: )") + kKernel +
                   R"(
    mig: 3g.10gb
  - name: b
    workload: )" + kKernel +
                   R"(
    mig: 1g.5gb
    copies: 4
)");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->gpu.name, "half-a100");
  EXPECT_EQ(spec->gpu.sm_count, 54);
  EXPECT_EQ(spec->gpu.memory_bytes, 20LL << 30);
  EXPECT_DOUBLE_EQ(spec->gpu.dram_bandwidth, 7.775e11);
  EXPECT_EQ(spec->gpu.warp_size, 32);      // optional field, GpuSpec default.
  EXPECT_EQ(spec->gpu.l2_cache_bytes, 0);  // optional: not known.
  EXPECT_EQ(spec->gpu.memory_bus_bits, 0);
  ASSERT_EQ(spec->gpu.mig_profiles.size(), 2u);
  EXPECT_EQ(spec->gpu.mig_profiles[1].sm_count, 21);
  ASSERT_EQ(spec->jobs.size(),
            5u);  // 3 + 4*1 compute slices = 7: fits exactly.
  EXPECT_EQ(spec->jobs[0].mig_profile, "3g.10gb");
  EXPECT_EQ(spec->jobs[4].mig_profile, "1g.5gb");
}

TEST(ScenarioLoaderTest, PresetWithOverrides) {
  auto spec = Load(
      std::string("gpu: {preset: V100, name: v100-half, sm_count: 40}\njobs:\n"
                  "  - name: a\n    workload: ") +
      kKernel + "\n");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->gpu.name, "v100-half");
  EXPECT_EQ(spec->gpu.sm_count, 40);
  EXPECT_DOUBLE_EQ(spec->gpu.dram_bandwidth, 900e9);  // from the preset.
  EXPECT_EQ(spec->gpu.l2_cache_bytes, 6144 * 1024);
}

TEST(ScenarioLoaderTest,
     L2AndBusWidthAreOptionalGpuFieldsCheckedLikeTheOthers) {
  auto spec =
      Load(std::string(
               "gpu: {preset: A100, l2_cache_bytes: 20971520, "
               "memory_bus_bits: 2560}\njobs:\n  - name: a\n    workload: ") +
           kKernel + "\n");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->gpu.l2_cache_bytes, 20 << 20);
  EXPECT_EQ(spec->gpu.memory_bus_bits, 2560);
  auto bad = Load(std::string("gpu: {preset: A100, l2_cache_bytes: -1}\njobs:\n"
                              "  - name: a\n    workload: ") +
                  kKernel + "\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("l2_cache_bytes"), std::string::npos)
      << bad.status().ToString();
}

TEST(ScenarioLoaderTest, TensorFlopsIsAnOptionalGpuFieldThatMayBeZero) {
  const std::string jobs =
      std::string("\njobs:\n  - name: a\n    workload: ") + kKernel + "\n";
  auto spec = Load("gpu: A100" + jobs);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_DOUBLE_EQ(spec->gpu.tensor_flops, 312e12);  // the preset's
  spec = Load("gpu: {preset: A100, tensor_flops: 0}" + jobs);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->gpu.tensor_flops, 0);
  auto bad = Load("gpu: {preset: A100, tensor_flops: -1}" + jobs);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(
      bad.status().message().find("gpu.tensor_flops: expected a number >= 0"),
      std::string::npos)
      << bad.status().ToString();
}

TEST(ScenarioLoaderTest, CopiesExpandToNumberedJobs) {
  auto spec = Load(
      std::string("gpu: A100\njobs:\n  - name: w\n    workload: ") + kKernel +
      "\n    copies: 3\n  - name: solo\n    workload: " + kKernel + "\n");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_EQ(spec->jobs.size(), 4u);
  EXPECT_EQ(spec->jobs[0].name, "w-1");
  EXPECT_EQ(spec->jobs[1].name, "w-2");
  EXPECT_EQ(spec->jobs[2].name, "w-3");
  EXPECT_EQ(spec->jobs[2].workload.name, "w-3");
  EXPECT_EQ(spec->jobs[3].name, "solo");
}

// `count` is the jobs file's name of `copies` (io/job_fields.h): `count: 3`
// loads the same three jobs as `copies: 3`; a job that gives both is an
// error at the `count` line (line 6 below: gpu, jobs, name, workload,
// copies, count).
TEST(ScenarioLoaderTest, CountIsTheSameFieldAsCopies) {
  const std::string head =
      std::string("gpu: A100\njobs:\n  - name: w\n    workload: ") + kKernel +
      "\n";
  auto copies = Load(head + "    copies: 3\n");
  auto count = Load(head + "    count: 3\n");
  ASSERT_TRUE(copies.ok()) << copies.status().ToString();
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  ASSERT_EQ(count->jobs.size(), 3u);
  ASSERT_EQ(count->jobs.size(), copies->jobs.size());
  for (size_t i = 0; i < count->jobs.size(); ++i) {
    EXPECT_EQ(count->jobs[i].name, copies->jobs[i].name);
    EXPECT_EQ(count->jobs[i].workload.kernels.size(),
              copies->jobs[i].workload.kernels.size());
  }
  EXPECT_EQ(count->jobs[2].name, "w-3");

  auto both = Load(head + "    copies: 3\n    count: 3\n");
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(both.status().message(),
              HasSubstr("test.yaml:6: jobs[0].count: both 'copies' and "
                        "'count' given"));
}

TEST(ScenarioLoaderTest, ImportersThroughPathsRelativeToTheDataDir) {
  auto spec = Load(R"(gpu: V100
mode: time-slicing
jobs:
  - name: bert
    workload: {orion: orion/bert_2_fwd}
    arrivals: {trace: orion/inter_arrival_times.json}
    class: high
  - name: resnet
    workload: {orion: orion/resnet50_32_fb1}
  - name: reef-bert
    workload: {reef: reef/bert}
    arrivals: {fixed: 10}
)");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_EQ(spec->jobs.size(), 3u);
  EXPECT_EQ(spec->jobs[0].workload.kind, WorkloadKind::kInference);  // "_fwd"
  EXPECT_EQ(spec->jobs[0].workload.arrivals.kind, ArrivalKind::kTrace);
  EXPECT_FALSE(spec->jobs[0].workload.arrivals.offsets.empty());
  EXPECT_EQ(spec->jobs[0].workload.profiled_on, "V100-SXM2-32GB");
  EXPECT_EQ(spec->jobs[1].workload.kind, WorkloadKind::kTraining);  // "_fb1"
  EXPECT_EQ(spec->jobs[1].workload.name, "resnet");
  EXPECT_EQ(spec->jobs[2].workload.arrivals.kind, ArrivalKind::kFixedRate);
  EXPECT_EQ(spec->jobs[2].workload.profiled_on, "MI50");
  EXPECT_EQ(spec->jobs[2].profiled_on.name,
            "MI50");  // the runner needs its spec.
  EXPECT_TRUE(spec->jobs[0].profiled_on.name.empty());
}

TEST(ScenarioLoaderTest, FileRelativePathsResolveAgainstTheFilesDirectory) {
  test::ScratchDir dir("loader");
  std::filesystem::create_directories(dir.path() / "tables");
  std::filesystem::copy_file(
      std::string(COLO_DATA_DIR) + "/orion/resnet50_4_fwd",
      dir.path() / "tables" / "resnet.csv");
  dir.Write("traces/arrivals.txt", "0.0\n0.010\n0.025\n");
  const std::string scenario = dir.Write("scenarios/s.yaml", R"(gpu: A100
jobs:
  - name: r
    workload: {orion: ../tables/resnet.csv}
    kind: inference
    arrivals: {trace: ../traces/arrivals.txt}
)");
  auto spec = LoadScenarioFile(scenario);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->name, "s");
  EXPECT_EQ(spec->source, scenario);
  ASSERT_EQ(spec->jobs[0].workload.arrivals.offsets.size(), 3u);
  EXPECT_EQ(spec->jobs[0].workload.arrivals.offsets[2], Milliseconds(25));
}

TEST(ScenarioLoaderTest, KindOverridesTheImporter) {
  auto spec = Load(R"(gpu: V100
jobs:
  - name: r
    workload: {orion: orion/resnet50_4_fwd}
    kind: training
    iterations: 3
)");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->jobs[0].workload.kind, WorkloadKind::kTraining);
  EXPECT_EQ(spec->jobs[0].workload.iterations, 3);
}

// The full example in docs/scenario.md loads as documented.
TEST(ScenarioLoaderTest, DocumentedExampleLoads) {
  std::ifstream in(std::string(COLO_SOURCE_DIR) + "/docs/scenario.md");
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string text = doc.str();
  const size_t section = text.find("## A full example");
  ASSERT_NE(section, std::string::npos);
  const size_t begin = text.find("```yaml\n", section);
  ASSERT_NE(begin, std::string::npos);
  const size_t end = text.find("```", begin + 8);
  ASSERT_NE(end, std::string::npos);
  auto spec = LoadScenarioString(text.substr(begin + 8, end - begin - 8),
                                 "docs/scenario.md",
                                 std::string(COLO_SOURCE_DIR) + "/docs");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->name, "bert-vs-resnet");
  ASSERT_EQ(spec->jobs.size(), 4u);
  EXPECT_EQ(spec->jobs[1].name, "resnet-1");
  EXPECT_EQ(spec->jobs[1].start, Seconds(1));
  EXPECT_EQ(spec->jobs[3].workload.kind, WorkloadKind::kInference);
  EXPECT_EQ(spec->jobs[3].workload.kernels.size(), 11u);
}

// Every scenario under examples/ loads (they are what a newcomer runs first).
// examples/plan/ holds job lists for `colo plan`; examples/jobs/ and
// examples/hostqos/ hold job-queue and host scenarios, which their own
// modules load (JobScenario, HostScenario).
TEST(ScenarioLoaderTest, ExamplesLoad) {
  const std::filesystem::path examples =
      std::filesystem::path(COLO_SOURCE_DIR) / "examples";
  int loaded = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(examples)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string dir = entry.path().parent_path().filename().string();
    // Job-queue, host and cluster scenarios have loaders of their own.
    if (dir == "plan" || dir == "jobs" || dir == "hostqos" || dir == "cluster")
      continue;
    auto spec = LoadScenarioFile(entry.path().string());
    EXPECT_TRUE(spec.ok()) << spec.status().ToString();
    ++loaded;
  }
  EXPECT_GT(loaded, 0);
}

// Integers are decimal, as numbers are: yaml-cpp's own conversion read
// "010" as octal 8 (and "0x10" as 16, which ScenarioErrorTest refuses).
TEST(ScenarioLoaderTest, IntegersAreDecimalWithLeadingZeros) {
  auto spec = Load(R"(gpu: A100
seed: 010
jobs:
  - name: a
    workload:
      kernels: [{grid: [010, 1], block: 064, registers: 032, duration_us: 1, repeat: 010}]
    copies: 02
)");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->seed, 10u);
  ASSERT_EQ(spec->jobs.size(), 2u);
  const Workload& w = spec->jobs[0].workload;
  ASSERT_EQ(w.kernels.size(), 10u);
  EXPECT_EQ(w.kernels[0].grid.x, 10);
  EXPECT_EQ(w.kernels[0].block.x, 64);
  EXPECT_EQ(w.kernels[0].registers_per_thread, 32);
  // The largest seed still reads exactly (a double would round it up).
  auto big = Load(std::string("gpu: A100\nseed: 9223372036854775807\njobs:\n"
                              "  - name: a\n    workload: ") +
                  kKernel + "\n");
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  EXPECT_EQ(big->seed, 9223372036854775807u);
}

// GPU presets are case-insensitive everywhere, profiled_on's MI50 too.
TEST(ScenarioLoaderTest, ProfiledOnIsCaseInsensitive) {
  auto spec = Load(R"(gpu: {preset: A100, name: My-GPU}
jobs:
  - name: a
    workload:
      profiled_on: mi50
      kernels: [{grid: 1, block: 64, duration_us: 5}]
  - name: b
    workload:
      profiled_on: my-gpu
      kernels: [{grid: 1, block: 64, duration_us: 5}]
)");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->jobs[0].workload.profiled_on, "MI50");
  EXPECT_EQ(spec->jobs[0].profiled_on.name, "MI50");  // the runner's spec.
  EXPECT_EQ(spec->jobs[1].workload.profiled_on, "My-GPU");
}

// A file stem with a newline would split the report's header in two.
TEST(ScenarioLoaderTest, DefaultNameFromAStemWithANewlineIsEscaped) {
  auto spec = LoadScenarioString(
      std::string("gpu: A100\njobs:\n  - name: a\n    workload: ") + kKernel +
          "\n",
      "dir/two\nlines.yaml", "");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->name, "two\\nlines");
  auto bad =
      LoadScenarioString("gpu: A200\njobs: []\n", "dir/two\nlines.yaml", "");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(
      bad.status().message(),
      ::testing::StartsWith("dir/two\\nlines.yaml:1: gpu: unknown GPU"));
}

// The brief's case: a training table under a name without "_fb" is taken
// for inference; the message says so and how to state the kind.
TEST(ScenarioLoaderTest, KindGuessedFromAnOrionFileNameIsExplained) {
  test::ScratchDir dir("kind");
  std::filesystem::copy_file(
      std::string(COLO_DATA_DIR) + "/orion/resnet50_32_fb1",
      dir.path() / "resnet_train.csv");
  const std::string path =
      dir.Write("s.yaml",
                "gpu: A100\njobs:\n  - name: r\n    workload: {orion: "
                "resnet_train.csv}\n");
  auto spec = LoadScenarioFile(path);
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(
      spec.status().message(),
      AllOf(HasSubstr(path + ":3: jobs[0]: missing key 'arrivals'"),
            HasSubstr("this job is inference (its kind was guessed from the "
                      "Orion table's file name 'resnet_train.csv', which lacks "
                      "'_fb' as Orion's training tables' names have; give "
                      "kind: training or kind: inference to state it)")));
  dir.Write("s.yaml",
            "gpu: A100\njobs:\n  - name: r\n    workload: {orion: "
            "resnet_train.csv}\n    kind: training\n");
  EXPECT_TRUE(LoadScenarioFile(path).ok());
}

// Every limit of the loader is inclusive: what is exactly at it loads.
TEST(ScenarioLoaderTest, ValuesAtTheLimitsLoad) {
  // quantum 100 us, TGS period 1 ms.
  auto ts = Load(std::string("gpu: A100\nmode: time-slicing\ntime_slice: "
                             "{quantum_us: 100, switch_cost_us: 0}\njobs:\n"
                             "  - name: a\n    workload: ") +
                 kKernel + "\n");
  ASSERT_TRUE(ts.ok()) << ts.status().ToString();
  EXPECT_EQ(ts->time_slice.quantum, Microseconds(100));
  auto tgs = Load(std::string("gpu: A100\npolicy: {name: tgs, tgs_period_ms: "
                              "1}\njobs:\n  - name: a\n    workload: ") +
                  kKernel + "\n");
  ASSERT_TRUE(tgs.ok()) << tgs.status().ToString();
  // 10^6 requests/s for 10 s: 10^7 requests; 1 + 999,999 kernel launches.
  std::string busy_text = std::string(
                              "gpu: A100\njobs:\n  - name: a\n"
                              "    workload: ") +
                          kKernel +
                          "\n    arrivals: {fixed: 1e6}\n  - name: b\n"
                          "    workload:\n      kernels:\n";
  for (int repeat : {100000, 100000, 100000, 100000, 100000, 100000, 100000,
                     100000, 100000, 99999}) {
    busy_text += "        - {grid: 1, block: 32, duration_us: 1, repeat: " +
                 std::to_string(repeat) + "}\n";
  }
  auto busy = Load(busy_text);
  ASSERT_TRUE(busy.ok()) << busy.status().ToString();
  EXPECT_EQ(busy->jobs[1].workload.kernels.size(), 999999u);
  // Memory: 40960 MiB of jobs on a 40 GiB A100 (mps), 5120 MiB on 1g.5gb.
  auto full = Load(
      std::string("gpu: A100\njobs:\n  - name: a\n    workload: ") + kKernel +
      "\n    memory: {persistent_mb: 10240, ephemeral_mb: 10240}\n"
      "    copies: 2\n");
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  auto mig = Load(std::string("gpu: A100\nmode: mig\njobs:\n  - name: a\n"
                              "    workload: ") +
                  kKernel +
                  "\n    mig: 1g.5gb\n    memory: {persistent_mb: 5120}\n"
                  "    copies: 7\n");
  ASSERT_TRUE(mig.ok()) << mig.status().ToString();
}

// --duration-s changes the run after loading; CheckExpectedRequests checks
// the requests again.
TEST(ScenarioLoaderTest, ExpectedRequestsAreCheckedAgainForAnotherDuration) {
  auto spec =
      Load(std::string("gpu: A100\njobs:\n  - name: a\n    workload: ") +
           kKernel + "\n    arrivals: {poisson: 1e6}\n    start_ms: 1000\n");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_TRUE(CheckExpectedRequests(*spec).ok());  // 10^6/s for 9 s.
  spec->duration = Seconds(12);                    // 10^6/s for 11 s.
  Status st = CheckExpectedRequests(*spec);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("about 1.1e+07 requests over the run (up "
                                      "to job 'a'), more than the limit of "
                                      "1e+07"));
}

TEST(ScenarioLoaderTest, InlineKernelsAreMeasuredOnTheScenariosOwnGpu) {
  // A GPU that keeps a preset's name with other figures: inline kernels are
  // taken as measured on it, in full (the runner compares specifications, and
  // would otherwise rescale them from the stock A100).
  auto s = Load(
      "gpu: {preset: A100, sm_count: 54, mig_profiles: []}\n"
      "duration_s: 0.1\njobs:\n"
      "  - name: t\n"
      "    workload: {kernels: [{grid: 54, block: 256, duration_us: 100}]}\n");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->jobs[0].profiled_on.name, s->gpu.name);
  EXPECT_EQ(s->jobs[0].profiled_on.sm_count, 54);
}

TEST(ScenarioLoaderTest, MissingScenarioFileIsNotFound) {
  auto spec = LoadScenarioFile("/nonexistent/dir/s.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(spec.status().message(), HasSubstr("/nonexistent/dir/s.yaml"));
}

}  // namespace
}  // namespace colo::scenario
