#include "runtime/live_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <utility>

#include "trace/launch_seen.h"

namespace colo::runtime {
namespace {

using trace::AppendMicros;
using trace::JsonString;

// Thread ids of the GPU's process, as in `colo sim --trace`.
constexpr int kPolicyThread = 1;
constexpr int kCopyInThread = 2;
constexpr int kCopyOutThread = 3;

// Room an event may take at most: a kernel name is at most a ring entry's
// (ipc::RingEntry::name) and the args are a few numbers; the metadata
// (colod's counters, the cut) fits in the rest.
constexpr size_t kEventBytes = 2048;
constexpr size_t kMetadataBytes = 4096;

// Launch tags whose parts a window follows at most: a policy that cuts
// every launch into ever more parts must not grow colod without end.
constexpr size_t kMaxTrackedLaunches = size_t{1} << 20;

constexpr Duration kMaxWindow = Seconds(600);
constexpr int64_t kMaxEvents = 1'000'000;

void AppendMicrosArg(std::string& out, const char* key, int64_t ns) {
  fmt::format_to(std::back_inserter(out), ",\"{}\":", key);
  AppendMicros(out, ns);
}

}  // namespace

Status LiveTraceOptions::Validate() const {
  if (window <= Duration(0) || window > kMaxWindow) {
    return InvalidArgumentError(
        "a trace window must be longer than 0 and at most 600 s, got " +
        FormatDuration(window));
  }
  if (max_events < 1 || max_events > kMaxEvents) {
    return InvalidArgumentError(
        "a trace window keeps 1 to 1000000 events, got " +
        std::to_string(max_events));
  }
  return OkStatus();
}

LiveTrace::LiveTrace(LiveTraceOptions options, TimePoint start, std::string gpu,
                     std::string policy, TraceCounters at_start,
                     LabelLookup lookup)
    : options_(options),
      start_(start),
      gpu_(std::move(gpu)),
      policy_(std::move(policy)),
      at_start_(at_start),
      lookup_(std::move(lookup)),
      writer_(trace::TraceWriter::InMemory()) {
  writer_->ProcessName(gpu_pid_, "colod: GPU " + gpu_, gpu_pid_);
  writer_->ThreadName(gpu_pid_, kPolicyThread, "policy", kPolicyThread);
  writer_->ThreadName(gpu_pid_, kCopyInThread, "copy engine: host to device",
                      kCopyInThread);
  writer_->ThreadName(gpu_pid_, kCopyOutThread, "copy engine: device to host",
                      kCopyOutThread);
}

LiveTrace::~LiveTrace() = default;

TimePoint LiveTrace::Since(TimePoint at) const {
  return TimeZero() + std::max(Duration(0), at - start_);
}

bool LiveTrace::Admit(TimePoint at) {
  // A track's names (metadata events) come with its first event: room for
  // them too.
  if (!cut_at_ && kept_ < options_.max_events &&
      writer_->bytes() + 2 * kEventBytes + kMetadataBytes <= kMaxTraceBytes) {
    ++kept_;
    return true;
  }
  ++dropped_;
  if (!cut_at_) {
    cut_at_ = Since(at);
    writer_->Instant(
        gpu_pid_, kPolicyThread, "trace cut", "trace", *cut_at_, 'g',
        fmt::format("\"max_events\":{},\"note\":{}", options_.max_events,
                    JsonString("the window's later events are not in the "
                               "trace")));
  }
  return false;
}

std::string LiveTrace::ClientName(ClientId client) const {
  std::optional<TraceClientLabel> label;
  if (lookup_) label = lookup_(client);
  if (!label) return fmt::format("client {}", client);
  std::string name =
      fmt::format("client {}: {} (pid {}", client, label->program, label->pid);
  if (!label->job.empty()) name += ", Slurm job " + label->job;
  return name + ", " + PriorityClassName(label->cls) + ")";
}

LiveTrace::Track& LiveTrace::TrackOf(ClientId client) {
  auto it = tracks_.find(client);
  if (it != tracks_.end()) return it->second;
  Track& t = tracks_[client];
  t.pid = next_pid_++;
  writer_->ProcessName(t.pid, ClientName(client), t.pid);
  return t;
}

int LiveTrace::ThreadOf(Track& track, TimePoint start, TimePoint end) {
  return writer_->StackedThread(track.pid, &track.lane_ends, start, end);
}

void LiveTrace::PartStarted(const LaunchRequest& request, LaunchId id,
                            TimePoint at) {
  if (!parts_.count(request.tag) && parts_.size() >= kMaxTrackedLaunches)
    return;
  Parts& p = parts_[request.tag];
  ++p.parts;
  const int64_t grid = request.kernel->Blocks();
  const int64_t end_block = request.end_block < 0 ? grid : request.end_block;
  const char* form = request.persistent_workers > 0 ? "persistent"
                     : (request.first_block == 0 && end_block == grid)
                         ? "whole"
                         : "slice";
  const std::string_view f(form);
  p.whole |= f == "whole";
  p.slice |= f == "slice";
  p.persistent |= f == "persistent";
  if (request.persistent_workers > 0) part_tags_[id] = request.tag;
  // A decision of the policy, as the sim trace shows one: a form other
  // than whole.
  if (f == "whole" || !Admit(at)) return;
  args_.clear();
  fmt::format_to(std::back_inserter(args_),
                 "\"client\":{},\"kernel\":{},\"blocks\":\"{}-{}\","
                 "\"workers\":{}",
                 request.client, JsonString(request.kernel->name),
                 request.first_block, end_block, request.persistent_workers);
  writer_->Instant(gpu_pid_, kPolicyThread, form, "policy", Since(at), 't',
                   args_);
}

void LiveTrace::RetreatRequested(LaunchId id, TimePoint at) {
  auto tag = part_tags_.find(id);
  if (tag == part_tags_.end()) return;  // started before the window.
  ++parts_[tag->second].retreats;
  if (!Admit(at)) return;
  writer_->Instant(gpu_pid_, kPolicyThread, "retreat", "policy", Since(at), 't',
                   fmt::format("\"part\":{}", id));
}

void LiveTrace::LaunchEnded(ClientId client, uint64_t tag, uint64_t seq,
                            uint32_t stream, const KernelDesc& kernel,
                            PriorityClass cls, TimePoint started,
                            TimePoint end) {
  std::optional<Parts> parts;
  if (auto it = parts_.find(tag); it != parts_.end()) {
    parts = it->second;
    parts_.erase(it);
  }
  if (!Admit(end)) return;
  ++launches_;
  Track& track = TrackOf(client);
  const TimePoint from = Since(started);
  const TimePoint to = std::max(from, Since(end));
  const int tid = ThreadOf(track, from, to);
  std::string form = "unknown";
  if (parts) {
    form = parts->slice && parts->persistent ? "slice+persistent"
           : parts->persistent               ? "persistent"
           : parts->slice                    ? "slice"
                                             : "whole";
  }
  args_.clear();
  fmt::format_to(std::back_inserter(args_),
                 "\"launch\":{},\"stream\":{},\"class\":\"{}\","
                 "\"form\":\"{}\",\"parts\":{},\"retreats\":{},"
                 "\"blocks\":{},\"state\":\"completed\"",
                 seq, stream, PriorityClassName(cls), form,
                 parts ? parts->parts : 0, parts ? parts->retreats : 0,
                 kernel.Blocks());
  if (started < start_) args_ += ",\"started_before_window\":true";
  writer_->Complete(track.pid, tid, kernel.name, "kernel", from, to - from,
                    args_);
}

void LiveTrace::CopyEnded(ClientId client, CopyDirection direction,
                          uint64_t bytes, TimePoint started, TimePoint end) {
  if (!Admit(end)) return;
  ++copies_;
  const bool in = direction == CopyDirection::kHostToDevice;
  const TimePoint from = Since(started);
  const TimePoint to = std::max(from, Since(end));
  writer_->Complete(gpu_pid_, in ? kCopyInThread : kCopyOutThread,
                    in ? "copy in" : "copy out", "copy", from, to - from,
                    fmt::format("\"client\":{},\"bytes\":{}", client, bytes));
}

std::string LiveTrace::Finish(TimePoint stop, TraceCounters at_end) {
  std::string meta = fmt::format(
      "\"generator\":\"colod\",\"gpu\":{},\"policy\":{},\"window_ms\":{},"
      "\"max_events\":{},\"trace_cut\":{},\"events\":{},\"dropped\":{},"
      "\"launch_events\":{},\"copy_events\":{},\"clients\":{},"
      "\"kernels_launched\":{},\"kernels_completed\":{},\"copies\":{}",
      JsonString(gpu_), JsonString(policy_),
      std::chrono::duration_cast<std::chrono::milliseconds>(stop - start_)
          .count(),
      options_.max_events, cut() ? "true" : "false", kept_, dropped_, launches_,
      copies_, tracks_.size(),
      at_end.kernels_launched - at_start_.kernels_launched,
      at_end.kernels_completed - at_start_.kernels_completed,
      at_end.copies - at_start_.copies);
  if (cut_at_) AppendMicrosArg(meta, "cut_at_us", ToNanos(*cut_at_));
  // The in-memory writer cannot fail.
  Status s = writer_->Finish(meta);
  assert(s.ok());
  (void)s;
  return writer_->text();
}

Result<LaunchId> TracedDevice::Submit(LaunchRequest request) {
  if (trace_ == nullptr) return device_.Submit(std::move(request));
  const LaunchRequest seen = trace::LaunchSeen(request);
  Result<LaunchId> id = device_.Submit(std::move(request));
  // The device may have ended the part inside Submit and closed the window
  // with it: look again.
  if (id.ok() && trace_ != nullptr)
    trace_->PartStarted(seen, *id, clock_.Now());
  return id;
}

Status TracedDevice::Retreat(LaunchId id) {
  if (trace_ != nullptr) trace_->RetreatRequested(id, clock_.Now());
  return device_.Retreat(id);
}

}  // namespace colo::runtime
