#include "sched/policy.h"

#include <algorithm>
#include <string>

#include "sched/guessed_launch_hold.h"
#include "sched/mps_priority_policy.h"
#include "sched/orion_policy.h"
#include "sched/passthrough_policy.h"
#include "sched/priority_policy.h"
#include "sched/reef_policy.h"
#include "sched/tgs_policy.h"

namespace colo::sched {
namespace {

constexpr struct {
  PolicyKind kind;
  const char* name;
} kNames[] = {
    {PolicyKind::kMps, "mps"},
    {PolicyKind::kTimeSlice, "time-slice"},
    {PolicyKind::kPriorityStreams, "priority-streams"},
    {PolicyKind::kPriority, "priority"},
    {PolicyKind::kOrion, "orion"},
    {PolicyKind::kTgs, "tgs"},
    {PolicyKind::kMpsPriority, "mps-priority"},
    {PolicyKind::kReef, "reef"},
};

}  // namespace

const char* PolicyName(PolicyKind k) {
  for (const auto& n : kNames) {
    if (n.kind == k) return n.name;
  }
  return "?";
}

std::vector<PolicyKind> AllPolicies() {
  std::vector<PolicyKind> out;
  for (const auto& n : kNames) out.push_back(n.kind);
  return out;
}

Result<PolicyKind> ParsePolicyKind(std::string_view name) {
  std::string valid;
  for (const auto& n : kNames) {
    if (name == n.name) return n.kind;
    valid += (valid.empty() ? "" : ", ") + std::string(n.name);
  }
  return InvalidArgumentError("unknown policy '" + std::string(name) +
                              "'; expected one of " + valid);
}

bool StartsHighPriorityAtOnce(PolicyKind kind) {
  // One case each (no default): a new policy must say.
  switch (kind) {
    case PolicyKind::kMps:
    case PolicyKind::kTimeSlice:
    case PolicyKind::kPriorityStreams:
    case PolicyKind::kPriority:
    case PolicyKind::kOrion:
    case PolicyKind::kTgs:
    case PolicyKind::kMpsPriority:
    case PolicyKind::kReef:
      return true;
  }
  return false;
}

std::vector<std::string> PolicyOptionNames(PolicyKind kind) {
  switch (kind) {
    case PolicyKind::kPriority:
      return {"preemption_bound_us", "min_idle_us", "long_idle_us",
              "slice_launch_gap_us", "harvest_block_us"};
    case PolicyKind::kOrion:
      return {"orion_be_cap_us"};
    case PolicyKind::kTgs:
      return {"tgs_period_ms"};
    default:
      return {};
  }
}

Status PolicyOptions::Validate(PolicyKind kind) const {
  if (preemption_bound.count() <= 0) {
    return InvalidArgumentError(
        "preemption_bound_us must be > 0 (microseconds)");
  }
  if (min_idle.count() < 0)
    return InvalidArgumentError("min_idle_us must be >= 0");
  if (long_idle < min_idle) {
    return InvalidArgumentError("long_idle_us (" + FormatDuration(long_idle) +
                                ", default 5ms) must be >= min_idle_us (" +
                                FormatDuration(min_idle) + ")");
  }
  if (slice_launch_gap.count() < 0)
    return InvalidArgumentError("slice_launch_gap_us must be >= 0");
  if (harvest_block_bound.count() < 0)
    return InvalidArgumentError("harvest_block_us must be >= 0");
  if (orion_be_cap.count() <= 0)
    return InvalidArgumentError("orion_be_cap_us must be > 0");
  if (tgs_period < kMinTgsPeriod) {
    return InvalidArgumentError(
        "tgs_period_ms must be >= " + FormatDuration(kMinTgsPeriod) + ", got " +
        FormatDuration(tgs_period));
  }
  const auto valid = PolicyOptionNames(kind);
  for (const auto& name : explicitly_set) {
    if (std::find(valid.begin(), valid.end(), name) != valid.end()) continue;
    std::string list;
    for (const auto& v : valid) list += (list.empty() ? "" : ", ") + v;
    return InvalidArgumentError(
        "policy option '" + name + "' does not apply to policy '" +
        PolicyName(kind) + "'" +
        (list.empty() ? " (it takes no options)"
                      : " (its options: " + list + ")"));
  }
  return OkStatus();
}

Result<KernelTiming> CheckLaunch(Device& device, const LaunchRequest& r) {
  if (r.kernel == nullptr)
    return InvalidArgumentError("launch without a kernel");
  COLO_ASSIGN_OR_RETURN(KernelTiming t, device.ProfileKernel(*r.kernel));
  const int64_t end = r.end_block < 0 ? t.blocks : r.end_block;
  if (r.first_block < 0 || r.first_block >= end || end > t.blocks) {
    return InvalidArgumentError(
        "kernel '" + r.kernel->name + "': slice [" +
        std::to_string(r.first_block) + ", " + std::to_string(end) +
        ") is empty or outside its " + std::to_string(t.blocks) + " blocks");
  }
  return t;
}

namespace {

std::unique_ptr<Policy> MakeBarePolicy(PolicyKind kind,
                                       const PolicyOptions& options,
                                       Device& device, Executor& executor) {
  switch (kind) {
    case PolicyKind::kMps:
    case PolicyKind::kTimeSlice:
      return std::make_unique<PassthroughPolicy>(device,
                                                 /*priority_by_class=*/false);
    case PolicyKind::kPriorityStreams:
      return std::make_unique<PassthroughPolicy>(device,
                                                 /*priority_by_class=*/true);
    case PolicyKind::kPriority:
      return std::make_unique<PriorityPolicy>(options, device, executor);
    case PolicyKind::kOrion:
      return std::make_unique<OrionPolicy>(options, device);
    case PolicyKind::kTgs:
      return std::make_unique<TgsPolicy>(options, device, executor);
    case PolicyKind::kMpsPriority:
      return std::make_unique<MpsPriorityPolicy>(device);
    case PolicyKind::kReef:
      return std::make_unique<ReefPolicy>(device, executor);
  }
  return nullptr;
}

}  // namespace

std::unique_ptr<Policy> MakePolicy(PolicyKind kind,
                                   const PolicyOptions& options, Device& device,
                                   Executor& executor) {
  std::unique_ptr<Policy> policy =
      MakeBarePolicy(kind, options, device, executor);
  // The priority policy holds a launch on a guess behind its stream itself
  // ("Work ahead"); the others take one at once unless held in front.
  if (kind == PolicyKind::kPriority || policy == nullptr) return policy;
  return std::make_unique<GuessedLaunchHold>(std::move(policy));
}

}  // namespace colo::sched
