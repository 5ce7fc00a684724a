// Priority isolation on a shared A100: one high-priority inference job
// (Orion kernel tables: BERT and ResNet-50 inference) at Poisson arrivals of
// 50% of the load it could serve alone, next to each of four best-effort
// training jobs, under every kernel-level policy. Prints, per policy, the
// mean and worst high-priority p99 overhead over solo and the mean system
// throughput (sum of normalized throughputs); then the same figures for
// ideal preemption (sim::IdealPreemption: what no policy can pass without
// slowing the service), sweeps of the priority policy's harvest and
// preemption bounds, and the room each service leaves. All figures are
// measured in this run. --ideal runs the ideal bounds alone. Each pair x
// policy (and x swept value) is recorded as a run in the runs database
// (kind "bench", docs/runs.md), each summary row one batch; --runs-db PATH
// and --no-record as for `colo sim`.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "experiment/scenario_runner.h"
#include "profile/orion_table.h"
#include "sched/priority_policy.h"
#include "sched/sm_room.h"
#include "sim/event_loop.h"
#include "sim/sim_gpu.h"
#include "tools/run_recording.h"

namespace {

using namespace colo;

struct Pair {
  std::string hp, be;
};

Result<experiment::ScenarioSpec> PairScenario(const Pair& p, double load,
                                              uint64_t seed) {
  const std::string dir = std::string(COLO_DATA_DIR) + "/orion/";
  COLO_ASSIGN_OR_RETURN(Workload hp, profile::LoadOrionKernelTable(dir + p.hp));
  COLO_ASSIGN_OR_RETURN(Workload be, profile::LoadOrionKernelTable(dir + p.be));
  experiment::ScenarioSpec s;
  s.name = p.hp + "+" + p.be;
  s.gpu = *GpuPreset("A100");
  s.mode = experiment::SharingMode::kMps;
  s.seed = seed;
  s.duration = Seconds(20);
  // The rate the service could sustain alone on this GPU: 1 / request time.
  {
    experiment::ScenarioSpec solo = s;
    Workload w = hp;
    w.kind = WorkloadKind::kTraining;
    w.iterations = 5;
    experiment::JobSpec j;
    j.name = "probe";
    j.workload = w;
    solo.jobs = {j};
    solo.mode = experiment::SharingMode::kExclusive;
    COLO_ASSIGN_OR_RETURN(
        experiment::RunReport r,
        experiment::RunScenario(solo, {.solo_baselines = false}));
    hp.arrivals.rate_per_s = load * r.jobs[0].shared_throughput;
  }
  hp.kind = WorkloadKind::kInference;
  hp.priority = PriorityClass::kHigh;
  hp.arrivals.kind = ArrivalKind::kPoisson;
  be.kind = WorkloadKind::kTraining;
  be.priority = PriorityClass::kBestEffort;
  experiment::JobSpec a, b;
  a.name = "hp";
  a.workload = hp;
  b.name = "be";
  b.workload = be;
  s.jobs = {a, b};
  return s;
}

// While `hp`'s kernels run on `gpu` (each alone, its solo time there): the
// share of the block slots a kernel of shape `be` could hold that they leave
// free while all their blocks are resident (each kernel at its fullest:
// ceil(blocks / SMs) per SM), weighted by duration, and the kernels that
// leave none.
struct Room {
  double free_share = 0;       // duration-weighted.
  int full_kernels = 0;        // kernels that leave no slot free
  double full_time_share = 0;  // and their share of the service's time.
  int kernels = 0;
};

Result<Room> RoomBesideService(const Workload& hp, const KernelDesc& be,
                               const GpuSpec& gpu) {
  sim::EventLoop loop;
  sim::SimGpu sim(gpu, loop.clock(), sim::SimGpuOptions{});
  COLO_ASSIGN_OR_RETURN(GpuSpec profiled_on, GpuPreset(hp.profiled_on));
  COLO_RETURN_IF_ERROR(sim.RegisterWorkload(hp, profiled_on));
  COLO_ASSIGN_OR_RETURN(Occupancy be_occ, ComputeOccupancy(gpu, be));
  double free = 0, slots = 0, time = 0, full = 0;
  Room r;
  for (const KernelDesc& k : hp.kernels) {
    COLO_ASSIGN_OR_RETURN(KernelTiming t, sim.ProfileKernel(k));
    COLO_ASSIGN_OR_RETURN(Occupancy occ, ComputeOccupancy(gpu, k));
    sched::SmUse use;
    use.Add(occ, sched::BlocksPerSm(gpu, occ, k.Blocks()));
    const double d = static_cast<double>(t.SoloDuration().count());
    const int64_t fit = sched::BlocksThatFit(gpu, use, be_occ);
    free += d * fit;
    slots += d * be_occ.blocks_per_sm;
    time += d;
    if (fit == 0) {
      ++r.full_kernels;
      full += d;
    }
    ++r.kernels;
  }
  r.free_share = free / slots;
  r.full_time_share = full / time;
  return r;
}

// How `be`'s kernels (each alone on `gpu`) can be cut for a preemption
// bound `bound`, as shares of its kernel time:
//  * harvestable: the kernels whose persistent logical block takes at most
//    `bound`, which the priority policy may harvest with (the job runs its
//    kernels in order, so the first with longer blocks stops its harvesting
//    until the service is idle);
//  * beyond: the kernels no form (sched::ChooseForm) cuts within `bound`
//    (their blocks alone take longer), which the policy launches in the form
//    of the lowest estimated latency; `longest` is the longest such estimate.
struct Cuts {
  double harvestable = 0;
  double beyond = 0;
  Duration longest{0};
};

Result<Cuts> CutsFor(const Workload& be, const GpuSpec& gpu, Duration bound) {
  sim::EventLoop loop;
  sim::SimGpu sim(gpu, loop.clock(), sim::SimGpuOptions{});
  COLO_ASSIGN_OR_RETURN(GpuSpec profiled_on, GpuPreset(be.profiled_on));
  COLO_RETURN_IF_ERROR(sim.RegisterWorkload(be, profiled_on));
  const Duration gap = sched::PolicyOptions{}.slice_launch_gap;
  double harvestable = 0, beyond = 0, total = 0;
  Cuts c;
  for (const KernelDesc& k : be.kernels) {
    COLO_ASSIGN_OR_RETURN(KernelTiming t, sim.ProfileKernel(k));
    const double d = static_cast<double>(t.SoloDuration().count());
    total += d;
    if (t.persistent_block_time <= bound) harvestable += d;
    const sched::FormChoice form =
        sched::ChooseForm(t, k.transformable, bound, gap);
    if (form.latency > bound) {
      beyond += d;
      c.longest = std::max(c.longest, form.latency);
    }
  }
  c.harvestable = harvestable / total;
  c.beyond = beyond / total;
  return c;
}

// Prints how much room each service leaves beside it and how much of each
// training job's work could use it (computed from the kernel tables; no run).
bool PrintRoom(const GpuSpec& gpu) {
  std::printf(
      "\nroom beside the service: share of block slots its kernels leave free "
      "while it is busy\n");
  const std::string dir = std::string(COLO_DATA_DIR) + "/orion/";
  auto be = profile::LoadOrionKernelTable(dir + "resnet50_32_fb1");
  if (!be.ok()) return false;
  for (const char* hp : {"bert_2_fwd", "resnet50_4_fwd"}) {
    auto w = profile::LoadOrionKernelTable(dir + hp);
    if (!w.ok()) return false;
    auto room = RoomBesideService(*w, be->kernels.front(), gpu);
    if (!room.ok()) {
      std::fprintf(stderr, "%s\n", room.status().ToString().c_str());
      return false;
    }
    // Not a bound on best effort: a kernel's last wave leaves more, and a
    // small best-effort kernel runs at full speed in a few slots (the ideal
    // bounds above measure what they allow).
    std::printf(
        "  %-16s %5.1f%% of the slots for ResNet-50 training's first kernel\n",
        hp, 100 * room->free_share);
    std::printf(
        "  %-16s %d of its %d kernels (%.1f%% of its time) leave no slot "
        "free\n",
        "", room->full_kernels, room->kernels, 100 * room->full_time_share);
  }
  // Harvesting is off by default (PolicyOptions::harvest_block_bound): the
  // share is for a harvest bound equal to the default preemption bound.
  const Duration bound = sched::PolicyOptions{}.preemption_bound;
  std::printf(
      "harvestable: share of each training job's kernel time in kernels whose "
      "logical blocks\n"
      "take at most %.0f us (a harvest bound at the preemption bound; "
      "harvesting is off by\n"
      "default); its first longer kernel stalls it until idle\n"
      "beyond the bound: share in kernels no form cuts within the %.0f us "
      "bound (one block\n"
      "takes longer), launched in the form of the lowest estimated latency, "
      "the longest given\n",
      ToMicros(bound), ToMicros(bound));
  std::printf("  %-22s %12s %17s %10s\n", "", "harvestable", "beyond the bound",
              "longest");
  for (const char* name : {"resnet50_32_fb1", "mobilenetv2_32_fb1",
                           "bert_8_fb1", "transformer_xl_8_fb1"}) {
    auto w = profile::LoadOrionKernelTable(dir + name);
    if (!w.ok()) return false;
    auto cuts = CutsFor(*w, gpu, bound);
    if (!cuts.ok()) {
      std::fprintf(stderr, "%s\n", cuts.status().ToString().c_str());
      return false;
    }
    std::printf("  %-22s %11.1f%% %16.1f%% %7.0f us\n", name,
                100 * cuts->harvestable, 100 * cuts->beyond,
                ToMicros(cuts->longest));
  }
  return true;
}

const char* IdealName(sim::IdealPreemption ideal) {
  return ideal == sim::IdealPreemption::kKeepProgress ? "ideal, kept"
                                                      : "ideal, restart";
}

// The bounds no policy can pass without slowing the service: hardware
// stream priorities with ideal preemption (sim::IdealPreemption), the
// service's kernels running as if alone.
void PrintIdealBounds(const std::vector<experiment::ScenarioSpec>& specs,
                      bool verbose);

struct Summary {
  double mean_p99 = 0, worst_p99 = 0, mean_stp = 0, mean_be = 0;
  // With several seeds (--seeds): per seed, in order, the mean and worst p99
  // overhead and the mean system throughput over its pairs.
  std::vector<double> seed_mean_p99, seed_worst_p99, seed_stp;
  // The service's kernels that took longer than alone
  // (experiment::KernelDelays): the share delayed and the p50 and p99 of their
  // delay (means over the pairs), and the longest delay of any pair, us.
  double mean_delayed = 0, mean_delay_p50_us = 0, mean_delay_p99_us = 0,
         max_delay_us = 0;
};

// The header and one row of a Summary, first column `label`.
void PrintSummaryHeader(const char* first) {
  std::printf("%-17s %13s %14s %11s %8s %10s %7s %7s %7s\n", first,
              "mean p99 ovh", "worst p99 ovh", "system thr", "be norm",
              "hp delayed", "p50 us", "p99 us", "max us");
}
// "a / b / c" of `xs` (x `scale`), each with `digits` decimals.
std::string Slashed(const std::vector<double>& xs, double scale, int digits) {
  std::string out;
  for (double x : xs) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", digits, scale * x);
    out += (out.empty() ? "" : " / ") + std::string(buf);
  }
  return out;
}

