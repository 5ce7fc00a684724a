// colod's trace windows (runtime/live_trace.h): a monitor's kTrace opens
// one, colod's device clock closes it after its length, and the monitor
// gets the trace in its kTraceReply.
#include <algorithm>
#include <chrono>
#include <string>

#include "runtime/daemon.h"
#include "runtime/daemon_client.h"

namespace colo::runtime {

TraceCounters Daemon::CurrentTraceCounters() const {
  TraceCounters t;
  t.kernels_launched = kernels_launched_;
  t.kernels_completed = kernels_completed_;
  for (const CopyTotals& c : copy_totals_) t.copies += c.copies;
  return t;
}

void Daemon::OpenTrace(Client& c, const ipc::Message& m) {
  if (c.role != ipc::ClientRole::kMonitor) {
    return Drop(c.id, "protocol error: a trace window is a monitor's request");
  }
  Result<ipc::TraceMsg> t = ipc::PayloadAs<ipc::TraceMsg>(m);
  if (!t.ok()) return Drop(c.id, "protocol error: " + t.status().message());
  auto refuse = [&](const std::string& why) {
    const std::string text = "colod: " + why;
    Reply(c, ipc::MsgType::kTraceReply, text.data(), text.size());
  };
  if (trace_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        trace_->end() - driver_.Now());
    return refuse("a trace window is open already (client " +
                  std::to_string(trace_monitor_) + "'s, " +
                  std::to_string(std::max<int64_t>(0, left.count())) +
                  " ms left); colod records one at a time: ask again after "
                  "it");
  }
  LiveTraceOptions options;
  // Checked before it is a Duration: a huge count must not overflow.
  if (t->window_ms <= 0 || t->window_ms > 600'000) {
    return refuse("a trace window must be 1 to 600000 ms, got " +
                  std::to_string(t->window_ms));
  }
  options.window = Milliseconds(t->window_ms);
  if (t->max_events != 0) options.max_events = t->max_events;
  if (Status s = options.Validate(); !s.ok()) return refuse(s.message());
  // Launches start and end on the device clock, which must not lag the
  // wall clock at the window's start.
  driver_.CatchUp();
  trace_ = std::make_unique<LiveTrace>(
      options, driver_.Now(), spec_.name, config_.policy,
      CurrentTraceCounters(),
      [this](ClientId id) -> std::optional<TraceClientLabel> {
        auto it = clients_.find(id);
        if (it == clients_.end()) return std::nullopt;
        const Client& client = *it->second;
        TraceClientLabel label;
        label.pid = client.peer.pid;
        label.program = client.program;
        label.job = client.job_id.empty() ? ""
                    : client.step_id.empty()
                        ? client.job_id
                        : client.job_id + "." + client.step_id;
        label.cls = client.cls;
        return label;
      });
  trace_monitor_ = c.id;
  const uint64_t window = ++trace_window_;
  traced_device_->Attach(trace_.get());
  driver_.After(options.window, [this, window] { CloseTrace(window); });
  DaemonLog("client %d (%s): trace window of %lld ms opened", c.id,
            c.program.c_str(), static_cast<long long>(t->window_ms));
}

void Daemon::CloseTrace(uint64_t window) {
  if (!trace_ || window != trace_window_) return;
  traced_device_->Attach(nullptr);
  std::unique_ptr<LiveTrace> trace = std::move(trace_);
  const std::string text = trace->Finish(driver_.Now(), CurrentTraceCounters());
  auto it = clients_.find(trace_monitor_);
  if (it == clients_.end() || it->second->broken) {
    DaemonLog("trace window closed: client %d, which asked for it, is gone",
              trace_monitor_);
    return;
  }
  DaemonLog("client %d: trace window closed: %lld events, %zu bytes%s",
            trace_monitor_, static_cast<long long>(trace->kept()), text.size(),
            trace->cut() ? " (cut: its later events dropped)" : "");
  Reply(*it->second, ipc::MsgType::kTraceReply, text.data(), text.size());
}

}  // namespace colo::runtime
