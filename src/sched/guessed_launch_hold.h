// sched/guessed_launch_hold.h — holds a best-effort launch of a kernel whose
// duration is a guess (KernelDesc::duration_guessed: colod's shape model,
// no profile) while an earlier launch of its client's stream is in flight,
// in front of a policy that would otherwise take it at once.
//
// colod in gate mode hands a stream's launches to the policy ahead of their
// turn (up to gate_depth), and the real stream then runs whatever was
// granted back to back: a queue of 5 us guesses for 2 ms kernels would hold
// a service arriving meanwhile for all of them. So a launch on a guess goes
// only on a profile's word, never ahead: once nothing of its stream is in
// flight. The priority policy holds such a launch itself (its "Work ahead"
// rule, priority_policy.h), and MakePolicy puts this in front of every
// other policy (mps, time-slice, priority-streams, orion, tgs), whose own
// rules do not look at durations that way.
//
// What it changes, and nothing else:
//  * a best-effort client's launch of a guessed kernel, submitted while a
//    launch of the same (client, stream) is in flight through it, is held
//    (Submit answers an id of its own, 3 x 2^61 and up, which the launch's
//    callbacks report too) and handed to the policy behind when the last
//    of them ends;
//  * a launch of a stream that has a launch held waits behind it (stream
//    order), guessed or not.
// High-priority clients' launches, launches with nothing of their stream in
// flight, and launches of profiled kernels pass straight through, unchanged
// (so in `colo sim`, which has no guessed kernels, it never holds).
//
// Thread safety: none; lives on its executor's thread, like the policy.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <utility>

#include "sched/policy.h"

namespace colo::sched {

class GuessedLaunchHold final : public ForwardingPolicy {
 public:
  // REQUIRES: `inner` is not null.
  explicit GuessedLaunchHold(std::unique_ptr<Policy> inner);

  // Tells both this and the policy behind. A client's class is set before
  // its first launch (a launch counts by the class it was submitted under).
  void SetClientClass(ClientId client, PriorityClass c) override;
  // Holds the launch as above, after checking it as the device would
  // (CheckLaunch: InvalidArgument for a launch it cannot run); otherwise
  // the policy behind answers.
  Result<LaunchId> Submit(LaunchRequest request) override;

  // How many launches are held now (for tests).
  size_t held() const { return held_.size(); }

 private:
  using StreamKey = std::pair<ClientId, uint32_t>;
  struct Held {
    LaunchId id = 0;
    LaunchRequest request;  // its callbacks report `id`.
  };

  bool IsHigh(ClientId c) const;
  bool HasHeld(const StreamKey& key) const;
  // Hands a best-effort launch to the policy behind, counting it in flight
  // on its stream until it completes or retreats.
  Result<LaunchId> Pass(LaunchRequest request);
  // A launch of `key` passed on ended (or was refused).
  void Ended(const StreamKey& key);
  // Hands on what `key` has held, in order, until a guessed one meets a
  // launch of its stream in flight.
  void HandOn(const StreamKey& key);

  std::unique_ptr<Policy> inner_;
  std::map<ClientId, PriorityClass> classes_;
  // Best-effort launches passed and not yet ended, per stream (no entry: 0).
  std::map<StreamKey, int64_t> in_flight_;
  std::deque<Held> held_;  // in arrival order.
  LaunchId next_held_id_ = LaunchId{3} << 61;
};

}  // namespace colo::sched
