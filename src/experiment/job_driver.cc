#include "experiment/job_driver.h"

#include <algorithm>
#include <cmath>

namespace colo::experiment {

JobDriver::JobDriver(sim::EventLoop& loop, Device& device,
                     sim::SimCopyEngines& copies, const Workload& workload,
                     JobDriverOptions options, std::function<void()> on_done)
    : loop_(loop),
      device_(device),
      copies_(copies),
      w_(workload),
      options_(options),
      on_done_(std::move(on_done)),
      rng_(options.seed),
      fastest_(workload.kernels.size(), Duration::max()) {}

KernelDelays JobDriver::kernel_delays() const {
  return {.compared = compared_,
          .delayed = delays_.count(),
          .delay = delays_.Stats()};
}

void JobDriver::Start() {
  if (w_.kind == WorkloadKind::kTraining) {
    loop_.At(options_.start, [this] { BeginIteration(); });
  } else {
    ScheduleNextArrival(options_.start);
  }
}

double JobDriver::Progress() const {
  if (w_.kind == WorkloadKind::kInference)
    return static_cast<double>(completed_);
  const Duration total = w_.SoloKernelTime();
  return completed_ +
         static_cast<double>(done_in_iteration_.count()) / total.count();
}

void JobDriver::BeginIteration() {
  if (loop_.Now() >= options_.end) return;
  done_in_iteration_ = Duration(0);
  BeginWork();
}

void JobDriver::BeginWork() {
  kernel_index_ = 0;
  if (w_.copy_in_bytes > 0) {
    copies_.Submit(CopyDirection::kHostToDevice, w_.copy_in_bytes,
                   [this](TimePoint) { LaunchCurrent(); });
  } else {
    LaunchCurrent();
  }
}

void JobDriver::LaunchCurrent() {
  LaunchRequest r;
  r.client = options_.client;
  r.kernel = &w_.kernels[kernel_index_];
  r.priority = options_.launch_priority;
  launched_at_ = loop_.Now();
  r.on_complete = [this](LaunchId, TimePoint t) { OnKernelDone(t); };
  // The runner registered every kernel with the device, so this cannot fail.
  auto id = device_.Submit(std::move(r));
  (void)id;
}

void JobDriver::OnKernelDone(TimePoint t) {
  ++kernels_;
  const Duration took = t - launched_at_;
  fastest_[kernel_index_] = std::min(fastest_[kernel_index_], took);
  if (options_.alone && kernel_index_ < options_.alone->size() &&
      (*options_.alone)[kernel_index_] != Duration::max()) {
    ++compared_;
    const Duration longer = took - (*options_.alone)[kernel_index_];
    if (longer > kKernelDelayThreshold) delays_.Add(longer);
  }
  done_in_iteration_ += w_.kernels[kernel_index_].solo_duration;
  ++kernel_index_;
  if (kernel_index_ < w_.kernels.size()) {
    if (w_.kernel_gap.count() > 0) {
      loop_.After(w_.kernel_gap, [this] { LaunchCurrent(); });
    } else {
      LaunchCurrent();
    }
    return;
  }
  if (w_.copy_out_bytes > 0) {
    copies_.Submit(CopyDirection::kDeviceToHost, w_.copy_out_bytes,
                   [this](TimePoint end) { OnWorkDone(end); });
  } else {
    OnWorkDone(t);
  }
}

void JobDriver::OnWorkDone(TimePoint t) {
  ++completed_;
  done_in_iteration_ = Duration(0);
  if (w_.kind == WorkloadKind::kInference) {
    latencies_.push_back(t - queue_.front());
    queue_.pop_front();
    busy_ = false;
    if (!queue_.empty()) {
      BeginRequest();
    } else if (arrivals_over_) {
      MarkDone(t);
    }
    return;
  }
  if (w_.iterations && completed_ >= *w_.iterations) {
    MarkDone(t);
    return;
  }
  if (w_.iteration_gap.count() > 0) {
    loop_.After(w_.iteration_gap, [this] { BeginIteration(); });
  } else {
    BeginIteration();
  }
}

void JobDriver::MarkDone(TimePoint t) {
  finished_at_ = t;
  device_.ReleaseClient(options_.client);
  if (on_done_) on_done_();
}

void JobDriver::ScheduleNextArrival(TimePoint last) {
  std::optional<TimePoint> next;
  const ArrivalSpec& a = w_.arrivals;
  switch (a.kind) {
    // Offsets are computed in double and compared with the time left before
    // converting: at a low rate the next arrival can lie past any int64.
    case ArrivalKind::kPoisson: {
      const double gap_ns = rng_.Exponential(a.rate_per_s) * 1e9;
      if (gap_ns < static_cast<double>((options_.end - last).count())) {
        next = last + Duration(static_cast<int64_t>(std::llround(gap_ns)));
      }
      break;
    }
    case ArrivalKind::kFixedRate: {
      const double offset_ns =
          static_cast<double>(fixed_count_) * 1e9 / a.rate_per_s;
      if (offset_ns <
          static_cast<double>((options_.end - options_.start).count())) {
        next = options_.start +
               Duration(static_cast<int64_t>(std::llround(offset_ns)));
      }
      ++fixed_count_;
      break;
    }
    case ArrivalKind::kTrace:
      if (trace_index_ < a.offsets.size())
        next = options_.start + a.offsets[trace_index_++];
      break;
  }
  if (!next || *next >= options_.end) {
    arrivals_over_ = true;
    if (!busy_ && queue_.empty()) {
      finished_at_ = last;
      if (on_done_) on_done_();
    }
    return;
  }
  loop_.At(*next, [this] { OnArrival(); });
}

void JobDriver::OnArrival() {
  const TimePoint now = loop_.Now();
  ++arrived_;
  queue_.push_back(now);
  ScheduleNextArrival(now);
  if (!busy_) BeginRequest();
}

void JobDriver::BeginRequest() {
  busy_ = true;
  BeginWork();
}

}  // namespace colo::experiment
