// sched/reef_policy.h — the REEF baseline (OSDI'22): reset-based preemption
// of best-effort kernels, and dynamic kernel padding.
//
// High-priority kernels launch at once, at the higher stream priority.
// Best-effort kernels (REEF's assume idempotent kernels) launch whole while
// no high-priority launch is in flight, in arrival order. When a
// high-priority launch arrives, every best-effort launch in flight that can
// be preempted is reset: its blocks stop, its finished blocks are thrown
// away, and it goes back to the head of the queue, to be launched again from
// its first block once no high-priority launch is in flight. The work lost
// counts: blocks_redone() sums the blocks that had run and run again.
//
// How a reset is modelled with the Device seam (colo/device.h): a
// preemptible best-effort launch runs as persistent workers, one wave of
// them (persistent form, KernelDesc::persistent_form), and a reset is a
// Retreat whose stop point is ignored. So a reset takes the device's
// retreat latency (SimGpu: an 18 us flag latency, measured on an H100) plus
// up to one logical block, where REEF's reset on an AMD MI50 kills the
// kernel within tens of microseconds; and the persistent form's overhead
// (SimGpuOptions::persistent_overhead, about 2%) is charged, which a killed
// plain kernel does not pay. A kernel without a persistent form cannot be
// reset: it runs to its end, and high-priority work waits for its blocks.
//
// Dynamic kernel padding: while high-priority launches are in flight, the
// best-effort launch at the head of the queue launches beside them, whole
// and never reset, if (a) the SMs it needs plus theirs fit the GPU and (b)
// its solo duration ends before the last of them is estimated to end (so it
// only fills SMs they leave idle and delays none of them). The queue keeps
// its order: a head that does not fit holds the others back.
//
// Thread safety: none; lives on its executor's thread.
#pragma once

#include <deque>
#include <map>

#include "sched/be_queue.h"
#include "sched/policy.h"

namespace colo::sched {

class ReefPolicy final : public ForwardingPolicy {
 public:
  ReefPolicy(Device& device, Executor& executor)
      : ForwardingPolicy(device), executor_(executor) {}

  void SetClientClass(ClientId client, PriorityClass c) override {
    classes_.SetClass(client, c);
  }
  Result<LaunchId> Submit(LaunchRequest request) override;

  // Resets so far: best-effort launches stopped by a high-priority arrival.
  int64_t resets() const { return resets_; }
  // Blocks that had run in launches that were reset, and so run again.
  int64_t blocks_redone() const { return blocks_redone_; }

 private:
  enum class State { kWaiting, kInFlight, kResetting };
  struct BeWork {
    LaunchId id = 0;           // the policy's id, reported to the client.
    LaunchRequest request;     // the client's launch (range, callbacks).
    KernelTiming timing;       // its solo profile, asked once at Submit.
    bool preemptible = false;  // has a persistent form.
    State state = State::kWaiting;
    bool padding = false;  // launched beside high-priority work.
    LaunchId device_id = 0;
  };
  struct HighInFlight {
    int64_t sms = 0;  // SMs it needs (at most the GPU's).
    TimePoint estimated_end = TimeZero();
  };

  void Pump();
  void ResetInFlight();
  bool Launch(BeWork& w, bool padding);
  void OnBeEnded(LaunchId id, bool completed, int64_t blocks_run);
  // The SMs `blocks` blocks of a kernel with profile `t` spread over.
  int64_t SmNeed(const KernelTiming& t, int64_t blocks) const;

  Executor& executor_;
  BeQueue classes_;                       // the client classes only.
  std::map<LaunchId, HighInFlight> hp_;   // by device id.
  std::deque<BeWork> be_;                 // arrival order.
  LaunchId next_id_ = LaunchId{1} << 62;  // distinct from device ids.
  int64_t resets_ = 0;
  int64_t blocks_redone_ = 0;
};

}  // namespace colo::sched
