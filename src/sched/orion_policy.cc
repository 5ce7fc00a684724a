#include "sched/orion_policy.h"

#include <algorithm>

namespace colo::sched {
namespace {
bool ComputeBound(const KernelDesc& k) {
  return k.sm_throughput >= k.dram_throughput;
}
}  // namespace

int64_t OrionPolicy::SmNeed(const KernelDesc& k) {
  auto t = device_.ProfileKernel(k);
  if (!t.ok()) return device_.spec().sm_count;
  const int64_t per_sm =
      std::max<int64_t>(1, t->blocks_per_wave / device_.spec().sm_count);
  return std::min<int64_t>(device_.spec().sm_count,
                           (t->blocks + per_sm - 1) / per_sm);
}

Result<LaunchId> OrionPolicy::Submit(LaunchRequest request) {
  if (request.kernel == nullptr)
    return InvalidArgumentError("launch without a kernel");
  if (q_.IsHigh(request.client)) {
    request.priority = 1;
    const KernelDesc* k = request.kernel;
    auto id = std::make_shared<LaunchId>(0);
    q_.TrackHigh(request, [this, id] {
      hp_running_.erase(*id);
      Pump();
    });
    auto sub = device_.Submit(std::move(request));
    if (sub.ok()) {
      *id = *sub;
      hp_running_[*sub] = k;
    }
    return sub;
  }
  COLO_RETURN_IF_ERROR(CheckLaunch(device_, request).status());
  const LaunchId id = q_.Hold(std::move(request));
  Pump();
  return id;
}

void OrionPolicy::Pump() {
  auto& waiting = q_.waiting();
  while (!waiting.empty()) {
    LaunchRequest& r = waiting.front();
    auto t = device_.ProfileKernel(*r.kernel);
    const Duration solo = t.ok() ? t->SoloDuration() : Duration(0);
    if (!hp_running_.empty()) {
      int64_t hp_sms = 0;
      bool same_profile = false;
      for (const auto& [id, k] : hp_running_) {
        hp_sms += SmNeed(*k);
        same_profile =
            same_profile || ComputeBound(*k) == ComputeBound(*r.kernel);
      }
      const bool fits = SmNeed(*r.kernel) + hp_sms <= device_.spec().sm_count;
      const bool under_cap = be_in_flight_ + solo <= options_.orion_be_cap;
      if (!fits || same_profile || !under_cap)
        return;  // retried when an HP kernel ends
    }
    LaunchRequest go = std::move(r);
    waiting.pop_front();
    be_in_flight_ += solo;
    auto done = std::move(go.on_complete);
    go.on_complete = [this, solo, done = std::move(done)](LaunchId id,
                                                          TimePoint at) {
      be_in_flight_ -= solo;
      if (done) done(id, at);
      Pump();
    };
    (void)device_.Submit(std::move(go));
  }
}

}  // namespace colo::sched
