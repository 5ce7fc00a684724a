// Every malformed scenario fails with its code, and a message that names the
// file, the 1-based line of the offending YAML and what was expected.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scenario/scenario_loader.h"
#include "scenario/test_files.h"

namespace colo::scenario {
namespace {

using ::testing::HasSubstr;

constexpr const char* kFile = "bad.yaml";
// Line 1-2 of most cases; the job entry starts on line 3.
const std::string kHead = "gpu: A100\njobs:\n";
constexpr const char* kKernel =
    "{kernels: [{grid: 4, block: 256, duration_us: 10}]}";

std::string Job(const std::string& extra = "") {
  return std::string("  - name: j\n    workload: ") + kKernel + "\n" + extra;
}

// `n` inline kernels of 100000 repeats each, one a line from line 6.
std::string RepeatedKernels(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += "        - {grid: 1, block: 32, duration_us: 1, repeat: 100000}\n";
  }
  return out;
}

// `n` jobs j0.. of 100000 kernel launches each, two lines each from line 3.
std::string RepeatedJobs(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += "  - name: j" + std::to_string(i) +
           "\n    workload: {kernels: [{grid: 1, block: 32, duration_us: 1, "
           "repeat: 100000}]}\n";
  }
  return out;
}

struct Case {
  const char* name;
  std::string text;
  StatusCode code;
  int line;  // expected "bad.yaml:<line>:" in the message.
  std::vector<std::string> phrases;  // each must appear in the message.
};

