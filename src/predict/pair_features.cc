#include "predict/pair_features.h"

#include <algorithm>
#include <cmath>

namespace colo::predict {
namespace {

enum Feature {
  kSmThroughput,
  kDramThroughput,
  kMemoryThroughput,
  kLogThreads,
  kLogRegisters,
  kLogStaticSmem,
  kLogRegsPerThread,
  kSmUtil,
  kMemUtil,
  kMemoryGib,
  kMps50Relative,
  kSmDuty,
  kDramDuty,
  kSmActive,
  kSmOccupancy,
  kDramActive,
  kMpsRel10,  // .. kMpsRel90: relative solo throughput at MPS 10..90 % (curve
              // samples)
  kMpsRel90 = kMpsRel10 + 8,
  kFeatureCount
};

bool IsCurveSample(int f) { return f >= kMpsRel10 && f <= kMpsRel90; }

// Relative throughput of a workload at `share` of the GPU (0..1), by linear
// interpolation of its curve samples (0 at 0 %, 1 at 100 %).
double CurveAt(const std::vector<double>& v, double share) {
  const double pct = std::clamp(share, 0.0, 1.0) * 100.0;
  const int i =
      std::min(9, static_cast<int>(pct / 10.0));  // segment [10 i, 10 (i+1)]
  const double lo = i == 0 ? 0.0 : v[kMpsRel10 + i - 1];
  const double hi = i >= 9 ? 1.0 : v[kMpsRel10 + i];
  return lo + (pct / 10.0 - i) * (hi - lo);
}

// Launch size (registers or threads in flight) from its log feature.
double SizeOf(const std::vector<double>& v, int log_feature) {
  return std::expm1(v[log_feature]);
}

}  // namespace

const std::vector<std::string>& BaseFeatureNames() {
  static const std::vector<std::string> kNames = {
      "sm_throughput", "dram_throughput", "memory_throughput",   "log_threads",
      "log_registers", "log_static_smem", "log_regs_per_thread", "sm_util",
      "mem_util",      "memory_gib",      "mps50_relative",      "sm_duty",
      "dram_duty",     "sm_active",       "sm_occupancy",        "dram_active",
      "mps_rel_10",    "mps_rel_20",      "mps_rel_30",          "mps_rel_40",
      "mps_rel_50",    "mps_rel_60",      "mps_rel_70",          "mps_rel_80",
      "mps_rel_90"};
  return kNames;
}

std::string BaseFeatureSource(int f) {
  switch (f) {
    case kSmThroughput:
      return "kernels.sm_throughput_pct";
    case kDramThroughput:
      return "kernels.dram_throughput_pct";
    case kMemoryThroughput:
      return "kernels.memory_throughput_pct";
    case kLogThreads:
      return "kernels.threads";
    case kLogRegisters:
      return "kernels.registers";
    case kLogStaticSmem:
      return "kernels.static_shared_memory";
    case kLogRegsPerThread:
      return "kernels.registers and kernels.threads";
    case kSmUtil:
      return "system.sm_util_pct";
    case kMemUtil:
      return "system.mem_util_pct";
    case kMemoryGib:
      return "system.memory_used_gib";
    case kMps50Relative:
      return "mps_scaling (points up to 100 %)";
    case kSmDuty:
      return "system.sm_util_pct and kernels.sm_throughput_pct";
    case kDramDuty:
      return "system.sm_util_pct and kernels.dram_throughput_pct";
    case kSmActive:
      return "system.sm_active_pct";
    case kSmOccupancy:
      return "system.sm_occupancy_pct";
    case kDramActive:
      return "system.dram_active_pct";
    default:
      return IsCurveSample(f) ? "mps_scaling (points up to 100 %)" : "?";
  }
}

Result<int> BaseFeatureIndex(std::string_view name) {
  const auto& names = BaseFeatureNames();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return InvalidArgumentError("unknown base feature '" + std::string(name) +
                              "' (known: " + list + ")");
}

std::vector<std::optional<double>> BaseFeatureValues(
    const profile::WorkloadProfile& p) {
  std::vector<std::optional<double>> v(kFeatureCount);
  if (p.kernels) {
    const profile::KernelSummary& k = *p.kernels;
    v[kSmThroughput] = k.sm_throughput_pct / 100.0;
    v[kDramThroughput] = k.dram_throughput_pct / 100.0;
    v[kMemoryThroughput] = k.memory_throughput_pct / 100.0;
    v[kLogThreads] = std::log1p(k.threads);
    v[kLogRegisters] = std::log1p(k.registers);
    v[kLogStaticSmem] = std::log1p(k.static_shared_memory);
    v[kLogRegsPerThread] = std::log1p(k.registers) - std::log1p(k.threads);
  }
  const profile::SystemMetrics& s = p.system;
  if (s.sm_util_pct) v[kSmUtil] = *s.sm_util_pct / 100.0;
  if (s.mem_util_pct) v[kMemUtil] = *s.mem_util_pct / 100.0;
  if (s.memory_used_gib) v[kMemoryGib] = *s.memory_used_gib;
  v[kMps50Relative] = p.RelativeThroughputAt(50);
  if (v[kSmUtil] && v[kSmThroughput])
    v[kSmDuty] = *v[kSmUtil] * *v[kSmThroughput];
  if (v[kSmUtil] && v[kDramThroughput])
    v[kDramDuty] = *v[kSmUtil] * *v[kDramThroughput];
  if (s.sm_active_pct) v[kSmActive] = *s.sm_active_pct / 100.0;
  if (s.sm_occupancy_pct) v[kSmOccupancy] = *s.sm_occupancy_pct / 100.0;
  if (s.dram_active_pct) v[kDramActive] = *s.dram_active_pct / 100.0;
  for (int i = 0; i < 9; ++i)
    v[kMpsRel10 + i] = p.RelativeThroughputAt(10.0 * (i + 1));
  return v;
}

bool IsCurveSampleFeature(int feature) { return IsCurveSample(feature); }

std::string PairTerm::Name() const {
  const auto& n = BaseFeatureNames();
  const char* size = a == kLogThreads ? "threads" : "registers";
  switch (kind) {
    case Kind::kOwn:
      return "own." + n[a];
    case Kind::kPartner:
      return "partner." + n[a];
    case Kind::kProduct:
      return "own." + n[a] + "*partner." + n[b];
    case Kind::kShare:
      return std::string("contention.") + size + "_share";
    case Kind::kMpsAtShare:
      return std::string("contention.mps_at_") + size + "_share";
  }
  return "?";
}

std::vector<int> PairTerm::Needs() const {
  switch (kind) {
    case Kind::kOwn:
    case Kind::kPartner:
      return {a};
    case Kind::kProduct:
      return {a, b};
    case Kind::kShare:
      return {a};
    case Kind::kMpsAtShare: {
      std::vector<int> v = {a};
      for (int f = kMpsRel10; f <= kMpsRel90; ++f) v.push_back(f);
      return v;
    }
  }
  return {};
}

double PairTerm::Value(const std::vector<double>& own,
                       const std::vector<double>& partner) const {
  switch (kind) {
    case Kind::kOwn:
      return own[a];
    case Kind::kPartner:
      return partner[a];
    case Kind::kProduct:
      return own[a] * partner[b];
    case Kind::kShare:
    case Kind::kMpsAtShare: {
      const double so = SizeOf(own, a), sp = SizeOf(partner, a);
      const double share = so + sp > 0 ? so / (so + sp) : 0.5;
      return kind == Kind::kShare ? share : CurveAt(own, share);
    }
  }
  return 0;
}

Result<PairTerm> ParsePairTerm(std::string_view name) {
  auto side = [&](std::string_view part,
                  std::string_view prefix) -> Result<int> {
    if (part.substr(0, prefix.size()) != prefix) {
      return InvalidArgumentError(
          "term '" + std::string(name) + "': expected '" + std::string(prefix) +
          "<feature>', got '" + std::string(part) + "'");
    }
    return BaseFeatureIndex(part.substr(prefix.size()));
  };
  PairTerm t;
  for (PairTerm::Kind k :
       {PairTerm::Kind::kShare, PairTerm::Kind::kMpsAtShare}) {
    for (int f : {kLogRegisters, kLogThreads}) {
      const PairTerm c{k, f, 0};
      if (c.Name() == name) return c;
    }
  }
  const size_t star = name.find('*');
  if (star != std::string_view::npos) {
    t.kind = PairTerm::Kind::kProduct;
    COLO_ASSIGN_OR_RETURN(t.a, side(name.substr(0, star), "own."));
    COLO_ASSIGN_OR_RETURN(t.b, side(name.substr(star + 1), "partner."));
    return t;
  }
  if (name.substr(0, 4) == "own.") {
    COLO_ASSIGN_OR_RETURN(t.a, side(name, "own."));
    return t;
  }
  t.kind = PairTerm::Kind::kPartner;
  COLO_ASSIGN_OR_RETURN(t.a, side(name, "partner."));
  return t;
}

std::vector<PairTerm> PairTermPool(const std::vector<int>& features,
                                   PoolShape shape) {
  std::vector<int> scalar;
  for (int f : features) {
    if (!IsCurveSample(f)) scalar.push_back(f);
  }
  std::vector<PairTerm> pool;
  for (int f : scalar) pool.push_back({PairTerm::Kind::kOwn, f, 0});
  for (int f : scalar) pool.push_back({PairTerm::Kind::kPartner, f, 0});
  for (int f : scalar) {
    for (int g : scalar) {
      if (shape == PoolShape::kFull || f == g)
        pool.push_back({PairTerm::Kind::kProduct, f, g});
    }
  }
  auto have = [&](const std::vector<int>& needs) {
    for (int f : needs) {
      if (std::find(features.begin(), features.end(), f) == features.end())
        return false;
    }
    return true;
  };
  for (PairTerm::Kind k :
       {PairTerm::Kind::kShare, PairTerm::Kind::kMpsAtShare}) {
    for (int f : {kLogRegisters, kLogThreads}) {
      const PairTerm t{k, f, 0};
      if (have(t.Needs())) pool.push_back(t);
    }
  }
  return pool;
}

}  // namespace colo::predict
