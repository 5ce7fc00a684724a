// runtime/live_trace.h — colod's trace of a live window: what every client
// ran for the next few seconds, as Chrome trace-event JSON (the writer and
// event shapes of `colo sim --trace`, trace/trace_writer.h and
// trace/sim_trace.h), for a monitor that asked with kTrace (ipc/wire.h;
// `colo top --trace`).
//
// What a window shows, times in microseconds from the window's start:
//  * a process per client ("client 3: infer_loop (pid 812, best-effort)",
//    with its Slurm job where it names one), its launches as complete
//    events ("X", category "kernel", named by the kernel) from when colod
//    handed each to the policy (its stream's previous launch ended; in
//    gate mode, for a launch granted behind another, when that one ended)
//    to its end, with args: launch (the ring's sequence number), stream,
//    class, form (whole / slice / persistent: the forms of the parts the
//    policy started it in, "slice+persistent" for both; "unknown" for a
//    launch whose parts all started before the window), parts, retreats,
//    blocks (the grid's), state ("completed"), and started_before_window
//    where its start was cut to the window's. Overlapping launches go on
//    further threads ("kernels 2", ...), as the format wants;
//  * a process for the GPU: the policy's decisions as instants on its
//    "policy" thread (a part in a form other than whole: "slice" or
//    "persistent", with client, kernel, blocks, workers; "retreat"), and
//    the copies on "copy engine: host to device" / "device to host"
//    (category "copy", args client, bytes).
// Launches still in flight when the window closes are not in it (the next
// window has them, started_before_window).
//
// Size: at most max_events activity events (launches, copies, decisions),
// and never more text than fits one reply (kMaxTraceBytes). The first
// event past either cuts the window: an instant "trace cut" (global scope)
// marks the time, later events are counted and dropped, and the top-level
// "metadata" says so (trace_cut, events, dropped, cut_at_us), with colod's
// own counters over the window (kernels_launched, kernels_completed,
// copies) to check the trace against.
//
// Cost: nothing while no window is open (colod checks one pointer at each
// launch end and policy submit); while one is open, the formatting of each
// event kept (docs/colod.md gives the measured figure).
//
// Thread safety: none; colod calls it on the thread that runs its loop.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "colo/clock.h"
#include "colo/copy_engines.h"
#include "colo/device.h"
#include "colo/kernel.h"
#include "colo/status.h"
#include "colo/time.h"
#include "colo/workload.h"
#include "trace/trace_writer.h"

namespace colo::runtime {

// The most JSON text a window's trace may take: one kTraceReply, less room
// for the reply's framing.
inline constexpr size_t kMaxTraceBytes = (size_t{1} << 20) - 4096;

struct LiveTraceOptions {
  // How long the window records. Default: 1 s; at most 600 s.
  Duration window = Seconds(1);
  // Activity events kept (launches, copies, decisions); the next one cuts
  // the window. Default: 4000 (about 1 MB of JSON, a reply's size).
  int64_t max_events = 4000;
  // InvalidArgument unless 0 < window <= 600 s and 1 <= max_events <=
  // 1,000,000.
  Status Validate() const;
};

// Who a client is, for the name of its track.
struct TraceClientLabel {
  int pid = 0;
  std::string program;
  std::string job;  // "123" or "123.0", or empty.
  PriorityClass cls = PriorityClass::kBestEffort;
};

// colod's counters the metadata reports over the window (their values at
// its start and at its end).
struct TraceCounters {
  int64_t kernels_launched = 0;
  int64_t kernels_completed = 0;
  int64_t copies = 0;
};

class LiveTrace {
 public:
  // Looks up a client's label when its first event comes; nullopt for a
  // client that is gone (its track is then "client N").
  using LabelLookup = std::function<std::optional<TraceClientLabel>(ClientId)>;