void PrintSummaryRow(const std::string& label, const Summary& s) {
  std::printf(
      "%-17s %12.1f%% %13.1f%% %11.3f %8.3f %9.2f%% %7.1f %7.1f %7.1f\n",
      label.c_str(), 100 * s.mean_p99, 100 * s.worst_p99, s.mean_stp, s.mean_be,
      100 * s.mean_delayed, s.mean_delay_p50_us, s.mean_delay_p99_us,
      s.max_delay_us);
  if (s.seed_stp.size() > 1) {
    std::printf("  by seed: mean p99 ovh %s%%, worst %s%%, system thr %s\n",
                Slashed(s.seed_mean_p99, 100, 1).c_str(),
                Slashed(s.seed_worst_p99, 100, 1).c_str(),
                Slashed(s.seed_stp, 1, 3).c_str());
  }
}

// The pairs of each seed in a row: `specs` holds g_seeds groups of as many
// pairs, seed after seed.
size_t g_seeds = 1;

// Recording: the runs database (none with --no-record or for --room) and
// the sweep the runs RunAll makes belong to ("harvest", "long-idle",
// "bound"; empty: none), which the record's options name with the swept
// option alone, so that `colo report` draws each sweep as a curve.
std::optional<tools::RunRecorder> g_recorder;
std::string g_sweep;

