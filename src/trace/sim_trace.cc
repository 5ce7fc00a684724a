#include "trace/sim_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <map>
#include <unordered_map>
#include <utility>

#include "experiment/scenario_runner.h"
#include "sched/policy.h"
#include "sim/sim_gpu.h"
#include "trace/launch_seen.h"

namespace colo::trace {
namespace {

// Thread ids of a run's GPU process.
constexpr int kPolicyThread = 1;
constexpr int kCopyInThread = 2;
constexpr int kCopyOutThread = 3;

// `ns` as a JSON member "key":microseconds.
void AppendMicrosArg(std::string& out, const char* key, int64_t ns) {
  fmt::format_to(std::back_inserter(out), ",\"{}\":", key);
  AppendMicros(out, ns);
}

std::string RunLabel(const experiment::ScenarioSpec& spec,
                     const experiment::RunOptions& options) {
  if (options.ideal_preemption != sim::IdealPreemption::kOff)
    return std::string("ideal ") +
           IdealPreemptionName(options.ideal_preemption);
  if (!spec.policy)
    return std::string("mode ") + experiment::SharingModeName(spec.mode);
  std::string label = sched::PolicyName(*spec.policy);
  if (*spec.policy == sched::PolicyKind::kPriority)
    label += " " + FormatDuration(spec.policy_options.preemption_bound);
  return label;
}

}  // namespace

struct SimTrace::Launch {
  size_t job = 0;  // spec.jobs index; jobs.size() for an unknown client.
  const KernelDesc* kernel = nullptr;
  const char* form = "whole";
  int64_t first_block = 0;
  int64_t end_block = 0;
  int64_t workers = 0;
  int64_t sms = 0;
  TimePoint submitted = TimeZero();
  Duration held{0};
  std::optional<TimePoint> retreat_requested;
};

struct SimTrace::Job {
  std::string name;
  int pid = 0;
  std::vector<TimePoint> lane_ends;  // per thread, when its last event ends.
  // The kernel the job last asked its device for, and when.
  const KernelDesc* requested_kernel = nullptr;
  TimePoint requested_at = TimeZero();
};

struct SimTrace::Run {
  const Clock* clock = nullptr;
  size_t summary = 0;  // index in runs_.
  int gpu_pid = 0;
  bool has_policy = false;
  int sm_count = 1;
  std::vector<Job> jobs;
  std::vector<std::unique_ptr<GpuStandIn>> gpus;
  std::vector<std::unique_ptr<JobStandIn>> job_devices;
  // Per GPU, its launches in flight by id (ordered: the unfinished ones are
  // written in id order, so the same run gives the same file).
  std::vector<std::map<LaunchId, Launch>> launches;
  std::unordered_map<const KernelDesc*, KernelTiming> timings;
  std::string args;  // scratch for an event's args.
};

class SimTrace::GpuStandIn final : public Device {
 public:
  GpuStandIn(SimTrace& trace, Device& gpu, size_t index)
      : trace_(trace), gpu_(gpu), index_(index) {}
  const GpuSpec& spec() const override { return gpu_.spec(); }
  Result<LaunchId> Submit(LaunchRequest request) override {
    const LaunchRequest seen = LaunchSeen(request);
    request.on_complete = [this, done = std::move(request.on_complete)](
                              LaunchId id, TimePoint at) {
      trace_.GpuEnded(index_, id, at, std::nullopt);
      if (done) done(id, at);
    };
    if (request.on_retreated) {
      request.on_retreated = [this, stopped = std::move(request.on_retreated)](
                                 LaunchId id, TimePoint at, int64_t next) {
        trace_.GpuEnded(index_, id, at, next);
        stopped(id, at, next);
      };
    }
    Result<LaunchId> id = gpu_.Submit(std::move(request));
    if (id.ok()) trace_.GpuSubmitted(index_, gpu_, *id, seen);
    return id;
  }
  void ReleaseClient(ClientId client) override { gpu_.ReleaseClient(client); }
  Status Retreat(LaunchId id) override {
    trace_.RetreatRequested(index_, id);
    return gpu_.Retreat(id);
  }
  Result<KernelTiming> ProfileKernel(const KernelDesc& kernel) override {
    return gpu_.ProfileKernel(kernel);
  }

