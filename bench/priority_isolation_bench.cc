// Priority isolation on a shared A100: one high-priority inference job
// (Orion kernel tables: BERT and ResNet-50 inference) at Poisson arrivals of
// 50% of the load it could serve alone, next to each of four best-effort
// training jobs, under every kernel-level policy. Prints, per policy, the
// mean and worst high-priority p99 overhead over solo and the mean system
// throughput (sum of normalized throughputs); then a sweep of the priority
// policy's preemption bound. All figures are measured in this run.
#include <cstdio>
#include <string>
#include <vector>

#include "profile/orion_table.h"
#include "sim/scenario_runner.h"

namespace {

using namespace colo;

struct Pair {
  std::string hp, be;
};

Result<sim::ScenarioSpec> PairScenario(const Pair& p, double load, uint64_t seed) {
  const std::string dir = std::string(COLO_DATA_DIR) + "/orion/";
  COLO_ASSIGN_OR_RETURN(Workload hp, profile::LoadOrionKernelTable(dir + p.hp));
  COLO_ASSIGN_OR_RETURN(Workload be, profile::LoadOrionKernelTable(dir + p.be));
  sim::ScenarioSpec s;
  s.name = p.hp + "+" + p.be;
  s.gpu = *GpuPreset("A100");
  s.mode = sim::SharingMode::kMps;
  s.seed = seed;
  s.duration = Seconds(20);
  // The rate the service could sustain alone on this GPU: 1 / request time.
  {
    sim::ScenarioSpec solo = s;
    Workload w = hp;
    w.kind = WorkloadKind::kTraining;
    w.iterations = 5;
    sim::JobSpec j;
    j.name = "probe";
    j.workload = w;
    solo.jobs = {j};
    solo.mode = sim::SharingMode::kExclusive;
    COLO_ASSIGN_OR_RETURN(sim::RunReport r, sim::RunScenario(solo, {.solo_baselines = false}));
    hp.arrivals.rate_per_s = load * r.jobs[0].shared_throughput;
  }
  hp.kind = WorkloadKind::kInference;
  hp.priority = PriorityClass::kHigh;
  hp.arrivals.kind = ArrivalKind::kPoisson;
  be.kind = WorkloadKind::kTraining;
  be.priority = PriorityClass::kBestEffort;
  sim::JobSpec a, b;
  a.name = "hp";
  a.workload = hp;
  b.name = "be";
  b.workload = be;
  s.jobs = {a, b};
  return s;
}

struct Summary {
  double mean_p99 = 0, worst_p99 = 0, mean_stp = 0, mean_be = 0;
};

Summary RunAll(const std::vector<sim::ScenarioSpec>& specs, sched::PolicyKind policy,
               const sched::PolicyOptions& options, bool verbose) {
  Summary s;
  for (auto spec : specs) {
    spec.policy = policy;
    spec.policy_options = options;
    auto r = sim::RunScenario(spec);
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
      continue;
    }
    const double p99 = r->jobs[0].p99_overhead.value_or(0);
    s.mean_p99 += p99 / specs.size();
    s.worst_p99 = std::max(s.worst_p99, p99);
    s.mean_stp += r->system_throughput / specs.size();
    s.mean_be += r->jobs[1].normalized / specs.size();
    if (verbose) {
      std::printf("  %-17s %-42s p99 %+8.1f%%  hp %.3f  be %.3f  system %.3f\n", sched::PolicyName(policy),
                  spec.name.c_str(), 100 * p99, r->jobs[0].normalized, r->jobs[1].normalized,
                  r->system_throughput);
    }
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const bool verbose = argc > 1 && std::string(argv[1]) == "-v";
  std::vector<Pair> pairs;
  for (const char* hp : {"bert_2_fwd", "resnet50_4_fwd"}) {
    for (const char* be : {"resnet50_32_fb1", "mobilenetv2_32_fb1", "bert_8_fb1", "transformer_xl_8_fb1"}) {
      pairs.push_back({hp, be});
    }
  }
  std::vector<sim::ScenarioSpec> specs;
  for (size_t i = 0; i < pairs.size(); ++i) {
    auto s = PairScenario(pairs[i], 0.5, 1 + i);
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.status().ToString().c_str());
      return 1;
    }
    specs.push_back(*s);
  }
  std::printf("%zu pairs on A100-SXM4-40GB, high priority at 50%% of its solo load, 20 s each\n\n", specs.size());
  std::printf("%-17s %14s %14s %12s %10s\n", "policy", "mean p99 ovh", "worst p99 ovh", "system thr", "be norm");
  for (sched::PolicyKind k : sched::AllPolicies()) {
    const Summary s = RunAll(specs, k, {}, verbose);
    std::printf("%-17s %13.1f%% %13.1f%% %12.3f %10.3f\n", sched::PolicyName(k), 100 * s.mean_p99,
                100 * s.worst_p99, s.mean_stp, s.mean_be);
  }
  std::printf("\npriority policy, preemption-latency bound sweep\n");
  std::printf("%-10s %14s %14s %12s %10s\n", "bound", "mean p99 ovh", "worst p99 ovh", "system thr", "be norm");
  for (int us : {25, 50, 100, 200, 400}) {
    sched::PolicyOptions o;
    o.preemption_bound = Microseconds(us);
    const Summary s = RunAll(specs, sched::PolicyKind::kPriority, o, false);
    std::printf("%7d us %13.1f%% %13.1f%% %12.3f %10.3f\n", us, 100 * s.mean_p99, 100 * s.worst_p99, s.mean_stp,
                s.mean_be);
  }
  return 0;
}