runs::RunRecord PairRecord(const experiment::ScenarioSpec& spec,
                           const sched::PolicyOptions& o,
                           const experiment::RunReport& r) {
  nlohmann::json options = nlohmann::json::object();
  if (!g_sweep.empty()) options["sweep"] = g_sweep;
  if (g_sweep == "harvest")
    options["harvest_block_bound_ns"] = o.harvest_block_bound.count();
  if (g_sweep == "long-idle") options["long_idle_ns"] = o.long_idle.count();
  const std::string text = "pair: " + spec.name +
                           "\nload: 0.5 of the service's solo rate\n"
                           "gpu: " +
                           spec.gpu.name + "\nmode: mps\n";
  runs::RunRecord rec = tools::BenchRunRecord(
      "priority_isolation_bench/" + spec.name, text, options, r);
  // The label names the swept option too, so that the runs of one sweep
  // read apart in `colo runs list` and a report's legends.
  if (g_sweep == "harvest")
    rec.policy +=
        " harvest=" + std::to_string(o.harvest_block_bound.count() / 1000) +
        "us";
  if (g_sweep == "long-idle")
    rec.policy +=
        " long-idle=" + std::to_string(o.long_idle.count() / 1000000) + "ms";
  return rec;
}

Summary RunAll(const std::vector<experiment::ScenarioSpec>& specs,
               sched::PolicyKind policy, const sched::PolicyOptions& options,
               bool verbose,
               sim::IdealPreemption ideal = sim::IdealPreemption::kOff) {
  Summary s;
  const size_t per_seed = specs.size() / g_seeds;
  s.seed_mean_p99.assign(g_seeds, 0);
  s.seed_worst_p99.assign(g_seeds, 0);
  s.seed_stp.assign(g_seeds, 0);
  std::vector<runs::RunRecord> records;
  for (size_t i = 0; i < specs.size(); ++i) {
    experiment::ScenarioSpec spec = specs[i];
    const size_t seed = i / per_seed;
    spec.policy = policy;
    spec.policy_options = options;
    auto r = experiment::RunScenario(spec, {.ideal_preemption = ideal});
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
      continue;
    }
    if (g_recorder) records.push_back(PairRecord(spec, options, *r));
    const double p99 = r->jobs[0].p99_overhead.value_or(0);
    s.mean_p99 += p99 / specs.size();
    s.worst_p99 = std::max(s.worst_p99, p99);
    s.mean_stp += r->system_throughput / specs.size();
    s.seed_mean_p99[seed] += p99 / per_seed;
    s.seed_worst_p99[seed] = std::max(s.seed_worst_p99[seed], p99);
    s.seed_stp[seed] += r->system_throughput / per_seed;
    s.mean_be += r->jobs[1].normalized.value_or(0) / specs.size();
    if (const auto& d = r->jobs[0].kernel_delays) {
      s.mean_delayed += d->DelayedFraction() / specs.size();
      s.mean_delay_p50_us += ToMicros(d->delay.p50) / specs.size();
      s.mean_delay_p99_us += ToMicros(d->delay.p99) / specs.size();
      s.max_delay_us = std::max(s.max_delay_us, ToMicros(d->delay.max));
    }
    if (verbose) {
      const experiment::KernelDelays d =
          r->jobs[0].kernel_delays.value_or(experiment::KernelDelays{});
      std::printf(
          "  %-17s %-38s seed %-3llu p99 %+8.1f%%  hp %.3f  be %.3f  system "
          "%.3f  delayed %.2f%% p50 %.0f "
          "p99 %.0f max %.0f us\n",
          ideal == sim::IdealPreemption::kOff ? sched::PolicyName(policy)
                                              : IdealName(ideal),
          spec.name.c_str(), static_cast<unsigned long long>(spec.seed),
          100 * p99, r->jobs[0].normalized.value_or(0),
          r->jobs[1].normalized.value_or(0), r->system_throughput,
          100 * d.DelayedFraction(), ToMicros(d.delay.p50),
          ToMicros(d.delay.p99), ToMicros(d.delay.max));
    }
  }
  if (g_recorder) {
    const Status recorded = g_recorder->Record(std::move(records), "");
    if (!recorded.ok()) {
      std::fprintf(stderr, "%s\n", recorded.ToString().c_str());
      std::exit(1);
    }
  }
  return s;
}