 private:
  SimTrace& trace_;
  Device& gpu_;
  size_t index_;
};

class SimTrace::JobStandIn final : public Device {
 public:
  JobStandIn(SimTrace& trace, Device& device, size_t job)
      : trace_(trace), device_(device), job_(job) {}
  const GpuSpec& spec() const override { return device_.spec(); }
  Result<LaunchId> Submit(LaunchRequest request) override {
    trace_.JobSubmitted(job_, request);
    return device_.Submit(std::move(request));
  }
  void ReleaseClient(ClientId client) override {
    device_.ReleaseClient(client);
  }
  Status Retreat(LaunchId id) override { return device_.Retreat(id); }
  Result<KernelTiming> ProfileKernel(const KernelDesc& kernel) override {
    return device_.ProfileKernel(kernel);
  }

 private:
  SimTrace& trace_;
  Device& device_;
  size_t job_;
};

Status SimTraceOptions::Validate() const {
  if (max_events < 1) {
    return InvalidArgumentError(
        "the trace's maximum events per run must be at least 1, got " +
        std::to_string(max_events));
  }
  return OkStatus();
}

Result<std::unique_ptr<SimTrace>> SimTrace::Create(const std::string& path,
                                                   SimTraceOptions options) {
  COLO_RETURN_IF_ERROR(options.Validate());
  COLO_ASSIGN_OR_RETURN(std::unique_ptr<TraceWriter> writer,
                        TraceWriter::Open(path));
  return std::unique_ptr<SimTrace>(new SimTrace(std::move(writer), options));
}

SimTrace::SimTrace(std::unique_ptr<TraceWriter> writer, SimTraceOptions options)
    : writer_(std::move(writer)), options_(options) {}

SimTrace::~SimTrace() = default;

bool SimTrace::cut() const {
  return std::any_of(runs_.begin(), runs_.end(),
                     [](const TraceRunSummary& r) { return r.cut_at; });
}

void SimTrace::OnRunStart(const experiment::ScenarioSpec& spec,
                          const experiment::RunOptions& options,
                          const Clock& clock) {
  assert(!run_);
  run_ = std::make_unique<Run>();
  run_->clock = &clock;
  run_->summary = runs_.size();
  run_->has_policy = spec.policy.has_value();
  run_->sm_count = std::max(1, spec.gpu.sm_count);
  TraceRunSummary summary;
  summary.label = RunLabel(spec, options);
  runs_.push_back(std::move(summary));
  const std::string& label = runs_.back().label;
  if (scenario_.empty()) scenario_ = spec.name;
  // Processes in display order: each run's GPU first, then its jobs.
  run_->gpu_pid = next_pid_++;
  writer_->ProcessName(run_->gpu_pid, label + ": GPU " + spec.gpu.name,
                       run_->gpu_pid);
  if (run_->has_policy) {
    writer_->ThreadName(run_->gpu_pid, kPolicyThread, "policy", kPolicyThread);
  }
  writer_->ThreadName(run_->gpu_pid, kCopyInThread,
                      "copy engine: host to device", kCopyInThread);
  writer_->ThreadName(run_->gpu_pid, kCopyOutThread,
                      "copy engine: device to host", kCopyOutThread);
  for (const experiment::JobSpec& job : spec.jobs) {
    Job j;
    j.name = job.name;
    j.pid = next_pid_++;
    writer_->ProcessName(j.pid,
                         label + ": " + job.name + " (" +
                             PriorityClassName(job.workload.priority) + ")",
                         j.pid);
    run_->jobs.push_back(std::move(j));
  }
}

Device& SimTrace::ObserveGpu(Device& gpu, size_t index) {
  assert(run_);
  if (run_->launches.size() <= index) run_->launches.resize(index + 1);
  run_->gpus.push_back(std::make_unique<GpuStandIn>(*this, gpu, index));
  return *run_->gpus.back();
}

Device& SimTrace::ObserveJob(Device& device, size_t job) {
  assert(run_);
  run_->job_devices.push_back(std::make_unique<JobStandIn>(*this, device, job));
  return *run_->job_devices.back();
}

bool SimTrace::Admit() {
  TraceRunSummary& summary = runs_[run_->summary];
  if (!summary.cut_at && summary.kept < options_.max_events) {
    ++summary.kept;
    return true;
  }
  ++summary.dropped;
  if (!summary.cut_at) {
    summary.cut_at = run_->clock->Now();
    writer_->Instant(
        run_->gpu_pid, kPolicyThread, "trace cut", "trace", *summary.cut_at,
        'g',
        fmt::format("\"max_events\":{},\"note\":{}", options_.max_events,
                    JsonString("this run's later events are not "
                               "in the trace")));
  }
  return false;
}

void SimTrace::JobSubmitted(size_t job, const LaunchRequest& request) {
  if (job >= run_->jobs.size()) return;
  Job& j = run_->jobs[job];
  j.requested_kernel = request.kernel;
  j.requested_at = run_->clock->Now();
}

void SimTrace::GpuSubmitted(size_t gpu, Device& device, LaunchId id,
                            const LaunchRequest& request) {
  const TimePoint now = run_->clock->Now();
  Launch l;
  l.job = request.client >= 0 &&
                  static_cast<size_t>(request.client) < run_->jobs.size()
              ? static_cast<size_t>(request.client)
              : run_->jobs.size();
  l.kernel = request.kernel;
  const int64_t grid = request.kernel->Blocks();
  l.first_block = request.first_block;
  l.end_block = request.end_block < 0 ? grid : request.end_block;
  l.workers = request.persistent_workers;
  l.form = l.workers > 0                                 ? "persistent"
           : (l.first_block == 0 && l.end_block == grid) ? "whole"
                                                         : "slice";
  l.submitted = now;
  if (l.job < run_->jobs.size()) {
    const Job& j = run_->jobs[l.job];
    if (j.requested_kernel == l.kernel) l.held = now - j.requested_at;
  }
  // The SMs its blocks spread over alone: the launch's width (its blocks,
  // or its workers) over the blocks an SM holds, at most every SM.
  auto timing = run_->timings.find(l.kernel);
  if (timing == run_->timings.end()) {
    Result<KernelTiming> t = device.ProfileKernel(*l.kernel);
    timing =
        run_->timings.emplace(l.kernel, t.ok() ? *t : KernelTiming{}).first;
  }
  const int64_t per_sm =
      std::max<int64_t>(1, timing->second.blocks_per_wave / run_->sm_count);
  const int64_t width = l.workers > 0 ? l.workers : l.end_block - l.first_block;
  l.sms = std::min<int64_t>(run_->sm_count, (width + per_sm - 1) / per_sm);
  // A decision of the policy: a form other than whole, or a hold.
  if (run_->has_policy &&
      (l.workers > 0 || std::string_view(l.form) == "slice" ||
       l.held.count() > 0) &&
      Admit()) {
    const std::string job = l.job < run_->jobs.size()
                                ? run_->jobs[l.job].name
                                : std::to_string(request.client);
    std::string& args = run_->args;
    args.clear();
    fmt::format_to(std::back_inserter(args),
                   "\"job\":{},\"kernel\":{},\"blocks\":\"{}-{}\","
                   "\"workers\":{}",
                   JsonString(job), JsonString(l.kernel->name), l.first_block,
                   l.end_block, l.workers);
    AppendMicrosArg(args, "held_us", l.held.count());
    writer_->Instant(
        run_->gpu_pid, kPolicyThread,
        std::string_view(l.form) == "whole" ? "start held" : l.form, "policy",
        now, 't', args);
  }
  run_->launches[gpu].emplace(id, l);
}

void SimTrace::RetreatRequested(size_t gpu, LaunchId id) {
  auto it = run_->launches[gpu].find(id);
  if (it == run_->launches[gpu].end()) return;  // it has already ended.
  Launch& l = it->second;
  if (!l.retreat_requested) l.retreat_requested = run_->clock->Now();
  if (!Admit()) return;
  const std::string job =
      l.job < run_->jobs.size() ? run_->jobs[l.job].name : "?";
  writer_->Instant(
      run_->gpu_pid, kPolicyThread, "retreat", "policy", run_->clock->Now(),
      't',
      fmt::format("\"job\":{},\"kernel\":{},\"launch\":{}", JsonString(job),
                  JsonString(l.kernel->name), id));
}

void SimTrace::GpuEnded(size_t gpu, LaunchId id, TimePoint at,
                        std::optional<int64_t> next_block) {
  auto it = run_->launches[gpu].find(id);
  if (it == run_->launches[gpu].end()) return;
  if (Admit()) {
    WriteLaunch(it->second, at, next_block ? "retreated" : "completed",
                next_block);
    if (!next_block) ++runs_[run_->summary].completed;
  }
  run_->launches[gpu].erase(it);
}

int SimTrace::JobThread(size_t job, TimePoint start, TimePoint end) {
  Job& j = run_->jobs[job];
  return writer_->StackedThread(j.pid, &j.lane_ends, start, end);
}

void SimTrace::WriteLaunch(const Launch& l, TimePoint end, const char* state,
                           std::optional<int64_t> next_block) {
  // A launch of a client that is no job of the run (none in `colo sim`)
  // goes on the GPU's policy thread.
  const bool known = l.job < run_->jobs.size();
  const int pid = known ? run_->jobs[l.job].pid : run_->gpu_pid;
  const int tid = known ? JobThread(l.job, l.submitted, end) : kPolicyThread;
  std::string& args = run_->args;
  args.clear();
  fmt::format_to(std::back_inserter(args),
                 "\"form\":\"{}\",\"blocks\":\"{}-{}\",\"sms\":{},"
                 "\"state\":\"{}\"",
                 l.form, l.first_block, l.end_block, l.sms, state);
  if (l.held.count() > 0) AppendMicrosArg(args, "held_us", l.held.count());
  if (l.workers > 0)
    fmt::format_to(std::back_inserter(args), ",\"workers\":{}", l.workers);
  if (l.retreat_requested) {
    AppendMicrosArg(args, "retreat_requested_us",
                    ToNanos(*l.retreat_requested));
  }
  if (next_block)
    fmt::format_to(std::back_inserter(args), ",\"next_block\":{}", *next_block);
  writer_->Complete(pid, tid, l.kernel->name, "kernel", l.submitted,
                    end - l.submitted, args);
}

void SimTrace::OnCopy(CopyDirection direction, int64_t bytes, TimePoint start,
                      TimePoint end) {
  if (!Admit()) return;
  const bool in = direction == CopyDirection::kHostToDevice;
  writer_->Complete(run_->gpu_pid, in ? kCopyInThread : kCopyOutThread,
                    in ? "copy in" : "copy out", "copy", start, end - start,
                    fmt::format("\"bytes\":{}", bytes));
}

void SimTrace::OnRunEnd(TimePoint stop,
                        const std::vector<experiment::GpuReport>& gpus) {
  assert(run_);
  // Launches still in flight: on the GPU until the run stopped.
  for (auto& launches : run_->launches) {
    for (const auto& [id, l] : launches) {
      if (Admit())
        WriteLaunch(l, std::max(stop, l.submitted), "unfinished", std::nullopt);
    }
  }
  // The utilization timeline, up to the cut if there was one.
  const std::optional<TimePoint> cut_at = runs_[run_->summary].cut_at;
  for (const experiment::GpuReport& gpu : gpus) {
    const std::string name =
        gpus.size() > 1 ? "utilization " + gpu.name : "utilization";
    for (const sim::UtilizationSample& s : gpu.timeline) {
      if (cut_at && s.start >= *cut_at) break;
      writer_->Counter(
          run_->gpu_pid, name, s.start,
          fmt::format("\"sm_active\":{:.2f},\"sm_occupancy\":{:.2f},"
                      "\"dram\":{:.2f}",
                      s.sm_active * 100, s.sm_occupancy * 100,
                      s.dram_util * 100));
    }
  }
  run_.reset();
}

Status SimTrace::Finish() {
  assert(!run_);
  std::string meta = fmt::format(
      "\"generator\":\"colo sim\",\"scenario\":{},\"max_events_per_run\":{},"
      "\"trace_cut\":{},\"runs\":[",
      JsonString(scenario_), options_.max_events, cut() ? "true" : "false");
  for (size_t i = 0; i < runs_.size(); ++i) {
    const TraceRunSummary& r = runs_[i];
    fmt::format_to(std::back_inserter(meta),
                   "{}{{\"label\":{},\"events\":{},\"dropped\":{},"
                   "\"completed_launches\":{}",
                   i > 0 ? "," : "", JsonString(r.label), r.kept, r.dropped,
                   r.completed);
    if (r.cut_at) AppendMicrosArg(meta, "cut_at_us", ToNanos(*r.cut_at));
    meta += '}';
  }
  meta += ']';
  return writer_->Finish(meta);
}

}  // namespace colo::trace
