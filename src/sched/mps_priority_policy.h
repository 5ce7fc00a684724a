// sched/mps_priority_policy.h — the `mps-priority` baseline: MPS with client
// priorities (CUDA 11.5+, CUDA_MPS_CLIENT_PRIORITY). Every launch goes to
// the device at once, as under `mps`; the high-priority clients' launches
// carry the higher MPS client priority (LaunchRequest::client_priority), so
// the device dispatches no block of a best-effort launch while a
// high-priority launch still has blocks waiting. Nothing is preempted:
// best-effort blocks already running run to their end, and best-effort
// blocks fill the room a high-priority launch leaves once all of its blocks
// are on the SMs. Stream priorities are left as the clients set them.
//
// Thread safety: none.
#pragma once

#include <map>

#include "sched/policy.h"

namespace colo::sched {

class MpsPriorityPolicy final : public ForwardingPolicy {
 public:
  // The MPS client priority of high-priority clients' launches; best-effort
  // clients keep 0.
  static constexpr int kHighClientPriority = 1;

  explicit MpsPriorityPolicy(Device& device) : ForwardingPolicy(device) {}

  void SetClientClass(ClientId client, PriorityClass c) override {
    classes_[client] = c;
  }
  Result<LaunchId> Submit(LaunchRequest request) override {
    request.client_priority = IsHigh(request.client) ? kHighClientPriority : 0;
    return device_.Submit(std::move(request));
  }

 private:
  bool IsHigh(ClientId c) const {
    auto it = classes_.find(c);
    return it != classes_.end() && it->second == PriorityClass::kHigh;
  }
  std::map<ClientId, PriorityClass> classes_;
};

}  // namespace colo::sched
