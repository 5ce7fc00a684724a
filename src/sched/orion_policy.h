// sched/orion_policy.h — the Orion baseline (EuroSys'24). High-priority
// kernels launch at once at the higher stream priority. A best-effort kernel
// launches at once if no high-priority kernel is in flight; otherwise only if
// (a) its SM need plus the running high-priority kernel's fits the GPU, (b)
// its profile differs (compute- vs memory-bound, from its SM and DRAM
// throughput), and (c) the best-effort solo time in flight stays under
// `orion_be_cap`. Thread safety: none.
#pragma once

#include <map>

#include "sched/be_queue.h"
#include "sched/policy.h"

namespace colo::sched {

class OrionPolicy final : public ForwardingPolicy {
 public:
  OrionPolicy(const PolicyOptions& options, Device& device)
      : ForwardingPolicy(device), options_(options) {}

  void SetClientClass(ClientId client, PriorityClass c) override {
    q_.SetClass(client, c);
  }
  Result<LaunchId> Submit(LaunchRequest request) override;

 private:
  void Pump();
  int64_t SmNeed(const KernelDesc& k);

  PolicyOptions options_;
  BeQueue q_;
  std::map<LaunchId, const KernelDesc*> hp_running_;  // by device id
  Duration be_in_flight_{0};
};

}  // namespace colo::sched
