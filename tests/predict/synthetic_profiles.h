// tests/predict/synthetic_profiles.h — eight made-up workload profiles with
// distinct kernel and system metrics (no two alike in any feature), for
// tests that train on labels computed from the profiles.
#pragma once

#include <string>
#include <vector>

#include "profile/workload_profile.h"

namespace colo::predict::testing {

inline std::vector<profile::WorkloadProfile> EightSyntheticProfiles() {
  std::vector<profile::WorkloadProfile> out;
  for (int i = 0; i < 8; ++i) {
    profile::WorkloadProfile p;
    p.name = "w" + std::to_string(i);
    profile::KernelSummary k;
    k.threads = 1000.0 * (1 + i * i);
    k.registers = k.threads * (32 + 8 * (i % 3));
    k.static_shared_memory = 100.0 * i;
    k.sm_throughput_pct = 20 + 9 * i;
    k.dram_throughput_pct = 70 - 6 * i + (i % 2) * 5;
    k.memory_throughput_pct = 50 + 3 * ((i * 5) % 7);
    p.kernels = k;
    p.system.sm_util_pct = 10 + 11 * ((i * 3) % 8);
    p.system.mem_util_pct = 5 + 4 * i;
    p.system.memory_used_gib = 1 + i;
    p.solo_throughput = 100;
    out.push_back(p);
  }
  return out;
}

}  // namespace colo::predict::testing
