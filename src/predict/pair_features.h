// predict/pair_features.h — the features the interference model sees.
//
// A workload is described by base features taken from its solo profile
// (kernel metrics, nvidia-smi/DCGM metrics, MPS scaling). A pair (own,
// partner) is described by terms built from the two base-feature vectors:
// own.f (how the job itself behaves), partner.f (how hard its partner
// presses), and own.f*partner.g (interactions, e.g. a job that needs the
// whole GPU next to a partner with large grids). The model predicts the
// normalized throughput of `own` next to `partner`; the pair's outcome is the
// sum over both directions.
//
// Value types and pure functions; thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"
#include "profile/workload_profile.h"

namespace colo::predict {

// The base features, in a fixed order. Names are stable (saved in models).
//   sm_throughput, dram_throughput, memory_throughput  ncu % / 100
//   log_threads, log_registers, log_static_smem        ln(1 + value)
//   log_regs_per_thread                                 log_registers -
//   log_threads sm_util, mem_util                                   nvidia-smi
//   % / 100 memory_gib                                          peak memory
//   used mps50_relative                                      solo throughput at
//   MPS 50 % / at 100 % sm_duty, dram_duty sm_util x sm / dram throughput
//   sm_active, sm_occupancy, dram_active               DCGM % / 100
//   mps_rel_10 .. mps_rel_90                            solo throughput at MPS
//   p % / at
//                                                       100 % (curve samples;
//                                                       used by the contention
//                                                       terms, not as
//                                                       own/partner)
const std::vector<std::string>& BaseFeatureNames();

// Index of a base feature, or InvalidArgument listing the known names.
Result<int> BaseFeatureIndex(std::string_view name);

// All base features of `p`; a feature whose inputs the profile lacks is
// nullopt.
std::vector<std::optional<double>> BaseFeatureValues(
    const profile::WorkloadProfile& p);

// The profile field a base feature needs, for messages ("kernels.threads").
std::string BaseFeatureSource(int feature);

// True for the mps_rel_* curve samples.
bool IsCurveSampleFeature(int feature);

struct PairTerm {
  enum class Kind { kOwn, kPartner, kProduct, kShare, kMpsAtShare };
  Kind kind = Kind::kOwn;
  int a = 0;  // base feature of own (kOwn, kProduct) or partner (kPartner);
              // kShare, kMpsAtShare: the size feature (log_registers or
              // log_threads).
  int b = 0;  // kProduct: base feature of the partner.

  // "own.sm_util", "partner.log_threads", "own.sm_util*partner.mem_util",
  // "contention.registers_share", "contention.mps_at_threads_share".
  std::string Name() const;
  // Base features the term reads.
  std::vector<int> Needs() const;
  // The term's value given the two base-feature vectors (all needed present).
  double Value(const std::vector<double>& own,
               const std::vector<double>& partner) const;
  bool operator==(const PairTerm& o) const = default;
};

// Parses PairTerm::Name() output. InvalidArgument names the bad part.
Result<PairTerm> ParsePairTerm(std::string_view name);

enum class PoolShape {
  kFull,      // own.f, partner.f, own.f*partner.g for all f, g.
  kDiagonal,  // own.f, partner.f, own.f*partner.f.
};

// The term pool over `features` (curve samples are not used as own/partner
// features), plus the contention terms whose inputs are all in `features`.
std::vector<PairTerm> PairTermPool(const std::vector<int>& features,
                                   PoolShape shape);

}  // namespace colo::predict
