// sched/passthrough_policy.h — hands every launch to the device at once: the
// `mps` and `time-slice` policies (the device's sharing mode does the rest)
// and `priority-streams` (high-priority clients' launches get the higher
// stream priority, so the block dispatcher serves them first; nothing is
// preempted). Thread safety: none.
#pragma once

#include <map>

#include "sched/policy.h"

namespace colo::sched {

class PassthroughPolicy final : public ForwardingPolicy {
 public:
  PassthroughPolicy(Device& device, bool priority_by_class)
      : ForwardingPolicy(device), priority_by_class_(priority_by_class) {}

  void SetClientClass(ClientId client, PriorityClass c) override {
    classes_[client] = c;
  }
  Result<LaunchId> Submit(LaunchRequest request) override {
    if (priority_by_class_) request.priority = IsHigh(request.client) ? 1 : 0;
    return device_.Submit(std::move(request));
  }

 private:
  bool IsHigh(ClientId c) const {
    auto it = classes_.find(c);
    return it != classes_.end() && it->second == PriorityClass::kHigh;
  }
  bool priority_by_class_;
  std::map<ClientId, PriorityClass> classes_;
};

}  // namespace colo::sched