std::vector<Case> Cases() {
  const StatusCode kBad = StatusCode::kInvalidArgument;
  return {
      {"UnknownGpuListsPresets",
       "gpu: A200\njobs:\n" + Job(),
       kBad,
       1,
       {"gpu: unknown GPU 'A200'",
        "expected one of V100-SXM2-32GB, A100-SXM4-40GB"}},
      {"UnknownMode",
       "gpu: A100\nmode: mpx\njobs:\n" + Job(),
       kBad,
       2,
       {"mode: expected one of exclusive, time-slicing, mps, mig, streams, got "
        "'mpx'"}},
      {"NegativeRate",
       kHead + Job("    arrivals: {poisson: -5}\n"),
       kBad,
       5,
       {"jobs[0].arrivals.poisson: expected a number > 0 and at most 1e+06 "
        "(requests/s), got "
        "-5"}},
      {"RateNotANumber",
       kHead + Job("    arrivals: {fixed: fast}\n"),
       kBad,
       5,
       {"jobs[0].arrivals.fixed: expected a number > 0 and at most 1e+06 "
        "(requests/s), got "
        "'fast'"}},
      {"TwoArrivalKinds",
       kHead + Job("    arrivals: {fixed: 1, poisson: 2}\n"),
       kBad,
       5,
       {"jobs[0].arrivals: expected a mapping with one of poisson"}},
      {"TypeErrorSequenceForNumber",
       "gpu: A100\nduration_s: [1, 2]\njobs:\n" + Job(),
       kBad,
       2,
       {"duration_s: expected a number > 0 and at most 1e+06 (seconds; at "
        "least 1 ns), got a "
        "sequence"}},
      {"TypeErrorMappingForString",
       "gpu: A100\nmode: {a: 1}\njobs:\n" + Job(),
       kBad,
       2,
       {"mode: expected one of", "got a mapping"}},
      {"ZeroDuration",
       "gpu: A100\nduration_s: 0\njobs:\n" + Job(),
       kBad,
       2,
       {"duration_s: expected a number > 0 and at most 1e+06 (seconds; at "
        "least 1 ns), got 0"}},
      {"UnknownTopLevelKey",
       "gpu: A100\nseeed: 3\njobs:\n" + Job(),
       kBad,
       2,
       {"unknown key 'seeed'", "valid keys: name, gpu, mode",
        "did you mean 'seed'?"}},
      {"UnknownJobKey",
       kHead + Job("    arival: {poisson: 5}\n"),
       kBad,
       5,
       {"jobs[0]: unknown key 'arival'",
        "valid keys: name, workload, kind, class, arrivals",
        "did you mean 'arrivals'?"}},
      {"UnknownKernelKey",
       kHead + "  - name: j\n    workload:\n      kernels:\n"
               "        - {grid: 1, block: 32, duration_us: 1, regs: 3}\n",
       kBad,
       6,
       {"jobs[0].workload.kernels[0]: unknown key 'regs'", "registers"}},
      {"DuplicateKey",
       "gpu: A100\ngpu: V100\njobs:\n" + Job(),
       kBad,
       2,
       {"key 'gpu' appears twice (first at line 1)"}},
      {"YamlSyntaxError",
       "gpu: A100\njobs: [\n  {name: j\n",
       kBad,
       4,
       {"YAML syntax error"}},
      {"YamlBadIndentation",
       "gpu: A100\n  mode: mps\njobs: []\n",
       kBad,
       2,
       {"YAML syntax error"}},
      {"NotAMapping",
       "- gpu: A100\n",
       kBad,
       1,
       {"expected a scenario mapping", "got a sequence"}},
      {"EmptyDocument",
       "",
       kBad,
       1,
       {"expected a scenario mapping", "got nothing"}},
      {"MissingGpu",
       "mode: mps\njobs:\n" + Job(),
       kBad,
       1,
       {"missing key 'gpu' (expected a GPU preset or a GpuSpec mapping)"}},
      {"NoJobs",
       "gpu: A100\njobs: []\n",
       kBad,
       2,
       {"jobs: expected a non-empty sequence of jobs, got an empty sequence"}},
      {"MissingJobName",
       "gpu: A100\njobs:\n  - workload: {kernels: []}\n",
       kBad,
       3,
       {"jobs[0]: missing key 'name'"}},
      {"DuplicateJobNames",
       kHead + Job() + Job(),
       kBad,
       5,
       {"jobs[1].name: job name 'j' is already used by jobs[0] (line 3)"}},
      {"CopiesCollideWithAName",
       kHead + Job("    copies: 2\n") +
           "  - name: j-2\n    workload: " + kKernel + "\n",
       kBad,
       6,
       {"job name 'j-2' is already used by jobs[0]"}},
      {"CopiesZero",
       kHead + Job("    copies: 0\n"),
       kBad,
       5,
       {"jobs[0].copies: expected an integer in 1..1000, got 0"}},
      {"NoWorkloadSource",
       "gpu: A100\njobs:\n  - name: j\n    workload: {}\n",
       kBad,
       4,
       {"jobs[0].workload: no workload source; expected exactly one of orion, "
        "reef or kernels"}},
      {"TwoWorkloadSources",
       "gpu: A100\njobs:\n  - name: j\n    workload: {orion: a, reef: b}\n",
       kBad,
       4,
       {"more than one workload source"}},
      {"KernelDurationNegative",
       "gpu: A100\njobs:\n  - name: j\n    workload:\n      kernels:\n"
       "        - {grid: 1, block: 32, duration_us: -1}\n",
       kBad,
       6,
       {"duration_us: expected a number > 0 and at most 1e+12 (microseconds; "
        "at least 1 ns), "
        "got -1"}},
      {"KernelGridBad",
       "gpu: A100\njobs:\n  - name: j\n    workload:\n      kernels:\n"
       "        - {grid: [1, 2, 3, 4], block: 32, duration_us: 1}\n",
       kBad,
       6,
       {"grid: expected an integer in 1..2147483647 or a sequence [x, y, z] of "
        "them"}},
      {"ProfiledOnUnknown",
       "gpu: A100\njobs:\n  - name: j\n    workload:\n      profiled_on: K80\n"
       "      kernels: [{grid: 1, block: 32, duration_us: 1}]\n",
       kBad,
       5,
       {"profiled_on: expected a GPU preset", "got 'K80'"}},
      {"InferenceNeedsArrivals",
       kHead + Job("    kind: inference\n"),
       kBad,
       3,
       {"jobs[0]: missing key 'arrivals' (expected a mapping with one of "
        "poisson"}},
      {"TrainingRejectsArrivals",
       kHead + Job("    kind: training\n    arrivals: {poisson: 3}\n"),
       kBad,
       6,
       {"jobs[0].arrivals: only valid for inference jobs"}},
      {"InferenceRejectsIterations",
       kHead + Job("    arrivals: {poisson: 3}\n    iterations: 3\n"),
       kBad,
       6,
       {"jobs[0].iterations: only valid for training jobs"}},
      {"UnknownKind",
       kHead + Job("    kind: serving\n"),
       kBad,
       5,
       {"jobs[0].kind: expected training or inference, got 'serving'"}},
      {"UnknownClass",
       kHead + Job("    class: low\n"),
       kBad,
       5,
       {"jobs[0].class: expected high or best-effort, got 'low'"}},
      {"NegativeGap",
       kHead + Job("    kernel_gap_us: -1\n"),
       kBad,
       5,
       {"jobs[0].kernel_gap_us: expected a number >= 0 and at most 1e+12 "
        "(microseconds; 0 or at least 1 ns), got "
        "-1"}},
      {"MemoryTypo",
       kHead + Job("    memory: {persistent_gb: 1}\n"),
       kBad,
       5,
       {"jobs[0].memory: unknown key 'persistent_gb'", "persistent_mb"}},
      {"TransfersTypo",
       kHead + Job("    transfers: {in_kb: 1}\n"),
       kBad,
       5,
       {"jobs[0].transfers: unknown key 'in_kb'", "in_mb"}},
      {"NegativeTransfer",
       kHead + Job("    transfers: {out_mb: -2}\n"),
       kBad,
       5,
       {"jobs[0].transfers.out_mb: expected a number >= 0 and at most 1048576 "
        "(MiB), got -2"}},
      {"TransferAboveATebibyte",
       kHead + Job("    transfers: {in_mb: 2e6}\n"),
       kBad,
       5,
       {"jobs[0].transfers.in_mb: expected a number >= 0 and at most 1048576 "
        "(MiB), got 2e6"}},
      {"MpsPercentageOutsideMps",
       "gpu: A100\nmode: time-slicing\njobs:\n" +
           Job("    mps_percentage: 50\n"),
       kBad,
       6,
       {"jobs[0].mps_percentage: only valid in mode mps; this scenario's mode "
        "is time-slicing"}},
      {"MpsPercentageOutOfRange",
       kHead + Job("    mps_percentage: 150\n"),
       kBad,
       5,
       {"jobs[0].mps_percentage: expected a number in (0, 100] (percent of "
        "SMs), got 150"}},
      {"MigProfileOutsideMig",
       kHead + Job("    mig: 1g.5gb\n"),
       kBad,
       5,
       {"jobs[0].mig: only valid in mode mig; this scenario's mode is mps"}},
      {"MigProfileRequiredInMig",
       "gpu: A100\nmode: mig\njobs:\n" + Job(),
       kBad,
       4,
       {"jobs[0]: missing key 'mig' (expected the job's MIG profile in mode "
        "mig)"}},
      {"MigProfileUnknown",
       "gpu: A100\nmode: mig\njobs:\n" + Job("    mig: 2g.20gb\n"),
       kBad,
       6,
       {"jobs[0].mig: expected a MIG profile of A100-SXM4-40GB (1g.5gb, "
        "2g.10gb, 3g.20gb",
        "got '2g.20gb'"}},
      {"MigOnGpuWithoutMig",
       "gpu: V100\nmode: mig\njobs:\n" + Job("    mig: 1g.5gb\n"),
       kBad,
       2,
       {"mode: mode mig needs a GPU with MIG profiles; V100-SXM2-32GB has "
        "none"}},
      {"MigInstancesDoNotFit",
       "gpu: A100\nmode: mig\njobs:\n" +
           Job("    mig: 4g.20gb\n    copies: 2\n"),
       kBad,
       6,
       {"jobs[0].mig: the MIG instances do not fit on one A100-SXM4-40GB",
        "8 of 7 compute slices"}},
      {"CustomGpuMissingField",
       "gpu: {name: x, sm_count: 10}\njobs:\n" + Job(),
       kBad,
       1,
       {"gpu: missing key 'max_threads_per_sm' (expected an integer >= 1)"}},
      {"CustomGpuBadValue",
       "gpu: {preset: A100, sm_count: -3}\njobs:\n" + Job(),
       kBad,
       1,
       {"gpu.sm_count: expected an integer >= 1, got -3"}},
      {"CustomGpuFailsValidate",
       "gpu: {preset: A100, max_shared_mem_per_block: 999999999}\njobs:\n" +
           Job(),
       kBad,
       1,
       {"max_shared_mem_per_block must not exceed shared_mem_per_sm"}},
      {"PresetMigProfilesNoLongerFit",
       "gpu: {preset: A100, name: a100-half, sm_count: 54}\njobs:\n" + Job(),
       kBad,
       1,
       {"MIG profile '4g.20gb'", "the preset's MIG profiles are kept",
        "give mig_profiles: [] for none"}},
      {"MissingOrionTable",
       "gpu: A100\njobs:\n  - name: j\n    workload:\n      orion: nope.csv\n",
       StatusCode::kNotFound,
       5,
       {"jobs[0].workload.orion: Orion kernel table not found: " +
        std::string(COLO_DATA_DIR) + "/nope.csv"}},
      {"MissingReefDir",
       "gpu: A100\njobs:\n  - name: j\n    workload: {reef: reef/nope}\n",
       StatusCode::kNotFound,
       4,
       {"REEF model directory not found: " + std::string(COLO_DATA_DIR) +
        "/reef/nope"}},
      {"MissingTrace",
       kHead + Job("    arrivals:\n      trace: none.json\n"),
       StatusCode::kNotFound,
       6,
       {"jobs[0].arrivals.trace: arrival trace not found: " +
        std::string(COLO_DATA_DIR) + "/none.json"}},
      {"UnknownPolicyListsTheValidOnes",
       "gpu: A100\npolicy: fifo\njobs:\n" + Job(),
       kBad,
       2,
       {"policy: unknown policy 'fifo'; expected one of mps, time-slice, "
        "priority-streams, priority, orion, tgs"}},
      {"UnknownPolicyNameInAMapping",
       "gpu: A100\npolicy:\n  name: tally\njobs:\n" + Job(),
       kBad,
       3,
       {"policy.name: unknown policy 'tally'"}},
      {"PolicyMappingNeedsAName",
       "gpu: A100\npolicy: {preemption_bound_us: 50}\njobs:\n" + Job(),
       kBad,
       2,
       {"policy: missing key 'name'"}},
      {"ZeroPreemptionBound",
       "gpu: A100\npolicy:\n  name: priority\n  preemption_bound_us: 0\n"
       "jobs:\n" +
           Job(),
       kBad,
       4,
       {"policy.preemption_bound_us: expected a number > 0 and at most 1e+12 "
        "(microseconds; at least 1 ns), got 0"}},
      {"NegativeMinIdle",
       "gpu: A100\npolicy: {name: priority, min_idle_us: -1}\njobs:\n" + Job(),
       kBad,
       2,
       {"min_idle_us: expected a number >= 0 and at most 1e+12 (microseconds; "
        "0 or at least 1 ns), got -1"}},
      {"OptionOfAnotherPolicy",
       "gpu: A100\npolicy:\n  name: orion\n  orion_be_cap_us: 100\n"
       "  preemption_bound_us: 50\njobs:\n" +
           Job(),
       kBad,
       5,
       {"policy.preemption_bound_us: policy option 'preemption_bound_us' does "
        "not apply to policy 'orion' (its options: orion_be_cap_us)"}},
      {"OptionOfAPolicyWithoutOptions",
       "gpu: A100\npolicy: {name: mps, tgs_period_ms: 5}\njobs:\n" + Job(),
       kBad,
       2,
       {"policy option 'tgs_period_ms' does not apply to policy 'mps' (it "
        "takes no options)"}},
      {"NegativeHarvestBound",
       "gpu: A100\npolicy: {name: priority, harvest_block_us: -5}\njobs:\n" +
           Job(),
       kBad,
       2,
       {"harvest_block_us: expected a number >= 0 and at most 1e+12 "
        "(microseconds; 0 or at least 1 ns), got -5"}},
      {"HarvestBoundGivenToTgs",
       "gpu: A100\npolicy: {name: tgs, harvest_block_us: 5}\njobs:\n" + Job(),
       kBad,
       2,
       {"policy option 'harvest_block_us' does not apply to policy 'tgs' (its "
        "options: tgs_period_ms)"}},
      {"LongIdleBelowMinIdle",
       "gpu: A100\npolicy: {name: priority, min_idle_us: 50, long_idle_us: "
       "10}\njobs:\n" +
           Job(),
       kBad,
       2,
       {"long_idle_us (10us, default 5ms) must be >= min_idle_us (50us)"}},
      {"UnknownPolicyKey",
       "gpu: A100\npolicy: {name: priority, bound_us: 5}\njobs:\n" + Job(),
       kBad,
       2,
       {"bound_us", "preemption_bound_us"}},
      {"PolicyNeedsASharedGpu",
       "gpu: A100\nmode: exclusive\npolicy: priority\njobs:\n" + Job(),
       kBad,
       3,
       {"policy: policy 'priority' decides how the GPU is shared and runs on "
        "mode mps, not mode exclusive"}},
      {"PolicyOnStreams",
       "gpu: A100\nmode: streams\npolicy: tgs\njobs:\n" + Job(),
       kBad,
       3,
       {"policy: policy 'tgs' decides how the GPU is shared and runs on mode "
        "mps, not mode streams"}},
      {"SecondYamlDocument",
       kHead + Job() + "---\ngpu: V100\n",
       kBad,
       6,
       {"a second YAML document (after '---'); expected one scenario per "
        "file"}},
      {"ControlCharacterInJobName",
       kHead + "  - name: \"a\\nb\"\n    workload: " + kKernel + "\n",
       kBad,
       3,
       {"jobs[0].name: expected a non-empty job name without control "
        "characters"}},
      // Times past 10^6 s used to wrap around int64 nanoseconds.
      {"QuantumPastTheLargestTime",
       "gpu: A100\nmode: time-slicing\ntime_slice: {quantum_us: "
       "1e16}\njobs:\n" +
           Job(),
       kBad,
       3,
       {"time_slice.quantum_us: expected a number >= 100 and at most 1e+12 "
        "(microseconds; ",
        "got 1e16"}},
      {"StartPastTheLargestTime",
       kHead + Job("    start_ms: 1e15\n"),
       kBad,
       5,
       {"jobs[0].start_ms: expected a number >= 0 and at most 1e+09",
        "got 1e15"}},
      {"GapBelowOneNanosecond",
       kHead + Job("    kernel_gap_us: 1e-7\n"),
       kBad,
       5,
       {"jobs[0].kernel_gap_us: expected", "0 or at least 1 ns", "got 1e-7"}},
      {"SampleIntervalBelowOneNanosecond",
       "gpu: A100\nsample_interval_ms: 1e-9\njobs:\n" + Job(),
       kBad,
       2,
       {"sample_interval_ms: expected", "got 1e-9"}},
      {"TooManyUtilizationSamples",
       "gpu: A100\nduration_s: 1\nsample_interval_ms: 1e-5\njobs:\n" + Job(),
       kBad,
       3,
       {"sample_interval_ms: gives more than 1000000 utilization samples"}},
      {"RateAboveAMillionPerSecond",
       kHead + Job("    arrivals: {poisson: 1e12}\n"),
       kBad,
       5,
       {"jobs[0].arrivals.poisson: expected a number > 0 and at most 1e+06 "
        "(requests/s), got 1e12"}},
      {"HugeMemory",
       kHead + Job("    memory: {persistent_mb: 1e30}\n"),
       kBad,
       5,
       {"jobs[0].memory.persistent_mb: expected a number >= 0 and at most "}},
      // Each dimension within CUDA's limits, 2048 threads in all: the GPU's
      // max_threads_per_block refuses it.
      {"BlockTooLargeForTheGpuAtTheKernelsLine",
       kHead + "  - name: j\n    workload:\n      kernels:\n"
               "        - {grid: 1, block: [32, 64], duration_us: 50}\n",
       kBad,
       6,
       {"jobs[0].workload.kernels[0]: kernel 'kernel0': 2048 threads per block "
        "exceed the limit of 1024"}},
      // 2^30 * 2^30 * 16 = 2^64 threads wrapped to 0 (a SIGFPE in the
      // occupancy division); now each dimension has CUDA's limit at parse.
      {"BlockDimensionsWhoseProductWraps",
       kHead + "  - name: j\n    workload:\n      kernels:\n"
               "        - {grid: 1, block: [1073741824, 1073741824, 16], "
               "duration_us: 50}\n",
       kBad,
       6,
       {"jobs[0].workload.kernels[0].block[0]: expected an integer in 1..1024 "
        "(CUDA's limit for block x), got 1073741824"}},
      // 536903681 * 2147352580 * 64 wrapped to 256 threads and ran.
      {"BlockDimensionsThatWrappedTo256Threads",
       kHead + "  - name: j\n    workload:\n      kernels:\n"
               "        - {grid: 1, block: [32, 2147352580, 64], "
               "duration_us: 50}\n",
       kBad,
       6,
       {"block[1]: expected an integer in 1..1024 (CUDA's limit for block y), "
        "got 2147352580"}},
      {"BlockZAboveCudasLimit",
       kHead + "  - name: j\n    workload:\n      kernels:\n"
               "        - {grid: 1, block: [1, 1, 65], duration_us: 50}\n",
       kBad,
       6,
       {"block[2]: expected an integer in 1..64 (CUDA's limit for block z)"}},
      {"ScalarBlockAboveCudasLimit",
       kHead + "  - name: j\n    workload:\n      kernels:\n"
               "        - {grid: 1, block: 4096, duration_us: 50}\n",
       kBad,
       6,
       {"block: expected an integer in 1..1024 or a sequence [x, y, z] of "
        "them (CUDA's limits: x and y <= 1024, z <= 64",
        "got 4096"}},
      // INT64_MAX + a block's shared memory overflowed in the occupancy sum.
      {"ReservedSharedMemoryBeyondTheSm",
       "gpu: {preset: A100, reserved_shared_mem_per_block: "
       "9223372036854775807}\njobs:\n" +
           Job(),
       kBad,
       1,
       {"reserved_shared_mem_per_block must be in 0..shared_mem_per_sm - "
        "max_shared_mem_per_block (1024 bytes), got 9223372036854775807"}},
      // 11 kernels of 100000 launches each: the limit is checked before the
      // 11th kernel's copies are made.
      {"RepeatPastTheKernelLimitPerWorkload",
       kHead + "  - name: j\n    workload:\n      kernels:\n" +
           RepeatedKernels(11),
       kBad,
       16,
       {"jobs[0].workload.kernels[10].repeat: the workload would hold 1100000 "
        "kernel launches with this kernel's repeats, more than the limit of "
        "1000000 per workload"}},
      // Measured before: 2.29 GB and 9 s for these six lines.
      {"CopiesPastTheKernelLimitPerScenario",
       kHead + "  - name: j\n    workload: {kernels: [{grid: 1, block: 32, "
               "duration_us: 1, repeat: 100000}]}\n    copies: 100\n",
       kBad,
       5,
       {"jobs[0].copies: the scenario's jobs would hold 10000000 kernel "
        "launches with this job's 100 x 100000, more than the limit of 1000000 "
        "per scenario"}},
      {"JobsTogetherPastTheKernelLimitPerScenario",
       kHead + RepeatedJobs(11),
       kBad,
       23,
       {"jobs[10]: the scenario's jobs would hold 1100000 kernel launches"}},
      // 10^8 queued requests aborted with bad_alloc.
      {"ArrivalsPastTheRequestLimit",
       "gpu: A100\nduration_s: 100\njobs:\n" +
           Job("    arrivals: {fixed: 1e6}\n"),
       kBad,
       6,
       {"jobs[0].arrivals: the jobs would bring about 1e+08 requests over "
        "duration_s (this entry's 1e+08 at 1e+06 requests/s), more than the "
        "limit of 1e+07 per run"}},
      {"ArrivalsOfCopiesPastTheRequestLimit",
       kHead + Job("    arrivals: {poisson: 2e5}\n    copies: 6\n"),
       kBad,
       5,
       {"about 1.2e+07 requests", "for each of 6 copies"}},
      {"NegativeFlagLatency",
       "gpu: A100\npreemption: {flag_latency_us: -1}\njobs:\n" + Job(),
       kBad,
       2,
       {"preemption.flag_latency_us: expected a number >= 0", "got -1"}},
      {"PersistentOverheadOfAWholeBlock",
       "gpu: A100\npreemption:\n  persistent_overhead: 1\njobs:\n" + Job(),
       kBad,
       3,
       {"preemption.persistent_overhead: expected a number >= 0 and below 1"}},
      {"RetreatSpreadNotABool",
       "gpu: A100\npreemption: {retreat_spread: sometimes}\njobs:\n" + Job(),
       kBad,
       2,
       {"preemption.retreat_spread: expected"}},
      {"UnknownPreemptionKey",
       "gpu: A100\npreemption: {flag_us: 5}\njobs:\n" + Job(),
       kBad,
       2,
       {"preemption", "flag_us",
        "flag_latency_us, persistent_overhead, persistent_block_us, "
        "retreat_spread"}},
      // 10 ms simulated took 6.9 s at 0.001 us.
      {"QuantumBelowTheMinimum",
       "gpu: A100\nmode: time-slicing\ntime_slice: {quantum_us: 0.001}\n"
       "jobs:\n" +
           Job(),
       kBad,
       3,
       {"time_slice.quantum_us: expected a number >= 100 and at most 1e+12 "
        "(microseconds; a quantum below 100 us",
        "got 0.001"}},
      {"TgsPeriodBelowTheMinimum",
       "gpu: A100\npolicy: {name: tgs, tgs_period_ms: 1e-6}\njobs:\n" + Job(),
       kBad,
       2,
       {"policy.tgs_period_ms: expected a number >= 1 and at most 1e+09 "
        "(milliseconds; a controller period below 1 ms",
        "got 1e-6"}},
      {"MigProfileNameTwice",
       "gpu:\n  preset: A100\n  mig_profiles:\n"
       "    - {name: 1g.5gb, compute_slices: 1, sm_count: 14, memory_eighths: "
       "1}\n"
       "    - {name: 1g.5gb, compute_slices: 1, sm_count: 14, memory_eighths: "
       "1}\n"
       "jobs:\n" +
           Job(),
       kBad,
       5,
       {"gpu.mig_profiles[1]: MIG profile name '1g.5gb' is already used by "
        "gpu.mig_profiles[0] (line 4)"}},
      {"MigProfileNameEmpty",
       "gpu:\n  preset: A100\n  mig_profiles:\n"
       "    - {name: '', compute_slices: 1, sm_count: 14, memory_eighths: 1}\n"
       "jobs:\n" +
           Job(),
       kBad,
       4,
       {"gpu.mig_profiles[0].name: expected a non-empty MIG profile name such "
        "as 3g.20gb without control characters, got ''"}},
      {"MigProfileNameWithAControlCharacter",
       "gpu:\n  preset: A100\n  mig_profiles:\n"
       "    - {name: \"1g\\t5gb\", compute_slices: 1, sm_count: 14, "
       "memory_eighths: 1}\njobs:\n" +
           Job(),
       kBad,
       4,
       {"without control characters, got '1g\\t5gb'"}},
      // Seven 1-slice instances of 108 SMs ran on one 108-SM GPU.
      {"MigProfileWithMoreSmsThanItsSlicesAllow",
       "gpu:\n  preset: A100\n  mig_profiles:\n"
       "    - {name: 1g.all, compute_slices: 1, sm_count: 108, "
       "memory_eighths: 1}\nmode: mig\njobs:\n" +
           Job("    mig: 1g.all\n    copies: 7\n"),
       kBad,
       1,
       {"MIG profile '1g.all': 7 instances of it fit in the GPU's 7 compute "
        "slices, and they would need 756 SMs of its 108 (expected at most 15 "
        "SMs for a 1-slice profile)"}},
      {"MigInstancesNeedMoreSmsThanTheGpu",
       "gpu:\n  preset: A100\n  mig_profiles:\n"
       "    - {name: 3g.half, compute_slices: 3, sm_count: 54, memory_eighths: "
       "2}\n"
       "    - {name: 1g.max, compute_slices: 1, sm_count: 15, memory_eighths: "
       "1}\n"
       "mode: mig\njobs:\n" +
           Job("    mig: 3g.half\n") + "  - name: k\n    workload: " + kKernel +
           "\n    mig: 1g.max\n    copies: 4\n",
       kBad,
       13,
       {"jobs[1].mig: the MIG instances do not fit on one A100-SXM4-40GB: "
        "with job 'k-4' they need 7 of 7 compute slices, 6 of 8 memory "
        "slices and 114 of 108 SMs"}},
      {"GpuNameWithAControlCharacter",
       "gpu: {preset: A100, name: \"a\\nb\"}\njobs:\n" + Job(),
       kBad,
       1,
       {"gpu.name: expected a non-empty GPU name without control characters, "
        "got 'a\\nb'"}},
      {"JobNameWithANulIsEscapedInTheMessage",
       kHead + "  - name: \"a\\0b\"\n    workload: " + kKernel + "\n",
       kBad,
       3,
       {"got 'a\\x00b'"}},
      {"UnknownKeyWithANewlineIsEscaped",
       kHead + Job("    \"arr\\nivals\": 1\n"),
       kBad,
       5,
       {"unknown key 'arr\\nivals'"}},
      // Memory, checked where each job runs.
      {"MemoryBeyondTheGpuAlone",
       "gpu: A100\nmode: exclusive\njobs:\n" +
           Job("    memory: {persistent_mb: 1000000}\n"),
       kBad,
       6,
       {"jobs[0].memory: job 'j' needs 1000000 MiB (persistent + ephemeral "
        "peak), more than A100-SXM4-40GB's 40960 MiB"}},
      {"MemoryOfJobsSharingTheGpu",
       kHead + Job("    memory: {persistent_mb: 20000, ephemeral_mb: 10000}\n"
                   "    copies: 7\n"),
       kBad,
       5,
       {"jobs[0].memory: the jobs' memory does not fit on one A100-SXM4-40GB: "
        "with job 'j-2' the jobs sharing it in mode mps need 60000 MiB "
        "(persistent + ephemeral peak, summed) of 40960 MiB"}},
      {"MemoryOfJobsTimeSlicingTheGpu",
       "gpu: A100\nmode: time-slicing\njobs:\n" +
           Job("    memory: {persistent_mb: 30000}\n") +
           "  - name: k\n    workload: " + kKernel +
           "\n"
           "    memory: {ephemeral_mb: 20000.5}\n",
       kBad,
       9,
       {"jobs[1].memory: the jobs' memory does not fit",
        "in mode time-slicing "
        "need 50000.5 MiB"}},
      {"MemoryBeyondTheMigInstance",
       "gpu: A100\nmode: mig\njobs:\n" +
           Job("    mig: 1g.5gb\n    memory: {persistent_mb: 30000}\n"),
       kBad,
       7,
       {"jobs[0].memory: job 'j' needs 30000 MiB (persistent + ephemeral "
        "peak), more than its 1g.5gb instance's 5120 MiB"}},
      // yaml-cpp's integer conversion read 0x10 as 16 and 010 as 8.
      {"HexadecimalSeed",
       "gpu: A100\nseed: 0x10\njobs:\n" + Job(),
       kBad,
       2,
       {"seed: expected an integer in 0..9223372036854775807, got '0x10' "
        "(integers are read in decimal only, with leading zeros as decimal: "
        "010 is 10)"}},
      {"OctalFormRepeat",
       kHead + "  - name: j\n    workload:\n      kernels:\n"
               "        - {grid: 1, block: 32, duration_us: 1, repeat: 0o17}\n",
       kBad,
       6,
       {"repeat: expected an integer in 1..100000, got '0o17' (integers are "
        "read in decimal only"}},
      // yaml-cpp says only "bad file".
      {"NestedTooDeeply",
       "gpu: A100\njobs: " + std::string(600, '[') + std::string(600, ']') +
           "\n",
       kBad,
       2,
       {"YAML nested too deeply", "expected at most about 500 levels"}},
      {"OrionKindGuessedFromTheNameNeedsArrivals",
       "gpu: A100\njobs:\n  - name: j\n    workload: {orion: "
       "orion/resnet50_4_fwd}\n",
       kBad,
       3,
       {"jobs[0]: missing key 'arrivals'",
        "this job is inference (its kind "
        "was guessed from the Orion table's file name 'resnet50_4_fwd', which "
        "lacks '_fb' as Orion's training tables' names have; give kind: "
        "training or kind: inference to state it)"}},
      {"OrionKindGuessedAsTrainingRejectsArrivals",
       "gpu: A100\njobs:\n  - name: j\n    workload: {orion: "
       "orion/resnet50_32_fb1}\n    arrivals: {poisson: 5}\n",
       kBad,
       5,
       {"jobs[0].arrivals: only valid for inference jobs; this job is "
        "training (its kind was guessed from the Orion table's file name "
        "'resnet50_32_fb1', which has '_fb'"}},
      {"WavesShorterThanOneNanosecond",
       kHead + "  - name: j\n    workload:\n      kernels:\n"
               "        - {grid: 2147483647, block: 32, duration_us: 10}\n",
       kBad,
       6,
       {"kernel 'kernel0': ",
        "waves on A100-SXM4-40GB in 10us is under 1 ns "
        "per wave"}},
      {"GridYAboveCudasLimit",
       kHead + "  - name: j\n    workload:\n      kernels:\n"
               "        - {grid: [1, 65536], block: 32, duration_us: 10}\n",
       kBad,
       6,
       {"jobs[0].workload.kernels[0].grid[1]: expected an integer in "
        "1..65535 (CUDA's limit for grid y), got 65536"}},
  };
}