void PrintIdealBounds(const std::vector<experiment::ScenarioSpec>& specs,
                      bool verbose) {
  std::printf(
      "\nbounds, not policies: free and instant preemption of best effort, the "
      "service as if alone\n"
      "(ideal, kept: preempted blocks keep their progress; ideal, restart: "
      "they start again)\n");
  PrintSummaryHeader("bound");
  for (sim::IdealPreemption ideal :
       {sim::IdealPreemption::kKeepProgress, sim::IdealPreemption::kRestart}) {
    PrintSummaryRow(
        IdealName(ideal),
        RunAll(specs, sched::PolicyKind::kPriorityStreams, {}, verbose, ideal));
  }
}

}  // namespace

constexpr const char* kUsage =
    "usage: priority_isolation_bench [-v] [--seeds N] [--only POLICY | --ideal "
    "| --room] [--runs-db PATH | --no-record]\n";

int main(int argc, char** argv) {
  // -v: one line per pair; --only NAME: just that policy (and the sweep if
  // it is `priority`); --seeds N: every pair with N sample paths (Poisson
  // arrival draws), the figures over all of them and by seed.
  bool verbose = false;
  bool room_only = false;   // --room: only the room estimate (no runs)
  bool ideal_only = false;  // --ideal: only the ideal-preemption bounds
  std::optional<sched::PolicyKind> only;
  tools::RecordingFlags recording;
  tools::SetCommandLine(argc, argv, "priority_isolation_bench");
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-v") {
      verbose = true;
    } else if (a == "--room") {
      room_only = true;
    } else if (a == "--ideal") {
      ideal_only = true;
    } else if (a == "-h" || a == "--help") {
      std::printf("%s", kUsage);
      return 0;
    } else if (a == "--seeds" && i + 1 < argc) {
      const std::string n = argv[++i];
      if (n.empty() || n.size() > 2 ||
          n.find_first_not_of("0123456789") != std::string::npos ||
          std::stoi(n) < 1 || std::stoi(n) > 20) {
        std::fprintf(
            stderr, "--seeds: expected a whole number from 1 to 20, got '%s'\n",
            n.c_str());
        return 2;
      }
      g_seeds = std::stoul(n);
    } else if (a == "--only" && i + 1 < argc) {
      auto k = sched::ParsePolicyKind(argv[++i]);
      if (!k.ok()) {
        std::fprintf(stderr, "%s\n", k.status().ToString().c_str());
        return 2;
      }
      only = *k;
    } else if (a == "--runs-db" && i + 1 < argc) {
      recording.runs_db = argv[++i];
    } else if (a == "--no-record") {
      recording.no_record = true;
    } else {
      std::fprintf(stderr, "%s", kUsage);
      return 2;
    }
  }
  if (ideal_only && (only || room_only)) {
    std::fprintf(stderr,
                 "--ideal runs the ideal-preemption bounds alone: it takes no "
                 "--only or --room\n");
    return 2;
  }
  if (room_only && (only || verbose || g_seeds > 1)) {
    std::fprintf(stderr,
                 "--room prints the room estimate alone, without runs: it "
                 "takes no -v, --only or --seeds\n");
    return 2;
  }
  if (room_only) return PrintRoom(*GpuPreset("A100")) ? 0 : 1;
  if (recording.no_record && !recording.runs_db.empty()) {
    std::fprintf(stderr, "--no-record and --runs-db exclude each other\n");
    return 2;
  }
  {
    auto recorder = tools::RunRecorder::Start(recording);
    if (!recorder.ok()) {
      std::fprintf(stderr, "%s\n", recorder.status().ToString().c_str());
      return 2;
    }
    g_recorder = std::move(*recorder);
  }
  std::vector<Pair> pairs;
  for (const char* hp : {"bert_2_fwd", "resnet50_4_fwd"}) {
    for (const char* be : {"resnet50_32_fb1", "mobilenetv2_32_fb1",
                           "bert_8_fb1", "transformer_xl_8_fb1"}) {
      pairs.push_back({hp, be});
    }
  }
  // Seed 1 + i for pair i, as with one seed before --seeds existed; each
  // further seed k draws every pair's arrivals anew (1 + i + k x pairs).
  std::vector<experiment::ScenarioSpec> specs;
  for (size_t k = 0; k < g_seeds; ++k) {
    for (size_t i = 0; i < pairs.size(); ++i) {
      auto s = PairScenario(pairs[i], 0.5, 1 + i + k * pairs.size());
      if (!s.ok()) {
        std::fprintf(stderr, "%s\n", s.status().ToString().c_str());
        return 1;
      }
      specs.push_back(*s);
    }
  }
  std::printf(
      "%zu pairs on A100-SXM4-40GB, high priority at 50%% of its solo load, 20 "
      "s each",
      pairs.size());
  if (g_seeds > 1)
    std::printf(", %zu seeds each (means and worst over all %zu runs)", g_seeds,
                specs.size());
  std::printf("\n\n");
  if (ideal_only) {
    PrintIdealBounds(specs, verbose);
    return 0;
  }
  PrintSummaryHeader("policy");
  for (sched::PolicyKind k : sched::AllPolicies()) {
    if (only && k != *only) continue;
    PrintSummaryRow(sched::PolicyName(k), RunAll(specs, k, {}, verbose));
  }
  if (!only) PrintIdealBounds(specs, verbose);
  if (only && *only != sched::PolicyKind::kPriority) return 0;
  std::printf(
      "\npriority policy, harvest bound sweep (best effort beside "
      "high-priority kernels,\n"
      "in the slots they leave free, for logical blocks up to this long; 0 = "
      "off)\n");
  PrintSummaryHeader("harvest");
  g_sweep = "harvest";
  for (int us : {0, 20, 100, 400}) {
    sched::PolicyOptions o;
    o.harvest_block_bound = Microseconds(us);
    PrintSummaryRow(std::to_string(us) + " us",
                    RunAll(specs, sched::PolicyKind::kPriority, o, false));
  }
  if (!PrintRoom(specs.front().gpu)) return 1;
  std::printf(
      "\npriority policy, long-idle sweep (best-effort kernels run whole, not "
      "cut to the\n"
      "bound, once the service has been idle this long; default 5 ms)\n");
  PrintSummaryHeader("long idle");
  g_sweep = "long-idle";
  for (int ms : {1, 5, 20, 3600 * 1000}) {
    sched::PolicyOptions o;
    o.long_idle = Milliseconds(ms);
    PrintSummaryRow(ms == 3600 * 1000 ? std::string("never (1 h)")
                                      : std::to_string(ms) + " ms",
                    RunAll(specs, sched::PolicyKind::kPriority, o, false));
  }
  std::printf("\npriority policy, preemption-latency bound sweep\n");
  PrintSummaryHeader("bound");
  g_sweep = "bound";
  for (int us : {25, 50, 100, 200, 400}) {
    sched::PolicyOptions o;
    o.preemption_bound = Microseconds(us);
    PrintSummaryRow(std::to_string(us) + " us",
                    RunAll(specs, sched::PolicyKind::kPriority, o, false));
  }
  return 0;
}
