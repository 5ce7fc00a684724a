#include "runtime/class_grants.h"

#include <fstream>

namespace colo::runtime {

bool CgroupIsWithin(const std::string& cgroup, const std::string& prefix) {
  if (prefix.empty() || cgroup.compare(0, prefix.size(), prefix) != 0)
    return false;
  return cgroup.size() == prefix.size() || prefix.back() == '/' ||
         cgroup[prefix.size()] == '/';
}

ClassDecision DecideClass(const std::vector<ClassGrant>& grants,
                          const PeerIdentity& peer, PriorityClass requested,
                          const std::string& token) {
  ClassDecision d;
  if (requested == PriorityClass::kBestEffort) {
    d.reason = "asked for best-effort";
    return d;
  }
  for (const ClassGrant& g : grants) {
    if (g.granted != PriorityClass::kHigh) continue;
    if (g.uid && *g.uid == peer.uid) {
      d.granted = PriorityClass::kHigh;
      d.reason = "granted high by uid " + std::to_string(peer.uid);
      return d;
    }
    if (!g.cgroup.empty() && CgroupIsWithin(peer.cgroup, g.cgroup)) {
      d.granted = PriorityClass::kHigh;
      d.reason = "granted high by cgroup " + g.cgroup;
      return d;
    }
    if (!g.token.empty() && token == g.token) {
      d.granted = PriorityClass::kHigh;
      d.reason = "granted high by operator token";
      return d;
    }
  }
  d.reason = "asked for high, but no grant matches uid " +
             std::to_string(peer.uid) + ", cgroup " +
             (peer.cgroup.empty() ? std::string("(unknown)") : peer.cgroup) +
             (token.empty() ? std::string(" (no token given)")
                            : std::string(" or the token given")) +
             "; running best-effort";
  return d;
}

std::string CgroupOfPid(int32_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  }
  return {};
}

}  // namespace colo::runtime
