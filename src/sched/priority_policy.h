// sched/priority_policy.h — colo's priority policy (after Tally, ASPLOS'25).
//
// High-priority kernels launch at once, at the higher stream priority, and a
// high-priority launch asks every running persistent best-effort launch to
// retreat. Best-effort kernels launch only while every high-priority client
// has been idle for `min_idle`, each waiting launch in the form chosen from
// its kernel's solo profile (Device::ProfileKernel, asked once per launch: a
// kernel's name and launch shape do not fix its timing, and kernel tables
// give many kernels the same name and grid):
//   whole       if its estimated duration is within the preemption bound, or
//               if the high-priority clients have been idle for `long_idle`;
//   persistent  workers = one wave, if retreat latency + one logical block
//               (with the persistent overhead) is within the bound;
//   slices      of as many whole waves as fit in the bound, launched one after
//               another with `slice_launch_gap` of host time between them;
// choosing, among the forms that meet the bound, the one with the best
// estimated throughput (persistent: 1 / (1 + overhead); slices: slice time /
// (slice time + gap)). If none meets it, the form with the lowest latency.
// A kernel with one form alone (KernelDesc::slice_form, persistent_form)
// chooses between whole and that form; one without persistent form is
// never harvested.
// Kernels that cannot be transformed (KernelDesc::transformable false) run
// whole, and only once the high-priority clients have been idle for
// `long_idle` unless they fit the bound (they are gated).
//
// Work ahead: a client may submit a launch while its own earlier
// best-effort launches on the same stream (LaunchRequest::stream) are still
// in flight (colod grants a stream's launches ahead, and the real stream
// runs them one after another). A high-priority kernel arriving then waits
// for what is left of those too, so the launch goes only once their
// estimated remaining time (whole launches and slices: their solo times one
// after another from the first's launch; persistent workers: their retreat
// latency) plus its own latency is within the bound, and one whose own latency
// exceeds the bound (whole after a long idle, or no form within the bound), or
// whose timing or theirs is a guess (KernelTiming::guessed: a kernel colod has
// no profile of), only once they have ended. So after a long idle a stream
// still has one long kernel at a time in flight, not a queue of them, and a
// kernel never seen is never queued behind itself on a guess.
//
// Harvest (`harvest_block_bound` > 0): while high-priority launches run, a
// best-effort kernel whose persistent logical block takes at most that long
// runs as persistent workers in the block slots they leave free (per SM:
// what breadth-first placement gives them, sm_room.h), n per SM. A
// high-priority launch that would not fit beside the harvesting workers asks
// them to retreat (newest first); once the high-priority clients are idle
// past `min_idle` they retreat too and are relaunched at full width.
//
// Thread safety: none; lives on its executor's thread.
#pragma once

#include <deque>
#include <map>

#include "sched/policy.h"
#include "sched/sm_room.h"

namespace colo::sched {

enum class KernelForm { kWhole, kPersistent, kSlices };
const char* KernelFormName(KernelForm f);

struct FormChoice {
  KernelForm form = KernelForm::kWhole;
  int64_t slice_blocks = 0;  // kSlices: blocks per slice.
  int64_t workers = 0;       // kPersistent: worker blocks.
  Duration latency{0};       // estimated preemption latency.
  double efficiency = 1;     // estimated throughput relative to whole.
};

// `blocks` of the kernel `t` profiles, whole, alone: waves x block time.
Duration WavesTime(const KernelTiming& t, int64_t blocks);

// Which transformed forms a kernel has.
struct FormsAllowed {
  bool slices = true;
  bool persistent = true;
};
// What `k` allows (KernelDesc::transformable, slice_form, persistent_form).
FormsAllowed FormsOf(const KernelDesc& k);

// The choice described above for one kernel, among the forms `allowed`
// (whole always is). Pure function, for tests.
FormChoice ChooseForm(const KernelTiming& t, FormsAllowed allowed,
                      Duration bound, Duration slice_gap);
// Both forms if `transformable`, else neither.
inline FormChoice ChooseForm(const KernelTiming& t, bool transformable,
                             Duration bound, Duration slice_gap) {
  return ChooseForm(t, FormsAllowed{transformable, transformable}, bound,
                    slice_gap);
}

class PriorityPolicy final : public ForwardingPolicy {
 public:
  PriorityPolicy(const PolicyOptions& options, Device& device,
                 Executor& executor);

  void SetClientClass(ClientId client, PriorityClass c) override;
  Result<LaunchId> Submit(LaunchRequest request) override;

 private:
  struct BeWork {
    LaunchId id = 0;
    LaunchRequest request;  // the client's launch (kernel, range, callback).
    KernelTiming timing;    // its kernel's solo profile, asked once at Submit.
    int64_t next = 0;       // first block not yet run.
    int64_t end = 0;
    bool in_flight = false;
    bool persistent = false;
    bool harvesting = false;  // launched beside high-priority kernels.
    bool retreating = false;
    SmUse harvest_use;  // what a harvesting launch holds per SM.
    LaunchId device_id = 0;
    // In flight: when its launch ends by its solo estimate (whole or a
    // slice), after those ahead of it on its stream, or how long its
    // workers take to leave (persistent).
    TimePoint estimated_end = TimeZero();
    Duration estimated_run{
        0};  // in flight, whole or a slice: its own estimate.
    Duration retreat_latency{0};
    // Its next launch not before: `slice_launch_gap` of host time after the
    // last one of it ended, whatever else wakes the policy meanwhile.
    TimePoint ready_at = TimeZero();
  };

  bool IsHigh(ClientId c) const;
  // The best-effort launches in flight ahead of `r` on its client's stream
  // (see "Work ahead"): whether there is one, whether any has a guessed
  // timing, and what a high-priority kernel arriving now would wait for of
  // them by their estimates.
  struct Ahead {
    bool any = false;
    bool guessed = false;
    TimePoint end = TimeZero();  // when the last of them ends, by the estimates
                                 // (now if none).
    Duration left{0};  // until then, plus any persistent ones' retreat latency.
  };
  Ahead WorkAhead(const LaunchRequest& r, TimePoint now) const;
  // A launch of r's stream ended (or retreated) at `now`, maybe before its
  // estimate: those still in flight behind it start no later than now, so
  // their estimated ends come no later than one after another from now.
  void ReestimateStream(const LaunchRequest& r, TimePoint now);
  void Pump();
  void Issue(BeWork& w);
  // Harvests for every best-effort launch not in flight (if enabled).
  void HarvestPending();
  void Harvest(BeWork& w);
  // Submits blocks [w.next, end) of w's kernel (persistent if workers > 0)
  // and marks it in flight; false if the device refused.
  bool Launch(BeWork& w, int64_t end, int64_t persistent_workers);
  SmUse UsedBesideHigh() const;
  void RetreatWhatNoLongerFits();
  void OnBeDone(LaunchId id, int64_t stopped_at, bool whole_range_done);

  PolicyOptions options_;
  Executor& executor_;
  Wakeup pump_{executor_, [this] { Pump(); }};
  std::map<ClientId, PriorityClass> classes_;
  bool has_high_ = false;
  int hp_outstanding_ = 0;
  SmUse hp_use_;  // per SM, of the high-priority launches in flight.
  TimePoint hp_idle_since_ = TimeZero();
  std::deque<BeWork> be_;
  LaunchId next_id_ = 1ULL << 62;  // distinct from device ids
};

}  // namespace colo::sched