class ScenarioErrorTest : public ::testing::TestWithParam<Case> {};

TEST_P(ScenarioErrorTest, NamesFileLineAndExpectation) {
  const Case& c = GetParam();
  auto spec = LoadScenarioString(c.text, kFile, COLO_DATA_DIR);
  ASSERT_FALSE(spec.ok()) << "loaded:\n" << c.text;
  const std::string& message = spec.status().message();
  EXPECT_EQ(spec.status().code(), c.code) << message;
  EXPECT_THAT(message, ::testing::StartsWith(std::string(kFile) + ":" +
                                             std::to_string(c.line) + ": "))
      << "scenario:\n"
      << c.text;
  for (const std::string& phrase : c.phrases)
    EXPECT_THAT(message, HasSubstr(phrase));
  // One line, whatever the input held.
  EXPECT_FALSE(HasControlCharacter(message)) << message;
}

INSTANTIATE_TEST_SUITE_P(Loader, ScenarioErrorTest,
                         ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.name);
                         });

// The importer's own "file:line:" comes through behind the scenario location.
TEST(ScenarioImporterErrorTest, MalformedCsvRowKeepsBothLocations) {
  test::ScratchDir dir("csv");
  dir.Write("t.csv",
            "Name,Profile,Memory_footprint,SM_usage,Duration\n"
            "Conv,1,0,98,100480\n"
            "Gemm,1,0,lots,2000\n");
  const std::string path =
      dir.Write("s.yaml",
                "gpu: A100\njobs:\n  - name: j\n    workload:\n"
                "      orion: t.csv\n");
  auto spec = LoadScenarioFile(path);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(spec.status().message(),
              ::testing::StartsWith(path + ":5: jobs[0].workload.orion: " +
                                    (dir.path() / "t.csv").string() + ":3: "));
  EXPECT_THAT(spec.status().message(), HasSubstr("SM_usage"));
  EXPECT_THAT(spec.status().message(), HasSubstr("'lots'"));
}

TEST(ScenarioImporterErrorTest, MalformedTraceKeepsBothLocations) {
  test::ScratchDir dir("trace");
  dir.Write("arrivals.txt", "0.1\n0.2\nsoon\n");
  const std::string path =
      dir.Write("s.yaml", kHead + Job("    arrivals: {trace: arrivals.txt}\n"));
  auto spec = LoadScenarioFile(path);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(
      spec.status().message(),
      ::testing::StartsWith(path + ":5: jobs[0].arrivals.trace: " +
                            (dir.path() / "arrivals.txt").string() + ":3"));
}

}  // namespace
}  // namespace colo::scenario
