// Validation and names for experiment/scenario_spec.h.
#include "experiment/scenario_spec.h"

#include <set>
#include <string>

namespace colo::experiment {
namespace {

constexpr struct {
  SharingMode mode;
  const char* name;
} kModeNames[] = {
    {SharingMode::kExclusive, "exclusive"},
    {SharingMode::kTimeSlicing, "time-slicing"},
    {SharingMode::kMps, "mps"},
    {SharingMode::kMig, "mig"},
    {SharingMode::kStreams, "streams"},
};

std::string Quote(const std::string& s) { return "'" + s + "'"; }

// Checks the per-job fields that only some modes allow.
Status ValidateModeFields(const ScenarioSpec& spec) {
  MigTally mig;
  for (const JobSpec& job : spec.jobs) {
    const std::string where = "job " + Quote(job.name) + ": ";
    if (job.mps_active_thread_percentage) {
      if (spec.mode != SharingMode::kMps) {
        return InvalidArgumentError(
            where +
            "mps_active_thread_percentage is only valid in mode mps, not " +
            SharingModeName(spec.mode));
      }
      const double p = *job.mps_active_thread_percentage;
      if (!(p > 0 && p <= 100)) {
        return InvalidArgumentError(
            where + "mps_active_thread_percentage must be in (0, 100], got " +
            std::to_string(p));
      }
    }
    if (spec.mode != SharingMode::kMig) {
      if (!job.mig_profile.empty()) {
        return InvalidArgumentError(
            where + "mig_profile " + Quote(job.mig_profile) +
            " is only valid in mode mig, not " + SharingModeName(spec.mode));
      }
      continue;
    }
    if (job.mig_profile.empty()) {
      return InvalidArgumentError(where +
                                  "mode mig needs a mig_profile for every job");
    }
    // MigSlice lists the GPU's profiles when the name is unknown.
    Result<GpuSpec> slice = spec.gpu.MigSlice(job.mig_profile);
    if (!slice.ok())
      return InvalidArgumentError(where + slice.status().message());
    for (const MigProfile& p : spec.gpu.mig_profiles) {
      if (p.name == job.mig_profile) mig.Add(p);
    }
    if (!mig.FitsOn(spec.gpu)) {
      return InvalidArgumentError(
          where + "the MIG instances do not fit on one " + spec.gpu.name +
          ": up to this job they need " + mig.Need(spec.gpu));
    }
  }
  return OkStatus();
}

}  // namespace

const char* SharingModeName(SharingMode m) {
  for (const auto& entry : kModeNames) {
    if (entry.mode == m) return entry.name;
  }
  return "?";
}

Result<SharingMode> ParseSharingMode(std::string_view name) {
  std::string valid;
  for (const auto& entry : kModeNames) {
    if (name == entry.name) return entry.mode;
    valid += (valid.empty() ? "" : ", ") + std::string(entry.name);
  }
  return InvalidArgumentError("unknown sharing mode '" + std::string(name) +
                              "'; expected one of " + valid);
}

Status PreemptionCosts::Validate() const {
  if (flag_latency.count() < 0) {
    return InvalidArgumentError("preemption: flag_latency must be >= 0, got " +
                                FormatDuration(flag_latency));
  }
  if (!(persistent_overhead >= 0 && persistent_overhead < 1)) {
    return InvalidArgumentError(
        "preemption: persistent_overhead must be in [0, 1), got " +
        std::to_string(persistent_overhead));
  }
  if (persistent_block_cost.count() < 0) {
    return InvalidArgumentError(
        "preemption: persistent_block_cost must be >= 0, got " +
        FormatDuration(persistent_block_cost));
  }
  return OkStatus();
}

Status TimeSliceOptions::Validate() const {
  if (quantum < kMinQuantum) {
    return InvalidArgumentError(
        "time_slice: quantum must be >= " + FormatDuration(kMinQuantum) +
        ", got " + FormatDuration(quantum));
  }
  if (switch_cost.count() < 0) {
    return InvalidArgumentError("time_slice: switch_cost must be >= 0, got " +
                                FormatDuration(switch_cost));
  }
  return OkStatus();
}

std::string PolicyModeConflict(sched::PolicyKind kind, SharingMode mode) {
  return std::string("policy '") + sched::PolicyName(kind) +
         "' decides how the GPU is shared and runs on mode mps, not mode " +
         SharingModeName(mode) +
         " (leave mode out or set mode: mps; the time-slice policy "
         "time-slices the GPU itself)";
}

bool SampleCountIsBounded(Duration duration, Duration interval) {
  if (interval.count() <= 0) return true;  // duration / 50
  return duration.count() / interval.count() < kMaxUtilizationSamples;
}

Status ScenarioSpec::Validate() const {
  const std::string scenario = "scenario " + Quote(name);
  const std::string where = scenario + ": ";
  COLO_RETURN_IF_ERROR(gpu.Validate().WithContext(scenario));
  if (jobs.empty())
    return InvalidArgumentError(where + "needs at least one job");
  if (duration.count() <= 0) {
    return InvalidArgumentError(where + "duration must be > 0, got " +
                                FormatDuration(duration));
  }
  if (sample_interval.count() < 0) {
    return InvalidArgumentError(where + "sample_interval must be >= 0, got " +
                                FormatDuration(sample_interval));
  }
  if (!SampleCountIsBounded(duration, sample_interval)) {
    return InvalidArgumentError(
        where + "sample_interval " + FormatDuration(sample_interval) +
        " over " + FormatDuration(duration) + " gives more than " +
        std::to_string(kMaxUtilizationSamples) + " utilization samples");
  }
  COLO_RETURN_IF_ERROR(time_slice.Validate().WithContext(scenario));
  COLO_RETURN_IF_ERROR(preemption.Validate().WithContext(scenario));
  if (policy) {
    if (mode != SharingMode::kMps) {
      return InvalidArgumentError(where + PolicyModeConflict(*policy, mode));
    }
    COLO_RETURN_IF_ERROR(
        policy_options.Validate(*policy).WithContext(scenario));
  } else if (!policy_options.explicitly_set.empty()) {
    return InvalidArgumentError(where + "policy option '" +
                                policy_options.explicitly_set.front() +
                                "' given without a policy");
  }
  std::set<std::string> names;
  for (const JobSpec& job : jobs) {
    if (job.name.empty())
      return InvalidArgumentError(where + "a job has an empty name");
    if (!names.insert(job.name).second) {
      return InvalidArgumentError(where + "job name " + Quote(job.name) +
                                  " is used twice");
    }
    if (job.start.count() < 0) {
      return InvalidArgumentError(where + "job " + Quote(job.name) +
                                  ": start must be >= 0, got " +
                                  FormatDuration(job.start));
    }
    COLO_RETURN_IF_ERROR(
        job.workload.Validate().WithContext(where + "job " + Quote(job.name)));
  }
  return ValidateModeFields(*this).WithContext(scenario);
}

}  // namespace colo::experiment
