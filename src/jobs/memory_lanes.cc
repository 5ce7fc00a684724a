// jobs/memory_lanes.cc — the safety condition and Salus's admission rule.
#include "jobs/memory_lanes.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>

namespace colo::jobs {

std::string FormatBytes(int64_t bytes) {
  char buf[64];
  const double mib = static_cast<double>(bytes) / (1 << 20);
  if (mib >= 1024.0) {
    std::snprintf(buf, sizeof buf, "%.1f GiB", mib / 1024.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f MiB", mib);
  }
  return buf;
}

Status LaneOptions::Validate() const {
  if (capacity_bytes <= 0) {
    return InvalidArgumentError("GPU memory must be > 0, got " +
                                std::to_string(capacity_bytes) + " bytes");
  }
  if (reserve_bytes < 0 || reserve_bytes >= capacity_bytes) {
    return InvalidArgumentError(
        "lanes.reserve_mib must be >= 0 and below "
        "the GPU's memory (" +
        FormatBytes(capacity_bytes) + "), got " + FormatBytes(reserve_bytes));
  }
  if (!(persistent_pad >= 0 && persistent_pad <= 1)) {
    return InvalidArgumentError(
        "lanes.persistent_pad must be in [0, 1] (0.10 pads P by 10%)");
  }
  if (max_lanes < 0) {
    return InvalidArgumentError("lanes.max_lanes must be >= 0 (0: no limit)");
  }
  return OkStatus();
}

MemoryLanes::MemoryLanes(LaneOptions options) : options_(options) {}

int64_t MemoryLanes::usable_bytes() const {
  return options_.capacity_bytes - options_.reserve_bytes;
}

int64_t MemoryLanes::PaddedPersistent(const JobMemory& m) const {
  return static_cast<int64_t>(
      std::ceil(static_cast<double>(m.persistent_bytes) *
                (1.0 + options_.persistent_pad)));
}

Status MemoryLanes::CheckFitsAlone(const JobMemory& m) const {
  const int64_t p = PaddedPersistent(m);
  if (p + m.ephemeral_bytes <= usable_bytes()) return OkStatus();
  char pad[32];
  std::snprintf(pad, sizeof pad, "%.0f%%", options_.persistent_pad * 100);
  return InvalidArgumentError(
      "P " + FormatBytes(m.persistent_bytes) + " (" + FormatBytes(p) +
      " with the " + pad + " pad) + E " + FormatBytes(m.ephemeral_bytes) +
      " = " + FormatBytes(p + m.ephemeral_bytes) + " > " +
      FormatBytes(usable_bytes()) + " usable (" +
      FormatBytes(options_.capacity_bytes) + " - " +
      FormatBytes(options_.reserve_bytes) +
      " reserve): the job can never be admitted");
}

int64_t MemoryLanes::UsedBytes() const {
  int64_t used = persistent_sum_ + outside_bytes_;
  for (const auto& [id, lane] : lanes_) used += lane.max_ephemeral;
  return used;
}

int64_t MemoryLanes::ResidentBytes() const {
  int64_t used = 0;
  for (const auto& [id, lane] : lanes_) {
    used += lane.max_ephemeral;
    for (const auto& [job, m] : lane.jobs) used += m.persistent_bytes;
  }
  return used;
}

std::optional<LanePlacement> MemoryLanes::Place(
    const JobMemory& m, const std::function<bool(int lane)>& may_join) const {
  if (!options_.check_safety) {
    return LanePlacement{.new_lane = true, .lane = next_lane_, .free_after = 0};
  }
  const int64_t p = PaddedPersistent(m);
  const int64_t used = UsedBytes();
  const int64_t usable = usable_bytes();
  const bool may_open =
      options_.max_lanes == 0 || lane_count() < options_.max_lanes;
  if (may_open && used + p + m.ephemeral_bytes <= usable) {
    return LanePlacement{.new_lane = true,
                         .lane = next_lane_,
                         .free_after = usable - used - p - m.ephemeral_bytes};
  }
  std::optional<LanePlacement> best;
  if (!options_.share_lanes) return best;
  for (const auto& [id, lane] : lanes_) {
    if (may_join && !may_join(id)) continue;
    // Joining raises the lane's max E only if the job's E is larger.
    const int64_t growth =
        std::max<int64_t>(0, m.ephemeral_bytes - lane.max_ephemeral);
    const int64_t after = used + p + growth;
    if (after > usable) continue;
    if (!best || usable - after < best->free_after) {
      best = LanePlacement{
          .new_lane = false, .lane = id, .free_after = usable - after};
    }
  }
  return best;
}

std::optional<int> MemoryLanes::Admit(int job_id, const JobMemory& m) {
  std::optional<LanePlacement> where = Place(m);
  if (!where) return std::nullopt;
  AdmitTo(job_id, m, where->lane);
  return where->lane;
}

void MemoryLanes::Recompute(Lane& lane) const {
  lane.persistent = 0;
  lane.max_ephemeral = 0;
  for (const auto& [job, m] : lane.jobs) {
    lane.persistent += PaddedPersistent(m);
    lane.max_ephemeral = std::max(lane.max_ephemeral, m.ephemeral_bytes);
  }
}

void MemoryLanes::AdmitTo(int job_id, const JobMemory& m, int lane_id) {
  Lane& lane = lanes_[lane_id];
  if (lane_id >= next_lane_) next_lane_ = lane_id + 1;
  lane.jobs[job_id] = m;
  persistent_sum_ -= lane.persistent;
  Recompute(lane);
  persistent_sum_ += lane.persistent;
  job_lane_[job_id] = lane_id;
}

void MemoryLanes::Release(int job_id) {
  auto it = job_lane_.find(job_id);
  if (it == job_lane_.end()) return;
  Lane& lane = lanes_[it->second];
  persistent_sum_ -= lane.persistent;
  lane.jobs.erase(job_id);
  if (lane.jobs.empty()) {
    lanes_.erase(it->second);
  } else {
    Recompute(lane);
    persistent_sum_ += lane.persistent;
  }
  job_lane_.erase(it);
}

bool MemoryLanes::CanMoveToNewLane(int job_id) const {
  if (!options_.check_safety || !options_.share_lanes) return false;
  if (options_.max_lanes != 0 && lane_count() >= options_.max_lanes) {
    return false;
  }
  auto where = job_lane_.find(job_id);
  if (where == job_lane_.end()) return false;
  const Lane& lane = lanes_.at(where->second);
  if (lane.jobs.size() < 2) return false;
  int64_t rest_max_e = 0;
  for (const auto& [job, m] : lane.jobs) {
    if (job != job_id) rest_max_e = std::max(rest_max_e, m.ephemeral_bytes);
  }
  const int64_t after = UsedBytes() - lane.max_ephemeral + rest_max_e +
                        lane.jobs.at(job_id).ephemeral_bytes;
  return after <= usable_bytes();
}

int MemoryLanes::MoveToNewLane(int job_id) {
  assert(CanMoveToNewLane(job_id));
  const int from = job_lane_.at(job_id);
  const JobMemory m = lanes_.at(from).jobs.at(job_id);
  Release(job_id);
  const int to = next_lane_;
  AdmitTo(job_id, m, to);
  return to;
}

std::optional<int> MemoryLanes::LaneOf(int job_id) const {
  auto it = job_lane_.find(job_id);
  if (it == job_lane_.end()) return std::nullopt;
  return it->second;
}

std::vector<int> MemoryLanes::Lanes() const {
  std::vector<int> ids;
  for (const auto& [id, lane] : lanes_) ids.push_back(id);
  return ids;
}

std::vector<int> MemoryLanes::JobsIn(int lane_id) const {
  std::vector<int> ids;
  auto it = lanes_.find(lane_id);
  if (it == lanes_.end()) return ids;
  for (const auto& [job, m] : it->second.jobs) ids.push_back(job);
  return ids;
}

int64_t MemoryLanes::LaneBytes(int lane_id) const {
  auto it = lanes_.find(lane_id);
  if (it == lanes_.end()) return 0;
  return it->second.persistent + it->second.max_ephemeral;
}

}  // namespace colo::jobs
