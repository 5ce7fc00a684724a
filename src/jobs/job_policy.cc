// jobs/job_policy.cc — policy names.
#include "jobs/job_policy.h"

#include <algorithm>

namespace colo::jobs {
namespace {

constexpr JobPolicyKind kAll[] = {
    JobPolicyKind::kFifo, JobPolicyKind::kSrtf, JobPolicyKind::kPack,
    JobPolicyKind::kFair, JobPolicyKind::kColo, JobPolicyKind::kPackUnsafe,
    JobPolicyKind::kMps};

}  // namespace

std::string_view JobPolicyName(JobPolicyKind kind) {
  switch (kind) {
    case JobPolicyKind::kFifo:
      return "fifo";
    case JobPolicyKind::kSrtf:
      return "srtf";
    case JobPolicyKind::kPack:
      return "pack";
    case JobPolicyKind::kFair:
      return "fair";
    case JobPolicyKind::kColo:
      return "colo";
    case JobPolicyKind::kPackUnsafe:
      return "pack-unsafe";
    case JobPolicyKind::kMps:
      return "mps";
  }
  return "?";
}

Result<JobPolicyKind> ParseJobPolicy(std::string_view name) {
  for (JobPolicyKind k : kAll) {
    if (JobPolicyName(k) == name) return k;
  }
  return InvalidArgumentError(
      "unknown job policy '" + std::string(name) +
      "' (expected one of fifo, srtf, pack, fair, colo, pack-unsafe, mps)");
}

Result<std::vector<JobPolicyKind>> ParseJobPolicyList(std::string_view text) {
  if (text == "all") {
    return std::vector<JobPolicyKind>(std::begin(kAll), std::end(kAll) - 1);
  }
  std::vector<JobPolicyKind> kinds;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string_view one = text.substr(
        start, comma == std::string_view::npos ? comma : comma - start);
    COLO_ASSIGN_OR_RETURN(JobPolicyKind k, ParseJobPolicy(one));
    if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) {
      kinds.push_back(k);
    }
    if (comma == std::string_view::npos) return kinds;
    start = comma + 1;
  }
}

bool PolicyHasLanes(JobPolicyKind kind) {
  return kind == JobPolicyKind::kPack || kind == JobPolicyKind::kColo ||
         kind == JobPolicyKind::kPackUnsafe;
}

}  // namespace colo::jobs
