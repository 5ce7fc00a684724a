// runtime/class_grants.h — which priority class colod gives a client.
//
// The identity is what the kernel vouches for (SO_PEERCRED uid and pid; the
// cgroup read from /proc/<pid>/cgroup) plus an optional token the operator
// issued. The requested class is only a wish: a client asking for "high"
// gets it only if a grant in the config matches it; asking for best-effort
// always gets best-effort.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "colo/workload.h"
#include "runtime/daemon_config.h"

namespace colo::runtime {

struct PeerIdentity {
  int32_t pid = 0;
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string cgroup;  // the unified-hierarchy path, e.g. "/user.slice/...".
};

struct ClassDecision {
  PriorityClass granted = PriorityClass::kBestEffort;
  std::string reason;  // for the log: which grant matched, or why none did.
};

// Decides the class for a client with `peer` identity asking for `requested`
// and presenting `token` (may be empty).
ClassDecision DecideClass(const std::vector<ClassGrant>& grants,
                          const PeerIdentity& peer, PriorityClass requested,
                          const std::string& token);

// Whether `cgroup` is `prefix` or below it, by whole path components
// ("/a/infer" is within "/a" but "/a/inference" is not within "/a/infer").
bool CgroupIsWithin(const std::string& cgroup, const std::string& prefix);

// Reads the cgroup path of `pid` ("0::/path" line). Empty if unknown.
std::string CgroupOfPid(int32_t pid);

}  // namespace colo::runtime