  // A window that started at `start` (colod's device clock). REQUIRES:
  // options.Validate() is ok.
  LiveTrace(LiveTraceOptions options, TimePoint start, std::string gpu,
            std::string policy, TraceCounters at_start, LabelLookup lookup);
  ~LiveTrace();
  LiveTrace(const LiveTrace&) = delete;
  LiveTrace& operator=(const LiveTrace&) = delete;

  TimePoint start() const { return start_; }
  TimePoint end() const { return start_ + options_.window; }

  // The policy started part of launch `tag` (colod's in-flight key) on the
  // device: `request` says its form. `id` is the device's id of the part.
  void PartStarted(const LaunchRequest& request, LaunchId id, TimePoint at);
  // The policy asked part `id` to retreat.
  void RetreatRequested(LaunchId id, TimePoint at);
  // Launch `tag` of `client` ended: one complete event from `started`.
  void LaunchEnded(ClientId client, uint64_t tag, uint64_t seq, uint32_t stream,
                   const KernelDesc& kernel, PriorityClass cls,
                   TimePoint started, TimePoint end);
  // A host-device copy of `client` ran from `started` to `end`.
  void CopyEnded(ClientId client, CopyDirection direction, uint64_t bytes,
                 TimePoint started, TimePoint end);

  // Closes the trace at `stop` with colod's counters then, and returns its
  // text (at most kMaxTraceBytes). Call once; nothing may be added after.
  std::string Finish(TimePoint stop, TraceCounters at_end);

  bool cut() const { return cut_at_.has_value(); }
  int64_t kept() const { return kept_; }
  int64_t dropped() const { return dropped_; }

 private:
  // What the policy did with one launch in the window, by its tag.
  struct Parts {
    int parts = 0;
    int retreats = 0;
    bool whole = false;
    bool slice = false;
    bool persistent = false;
  };
  struct Track {
    int pid = 0;
    std::vector<TimePoint> lane_ends;  // per thread, when its last ends.
  };

  // Whether the next activity event fits; the first that does not cuts.
  bool Admit(TimePoint at);
  // Microseconds from the window's start (never negative).
  TimePoint Since(TimePoint at) const;
  Track& TrackOf(ClientId client);
  int ThreadOf(Track& track, TimePoint start, TimePoint end);
  std::string ClientName(ClientId client) const;

  LiveTraceOptions options_;
  TimePoint start_;
  std::string gpu_;
  std::string policy_;
  TraceCounters at_start_;
  LabelLookup lookup_;
  std::unique_ptr<trace::TraceWriter> writer_;
  int gpu_pid_ = 1;
  int next_pid_ = 2;
  std::unordered_map<ClientId, Track> tracks_;
  std::unordered_map<uint64_t, Parts> parts_;         // by launch tag.
  std::unordered_map<LaunchId, uint64_t> part_tags_;  // part id -> tag.
  int64_t kept_ = 0;
  int64_t dropped_ = 0;
  int64_t launches_ = 0;  // launch events kept.
  int64_t copies_ = 0;    // copy events kept.
  std::optional<TimePoint> cut_at_;
  std::string args_;  // scratch.
};

// The device the policy drives in colod: forwards everything to the real
// one (SimGpu, or CudaGpu in gate mode) and, while a window is open, tells
// the trace each part the policy starts and each retreat it asks for.
class TracedDevice final : public Device {
 public:
  TracedDevice(Device& device, const Clock& clock)
      : device_(device), clock_(clock) {}
  // The open window, or null (then the device only forwards).
  void Attach(LiveTrace* trace) { trace_ = trace; }

  const GpuSpec& spec() const override { return device_.spec(); }
  Result<LaunchId> Submit(LaunchRequest request) override;
  void ReleaseClient(ClientId client) override {
    device_.ReleaseClient(client);
  }
  Status Retreat(LaunchId id) override;
  Result<KernelTiming> ProfileKernel(const KernelDesc& kernel) override {
    return device_.ProfileKernel(kernel);
  }

 private:
  Device& device_;
  const Clock& clock_;
  LiveTrace* trace_ = nullptr;
};

}  // namespace colo::runtime
