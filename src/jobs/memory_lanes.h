// jobs/memory_lanes.h — Salus's memory lanes on one GPU, and the safety
// condition checked on every admission.
//
// Each job declares persistent memory P (resident while the job is admitted:
// weights, optimizer state) and ephemeral memory E (needed only while one of
// its iterations runs). A lane is a region of GPU memory whose jobs run one
// iteration at a time, so a lane needs the Σ P of its jobs plus the max E of
// its jobs. The safety condition over the GPU is
//
//     Σ_jobs pad·P_j + Σ_lanes max_{j in lane} E_j  <=  C - reserve
//
// with pad = 1.10 and reserve = 300 MiB as Salus uses (LaneOptions).
// Admission (Place): a new lane if the condition holds with the job in a lane
// of its own; otherwise the lane where it fits best (the one that leaves the
// least memory free after joining; ties: the lowest lane id); otherwise
// the job waits (nullopt). Pure logic: no clock, no simulator; colod and the
// job simulator use the same class.
//
// Thread safety: thread-compatible (no internal locking).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "colo/status.h"

namespace colo::jobs {

struct JobMemory {
  int64_t persistent_bytes = 0;  // P, as declared (before the pad)
  int64_t ephemeral_bytes = 0;   // E
};

struct LaneOptions {
  // GPU memory, bytes. Default: 16 GiB (a P100, Salus's testbed).
  int64_t capacity_bytes = int64_t{16} << 30;
  // Kept back from admission, bytes. Default: 300 MiB (Salus).
  int64_t reserve_bytes = int64_t{300} << 20;
  // P is counted as P * (1 + persistent_pad). Default: 0.10 (Salus).
  double persistent_pad = 0.10;
  // At most this many lanes; 0: no limit. 1 gives SRTF/FAIR's single lane.
  // Default: 0.
  int max_lanes = 0;
  // Off: a job never joins an occupied lane (FIFO's one job per GPU, MPS's
  // one process per job). Default: on.
  bool share_lanes = true;
  // Off: no check at all (the deliberately unsafe policy); every job gets a
  // lane of its own. Default: on.
  bool check_safety = true;

  // InvalidArgument with a sentence for a negative size, a reserve not below
  // the capacity, a pad outside [0, 1] or a negative max_lanes.
  Status Validate() const;
};

// Where Place would put a job: an existing lane, or a new one.
struct LanePlacement {
  bool new_lane = false;
  int lane = -1;           // the lane id (the id it will get if new)
  int64_t free_after = 0;  // usable memory left after admission, bytes
};

class MemoryLanes {
 public:
  explicit MemoryLanes(LaneOptions options);

  const LaneOptions& options() const { return options_; }
  // C - reserve.
  int64_t usable_bytes() const;
  // P with the pad, rounded up to a byte.
  int64_t PaddedPersistent(const JobMemory& m) const;

  // OK if the job could ever be admitted on an empty GPU: pad·P + E <=
  // C - reserve; otherwise InvalidArgument with the figures ("P 9.1 GiB
  // (10.0 GiB with the 10% pad) + E 8.0 GiB = 18.0 GiB > 15.7 GiB usable
  // (16.0 GiB - 300 MiB reserve)").
  Status CheckFitsAlone(const JobMemory& m) const;

  // Where the job would go (rule in the header comment), without admitting
  // it; nullopt: it must wait. With check_safety off: always a new lane.
  // `may_join`, if given, limits the lanes the job may join (a new lane is
  // always considered).
  std::optional<LanePlacement> Place(
      const JobMemory& m,
      const std::function<bool(int lane)>& may_join = nullptr) const;
  // Place and record the job in that lane; returns the lane id, or nullopt.
  // REQUIRES: job_id is not admitted.
  std::optional<int> Admit(int job_id, const JobMemory& m);
  // Records the job in `lane` (an existing one, or the next new id) with no
  // check: colod and the unsafe policy use it; tests build lanes by hand.
  void AdmitTo(int job_id, const JobMemory& m, int lane);
  // Removes the job; an empty lane disappears. No-op if not admitted.
  void Release(int job_id);
  // Whether the admitted job could leave its shared lane for a new lane of
  // its own with the condition still holding: the GPU's use becomes
  // UsedBytes() - (its lane's max E - that max without it) + its E (its P
  // is counted wherever it is). False for a job alone in its lane, when
  // max_lanes is reached, or with lanes unshared or unchecked.
  bool CanMoveToNewLane(int job_id) const;
  // Moves the job to a new lane (the next id) and returns it.
  // REQUIRES: CanMoveToNewLane(job_id). A job holds its E only during an
  // iteration, so between iterations the move copies nothing.
  int MoveToNewLane(int job_id);

  // Σ pad·P + Σ_lanes max E + the bytes held outside the lanes, bytes:
  // what the safety condition bounds.
  int64_t UsedBytes() const;
  // Memory held on the GPU by work outside the lanes (colod's clients that
  // declare nothing), counted in the safety condition as it is: admission
  // leaves room for it. Default: 0 (the simulator). REQUIRES: bytes >= 0.
  void SetOutsideBytes(int64_t bytes) { outside_bytes_ = bytes; }
  int64_t outside_bytes() const { return outside_bytes_; }
  // Whether UsedBytes() <= usable_bytes().
  bool Safe() const { return UsedBytes() <= usable_bytes(); }
  // Bytes the jobs really hold at most (Σ P + Σ max E, no pad), for the OOM
  // check against the physical capacity.
  int64_t ResidentBytes() const;
  // The lane of an admitted job, or nullopt.
  std::optional<int> LaneOf(int job_id) const;
  // Lane ids in increasing order; the jobs of one lane; its bytes
  // (Σ pad·P + max E).
  std::vector<int> Lanes() const;
  std::vector<int> JobsIn(int lane) const;
  int64_t LaneBytes(int lane) const;
  int lane_count() const { return static_cast<int>(lanes_.size()); }
  int job_count() const { return static_cast<int>(job_lane_.size()); }

 private:
  struct Lane {
    std::map<int, JobMemory> jobs;  // job id -> memory
    int64_t persistent = 0;         // Σ pad·P
    int64_t max_ephemeral = 0;
  };
  void Recompute(Lane& lane) const;

  LaneOptions options_;
  std::map<int, Lane> lanes_;
  std::map<int, int> job_lane_;
  int next_lane_ = 0;
  int64_t persistent_sum_ = 0;  // Σ pad·P over all lanes
  int64_t outside_bytes_ = 0;
};

// "9.1 GiB" / "300 MiB": bytes as the messages and reports write them.
std::string FormatBytes(int64_t bytes);

}  // namespace colo::jobs
