// sched/policy.h — kernel-level scheduling policies for a shared GPU.
//
// A policy sits between the clients and the Device: clients submit their
// kernel launches to it (it is a Device to them), and it decides when, and in
// which form (whole, slices, persistent blocks), each reaches the real Device.
// The same policy object runs in `colo sim` (SimGpu, simulated time) and in
// colod. Policies, by the name a scenario or colod's config gives:
//
//   mps: everything launches at once; the device's MPS dispatch shares the
//     SMs among the clients' channels (the hardware default with MPS).
//   time-slice: everything launches at once; the device runs one client at
//     a time for a quantum (the driver's time slicing).
//   priority-streams: hardware stream priorities; high-priority launches
//     dispatch their blocks first, nothing is preempted.
//   mps-priority: MPS client priority (CUDA 11.5+); best-effort blocks
//     dispatch only while no high-priority launch has blocks waiting, nothing
//     is preempted (mps_priority_policy.h).
//   priority: colo's policy (after Tally, ASPLOS'25); high-priority kernels
//     launch at once; best-effort kernels launch while the high-priority
//     clients are idle, cut so that the estimated preemption latency stays
//     under a bound, and beside high-priority kernels in the slots they leave
//     free (priority_policy.h).
//   orion: best-effort kernels beside high-priority ones only if their SM
//     need fits and their bound (compute/memory) differs, with a cap on
//     outstanding best-effort time (Orion, EuroSys'24; orion_policy.h).
//   tgs: the best-effort client's launch rate adapted to the high-priority
//     client's observed speed (TGS, NSDI'23; tgs_policy.h).
//   reef: best-effort kernels in flight are reset (their work lost and
//     redone) when a high-priority kernel arrives, and short ones pad the
//     SMs high-priority kernels leave idle (REEF, OSDI'22; reef_policy.h).
//
// Thread safety: none; a policy lives on its executor's thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "colo/device.h"
#include "colo/status.h"
#include "colo/time.h"
#include "colo/workload.h"
#include "sched/executor.h"

namespace colo::sched {

enum class PolicyKind {
  kMps,
  kTimeSlice,
  kPriorityStreams,
  kPriority,
  kOrion,
  kTgs,
  kMpsPriority,
  kReef
};

const char* PolicyName(PolicyKind k);
std::vector<PolicyKind> AllPolicies();
// InvalidArgument lists the valid names.
Result<PolicyKind> ParsePolicyKind(std::string_view name);

struct PolicyOptions {
  // priority: the preemption-latency bound a best-effort kernel's form is
  // chosen for. Default: 100 us.
  Duration preemption_bound = Microseconds(100);
  // priority: how long the high-priority clients must have been idle before
  // best-effort work launches. Default: 20 us.
  Duration min_idle = Microseconds(20);
  // priority: after this long idle, best-effort kernels run untransformed.
  // Default: 5 ms.
  Duration long_idle = Milliseconds(5);
  // priority: GPU idle time between consecutive slices of one kernel: the
  // host sees one end and launches the next. Default: 10 us (an H100 idled
  // 9.3-11.1 us, median, between one-wave slices launched that way;
  // bench/calibrate_preemption.sh).
  Duration slice_launch_gap = Microseconds(10);
  // priority: best-effort kernels may also run beside high-priority ones, as
  // persistent workers in the block slots the high-priority launches leave
  // free, if one logical block takes at most this long (they retreat when a
  // high-priority launch needs the slots). 0 turns this off. Default: 0
  // (off). On an H100 persistent workers that fill an SM's issue slots
  // starve the blocks of kernels launched after them almost entirely (a 50 us
  // kernel beside them took 231 ms), where the simulator shares issue slots
  // fairly; docs/sched.md, "Harvesting on a real GPU".
  Duration harvest_block_bound{0};
  // orion: cap on the summed solo duration of best-effort kernels in flight
  // while a high-priority request is active. Default: 250 us.
  Duration orion_be_cap = Microseconds(250);
  // tgs: control period of the rate controller. Default: 10 ms.
  Duration tgs_period = Milliseconds(10);
  // The shortest period Validate accepts: the controller adjusts the rate
  // from what it observed over a period, and one below 1 ms sees a kernel or
  // two (and costs a controller event per period).
  static constexpr Duration kMinTgsPeriod = Milliseconds(1);

  // Which fields were set explicitly (by a scenario or a flag), by name, so
  // that an option given to the wrong policy is an error.
  std::vector<std::string> explicitly_set;

  // InvalidArgument if a value is out of range (e.g. a bound <= 0, a TGS
  // period below kMinTgsPeriod) or an
  // explicitly set option does not belong to `kind`.
  Status Validate(PolicyKind kind) const;
};

// Whether `kind` hands every high-priority launch to its device within
// Submit, whatever else is in flight, holding none back. Where it does, a
// high-priority launch already running on the GPU is what the policy would
// have started anyway, so colod's gate mode lets a high-priority client
// issue its launches at once and only report them (runtime/daemon.h): the
// policy then sees each as started when colod takes it from the client's
// ring. True for every policy: priority, orion, tgs and reef start high
// priority at once by their rules (reef resets best-effort work beside it,
// it does not hold the launch); mps, time-slice, priority-streams and
// mps-priority pass every launch on (time slicing between the clients'
// contexts and MPS client priority are the GPU driver's own);
// GuessedLaunchHold passes high priority through.
bool StartsHighPriorityAtOnce(PolicyKind kind);

// The option names each policy accepts (for messages and the loader).
std::vector<std::string> PolicyOptionNames(PolicyKind kind);

// What Device::Submit checks before it accepts a launch, for policies that
// accept a launch now and hand it to the device later: the kernel runs on
// `device` (its profile, returned) and the slice [first_block, end_block) is
// non-empty and within the grid. InvalidArgument otherwise, naming the
// kernel. A launch accepted unchecked and refused later would never
// complete, and nobody would be told.
Result<KernelTiming> CheckLaunch(Device& device, const LaunchRequest& r);

class Policy : public Device {
 public:
  // Tells the policy a client's class. Clients not registered are best-effort.
  virtual void SetClientClass(ClientId client, PriorityClass c) = 0;
};

// The part every policy shares: it stands in front of `device` and forwards
// what it does not decide itself.
class ForwardingPolicy : public Policy {
 public:
  explicit ForwardingPolicy(Device& device) : device_(device) {}
  const GpuSpec& spec() const override { return device_.spec(); }
  void ReleaseClient(ClientId client) override {
    device_.ReleaseClient(client);
  }
  Status Retreat(LaunchId id) override { return device_.Retreat(id); }
  Result<KernelTiming> ProfileKernel(const KernelDesc& k) override {
    return device_.ProfileKernel(k);
  }

 protected:
  Device& device_;
};

// Builds `kind` over `device`. Every policy holds a best-effort launch of a
// kernel whose duration is a guess (KernelDesc::duration_guessed) while an
// earlier launch of its stream is in flight: the priority policy by its own
// rule, the others behind a GuessedLaunchHold (guessed_launch_hold.h).
// REQUIRES: options.Validate(kind) is OK; `device` and `executor` outlive
// the policy.
std::unique_ptr<Policy> MakePolicy(PolicyKind kind,
                                   const PolicyOptions& options, Device& device,
                                   Executor& executor);

}  // namespace colo::sched
