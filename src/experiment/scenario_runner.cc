#include "experiment/scenario_runner.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "experiment/job_driver.h"
#include "experiment/loop_executor.h"
#include "experiment/random.h"
#include "sched/policy.h"
#include "sim/event_loop.h"
#include "sim/sim_copy_engines.h"
#include "sim/sim_gpu.h"

namespace colo::experiment {
namespace {

// What one job did in one run.
struct JobOutcome {
  double progress = 0;
  int64_t completed = 0;
  int64_t arrived = 0;  // inference: requests that arrived.
  std::string
      instance;  // mode mig: the name of the job's instance's GpuReport.
  int64_t kernels = 0;
  Duration active{0};
  std::vector<Duration> latencies;
  std::vector<Duration>
      fastest_kernel_times;                   // JobDriver::fastest_kernel_times
  std::optional<KernelDelays> kernel_delays;  // against the solo run, if given.
};

struct RunOutcome {
  std::vector<JobOutcome> jobs;  // parallel to the jobs that ran
  std::vector<GpuReport> gpus;
  int64_t kernels = 0;
  int64_t events = 0;  // the event loop's (sim::EventLoop::events_processed)
  std::array<sim::CopyTotals, kCopyDirections> copies{};
};

// The GPU the job's kernel durations were measured on, as a specification:
// the one the loader resolved in full (REEF's MI50), else the preset of that
// name, else the scenario's own GPU. A preset comes before a scenario GPU of
// the same name, so that a table measured on a V100 stays a V100's on an A100
// renamed "V100-SXM2-32GB", which then runs it at an A100's speed: whether
// and how much to rescale is decided by comparing specifications
// (SameArchitecture), never names. Presets match by their full name only
// (the loader stores them so): a custom GPU called "a100" is that GPU.
Result<GpuSpec> ProfilingGpu(const ScenarioSpec& spec, const JobSpec& job) {
  if (!job.profiled_on.name.empty()) return job.profiled_on;
  const std::string& name = job.workload.profiled_on;
  if (name.empty()) return spec.gpu;
  if (Result<GpuSpec> preset = GpuPreset(name);
      preset.ok() && preset->name == name) {
    return *preset;
  }
  if (name == spec.gpu.name) return spec.gpu;
  return InvalidArgumentError("job '" + job.name +
                              "': workload profiled on unknown GPU '" + name +
                              "'");
}

sim::ContextMode ContextModeFor(const ScenarioSpec& spec) {
  if (spec.policy) {
    return *spec.policy == sched::PolicyKind::kTimeSlice
               ? sim::ContextMode::kTimeSlicing
               : sim::ContextMode::kConcurrent;
  }
  const SharingMode m = spec.mode;
  switch (m) {
    case SharingMode::kExclusive:
      return sim::ContextMode::kExclusive;
    case SharingMode::kTimeSlicing:
      return sim::ContextMode::kTimeSlicing;
    default:
      return sim::ContextMode::kConcurrent;
  }
}

Duration SampleInterval(const ScenarioSpec& spec) {
  if (spec.sample_interval.count() > 0) return spec.sample_interval;
  return std::max(Duration(1), spec.duration / 50);
}

}  // namespace

sim::SimGpuOptions GpuOptionsFor(const ScenarioSpec& spec, bool solo,
                                 const RunOptions& options) {
  sim::SimGpuOptions gopt;
  gopt.mode = solo ? sim::ContextMode::kExclusive : ContextModeFor(spec);
  gopt.quantum = spec.time_slice.quantum;
  gopt.switch_cost = spec.time_slice.switch_cost;
  gopt.retreat_flag_latency = spec.preemption.flag_latency;
  gopt.persistent_overhead = spec.preemption.persistent_overhead;
  gopt.persistent_block_cost = spec.preemption.persistent_block_cost;
  gopt.retreat_spread = spec.preemption.retreat_spread;
  gopt.sample_interval = SampleInterval(spec);
  gopt.fuse_waves = !options.wave_by_wave;
  gopt.ideal_preemption = options.ideal_preemption;
  gopt.engine = options.engine;
  gopt.time_tolerance = options.time_tolerance;
  return gopt;
}

namespace {

// Runs `indices` of spec.jobs. `solo`: the single job alone on the whole GPU,
// or with `on_instance` (mode mig) alone on its own MIG instance.
// `alone` (parallel to `indices`, if given): each job's kernel times in its
// solo run, to measure its kernel delays against.
Result<RunOutcome> RunOnce(
    const ScenarioSpec& spec, const std::vector<size_t>& indices, bool solo,
    const RunOptions& options,
    const std::vector<std::vector<Duration>>* alone = nullptr,
    bool on_instance = false) {
  sim::EventLoop loop;
  const TimePoint end = TimeZero() + spec.duration;
  const sim::SimGpuOptions gopt = GpuOptionsFor(spec, solo, options);

  std::vector<std::unique_ptr<sim::SimGpu>> gpus;
  std::vector<sim::SimGpu*> gpu_of(indices.size());
  const bool mig = spec.mode == SharingMode::kMig && (!solo || on_instance);
  if (!mig)
    gpus.push_back(std::make_unique<sim::SimGpu>(spec.gpu, loop.clock(), gopt));
  for (size_t i = 0; i < indices.size(); ++i) {
    const JobSpec& job = spec.jobs[indices[i]];
    if (mig) {
      COLO_ASSIGN_OR_RETURN(GpuSpec slice, spec.gpu.MigSlice(job.mig_profile));
      gpus.push_back(std::make_unique<sim::SimGpu>(slice, loop.clock(), gopt));
      gpu_of[i] = gpus.back().get();
    } else {
      gpu_of[i] = gpus.front().get();
    }
    COLO_ASSIGN_OR_RETURN(GpuSpec profiled_on, ProfilingGpu(spec, job));
    COLO_RETURN_IF_ERROR(
        gpu_of[i]->RegisterWorkload(job.workload, profiled_on));
    if (!solo && spec.mode == SharingMode::kMps &&
        job.mps_active_thread_percentage) {
      const int sms = static_cast<int>(std::ceil(
          *job.mps_active_thread_percentage / 100.0 * spec.gpu.sm_count -
          1e-9));
      gpu_of[i]->SetClientSmCap(static_cast<ClientId>(indices[i]),
                                std::max(1, sms));
    }
  }
  for (auto& g : gpus) loop.AddModel(g.get());
  // MIG instances share the GPU's link, so one pair of engines serves all.
  sim::SimCopyEngines copies(loop, spec.gpu.copy_bandwidth);
  // The observer (shared run only) sees the GPUs and the jobs' devices
  // through its stand-ins; unobserved, the devices are the GPUs themselves.
  RunObserver* const observer = solo ? nullptr : options.observer;
  std::vector<Device*> gpu_seen;
  for (auto& g : gpus) gpu_seen.push_back(g.get());
  if (observer) {
    observer->OnRunStart(spec, options, loop.clock());
    for (size_t k = 0; k < gpus.size(); ++k)
      gpu_seen[k] = &observer->ObserveGpu(*gpus[k], k);
    copies.set_observer(
        [observer](CopyDirection d, int64_t bytes, TimePoint start,
                   TimePoint end) { observer->OnCopy(d, bytes, start, end); });
  }
  // A kernel-level policy between the jobs and the (single) GPU.
  LoopExecutor executor(loop);
  std::unique_ptr<sched::Policy> policy;
  if (!solo && spec.policy) {
    policy = sched::MakePolicy(*spec.policy, spec.policy_options,
                               *gpu_seen.front(), executor);
    for (size_t i = 0; i < indices.size(); ++i) {
      policy->SetClientClass(static_cast<ClientId>(indices[i]),
                             spec.jobs[indices[i]].workload.priority);
    }
  }

  std::vector<std::unique_ptr<JobDriver>> drivers;
  size_t running = indices.size();
  for (size_t i = 0; i < indices.size(); ++i) {
    const JobSpec& job = spec.jobs[indices[i]];
    JobDriverOptions o;
    o.client = static_cast<ClientId>(indices[i]);
    o.launch_priority = (!solo && spec.mode == SharingMode::kStreams &&
                         job.workload.priority == PriorityClass::kHigh)
                            ? 1
                            : 0;
    o.start = TimeZero() + job.start;
    o.end = end;
    o.seed = DeriveSeed(spec.seed, std::string_view(job.name));
    if (alone) o.alone = &(*alone)[i];
    Device* target = policy ? policy.get() : gpu_seen[mig ? i : 0];
    if (observer) target = &observer->ObserveJob(*target, indices[i]);
    drivers.push_back(std::make_unique<JobDriver>(loop, *target, copies,
                                                  job.workload, o, [&] {
                                                    if (--running == 0)
                                                      loop.Stop();
                                                  }));
  }
  for (auto& d : drivers) d->Start();
  loop.RunUntil(end);
  const TimePoint stop = loop.Now();
  for (auto& g : gpus) g->Finish(stop);

  RunOutcome out;
  out.copies = copies.totals();
  for (size_t i = 0; i < indices.size(); ++i) {
    const JobDriver& d = *drivers[i];
    const JobSpec& job = spec.jobs[indices[i]];
    JobOutcome o;
    o.progress = d.Progress();
    o.completed = d.completed();
    o.arrived = d.arrived();
    o.kernels = d.kernels();
    o.latencies = d.latencies();
    o.fastest_kernel_times = d.fastest_kernel_times();
    if (alone) o.kernel_delays = d.kernel_delays();
    TimePoint until = end;
    if (job.workload.kind == WorkloadKind::kTraining && d.finished_at())
      until = *d.finished_at();
    o.active = std::max(Duration(0), until - d.start());
    out.jobs.push_back(std::move(o));
  }
  for (size_t k = 0; k < gpus.size(); ++k) {
    sim::SimGpu* g = gpus[k].get();
    GpuReport r;
    r.name = g->spec().name;
    // Two jobs may run on instances of one profile: number them (instance k
    // runs job k).
    if (mig) {
      r.name += "#" + std::to_string(k);
      out.jobs[k].instance = r.name;
    }
    r.timeline = g->Timeline(end);
    const sim::UtilizationSample mean =
        sim::MeanUtilization(r.timeline, end, gopt.sample_interval);
    r.mean_sm_occupancy = mean.sm_occupancy;
    r.mean_sm_active = mean.sm_active;
    r.mean_dram_util = mean.dram_util;
    out.gpus.push_back(std::move(r));
    out.kernels += g->kernels_completed();
  }
  out.events = loop.events_processed();
  if (observer) observer->OnRunEnd(stop, out.gpus);
  return out;
}

double Throughput(const JobOutcome& o) {
  return o.active.count() > 0 ? o.progress / ToSeconds(o.active) : 0.0;
}

}  // namespace

Result<RunReport> RunScenario(const ScenarioSpec& spec,
                              const RunOptions& options) {
  COLO_RETURN_IF_ERROR(spec.Validate());
  COLO_RETURN_IF_ERROR(GpuOptionsFor(spec, /*solo=*/false, options).Validate());
  std::vector<size_t> all(spec.jobs.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  // The solo runs first: the shared run measures each job's kernel delays
  // against its kernel times alone as it goes.
  std::vector<JobOutcome> solos;
  std::vector<std::vector<Duration>> alone;
  if (options.solo_baselines) {
    for (size_t i = 0; i < spec.jobs.size(); ++i) {
      COLO_ASSIGN_OR_RETURN(RunOutcome solo,
                            RunOnce(spec, {i}, /*solo=*/true, options));
      solos.push_back(std::move(solo.jobs[0]));
      alone.push_back(solos.back().fastest_kernel_times);
      if (options.on_run_done) options.on_run_done();
    }
  }
  // Under MIG, each job also alone on its own instance: what the instance
  // gives it without any neighbour (MIG has none that interferes).
  std::vector<JobOutcome> on_instance;
  if (options.solo_baselines && spec.mode == SharingMode::kMig) {
    for (size_t i = 0; i < spec.jobs.size(); ++i) {
      COLO_ASSIGN_OR_RETURN(RunOutcome solo,
                            RunOnce(spec, {i}, /*solo=*/true, options, nullptr,
                                    /*on_instance=*/true));
      on_instance.push_back(std::move(solo.jobs[0]));
      if (options.on_run_done) options.on_run_done();
    }
  }
  COLO_ASSIGN_OR_RETURN(RunOutcome shared,
                        RunOnce(spec, all, /*solo=*/false, options,
                                options.solo_baselines ? &alone : nullptr));
  if (options.on_run_done) options.on_run_done();
  RunReport report;
  report.scenario = spec.name;
  report.gpu = spec.gpu.name;
  report.mode = SharingModeName(spec.mode);
  if (spec.policy) report.policy = sched::PolicyName(*spec.policy);
  if (spec.policy == sched::PolicyKind::kPriority) {
    report.preemption_bound = spec.policy_options.preemption_bound;
  }
  report.seed = spec.seed;
  report.duration = spec.duration;
  report.gpus = std::move(shared.gpus);
  report.kernels_simulated = shared.kernels;
  report.events_simulated = shared.events;
  report.time_tolerance = options.time_tolerance;
  report.wave_by_wave = options.wave_by_wave;
  if (options.ideal_preemption != sim::IdealPreemption::kOff) {
    report.ideal_preemption = IdealPreemptionName(options.ideal_preemption);
  }
  report.copies = shared.copies;
  for (size_t i = 0; i < spec.jobs.size(); ++i) {
    const JobSpec& job = spec.jobs[i];
    const JobOutcome& s = shared.jobs[i];
    JobReport j;
    j.name = job.name;
    j.kind = job.workload.kind;
    j.priority = job.workload.priority;
    j.instance = s.instance;
    j.completed = s.completed;
    j.kernels = s.kernels;
    j.shared_throughput = Throughput(s);
    const bool inference = job.workload.kind == WorkloadKind::kInference;
    if (inference) {
      j.arrived = s.arrived;
      j.unfinished = s.arrived - s.completed;
      j.shared_latency = ComputeLatencyStats(s.latencies);
      j.shared_latencies = s.latencies;
    }
    if (options.solo_baselines) {
      const JobOutcome& o = solos[i];
      j.solo_throughput = Throughput(o);
      if (j.solo_throughput > 0)
        j.normalized = j.shared_throughput / j.solo_throughput;
      j.kernel_delays = s.kernel_delays;
      if (!on_instance.empty()) {
        j.instance_solo_throughput = Throughput(on_instance[i]);
        if (*j.instance_solo_throughput > 0) {
          j.normalized_instance =
              j.shared_throughput / *j.instance_solo_throughput;
        }
      }
      if (inference) {
        j.solo_unfinished = o.arrived - o.completed;
        j.solo_latency = ComputeLatencyStats(o.latencies);
        j.solo_latencies = o.latencies;
        if (j.solo_latency->count > 0 && j.shared_latency->count > 0) {
          j.p99_overhead =
              static_cast<double>(j.shared_latency->p99.count()) /
                  static_cast<double>(j.solo_latency->p99.count()) -
              1.0;
        }
      }
    }
    if (job.slo) {
      j.slo = job.slo;
      j.slo_verdict = JudgeSlo(j);
    }
    report.system_throughput += j.normalized.value_or(0);
    report.jobs.push_back(std::move(j));
  }
  return report;
}

}  // namespace colo::experiment
