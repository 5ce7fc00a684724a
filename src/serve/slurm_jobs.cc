#include "serve/slurm_jobs.h"

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

namespace colo::serve {
namespace {

// "0-1,3" -> {0, 1, 3}; false on anything else (an empty list included).
bool ParseIndexList(const std::string& text, std::set<int>* out) {
  static const std::regex kRange("([0-9]{1,4})(?:-([0-9]{1,4}))?");
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::smatch m;
    const std::string part = text.substr(start, end - start);
    if (!std::regex_match(part, m, kRange)) return false;
    const int lo = std::atoi(m[1].str().c_str());
    const int hi = m[2].matched ? std::atoi(m[2].str().c_str()) : lo;
    if (hi < lo) return false;
    for (int i = lo; i <= hi; ++i) out->insert(i);
    start = end + 1;
  }
  return !out->empty();
}

std::string StringField(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

bool ParseGresDetail(const std::string& detail, std::vector<int>* gpus,
                     int* shards) {
  // NAME[:TYPE]:COUNT(IDX:LIST), items separated by commas outside the
  // parentheses (LIST has commas of its own).
  static const std::regex kItem(
      R"(^,?(gpu|shard)(?::([A-Za-z0-9_.-]+))?:([0-9]+)\(IDX:([0-9,-]*)\))");
  std::set<int> held;
  int most_shards = 0;
  bool whole = false;
  std::string rest = detail;
  while (!rest.empty()) {
    std::smatch m;
    if (!std::regex_search(rest, m, kItem)) {
      // Another resource than gpu or shard: skip to its end.
      const size_t close = rest.find(')');
      if (close == std::string::npos) break;
      rest = rest.substr(close + 1);
      continue;
    }
    const int count = std::atoi(m[3].str().c_str());
    if (count > 0) {
      if (!ParseIndexList(m[4].str(), &held)) return false;
      if (m[1] == "shard") {
        most_shards = std::max(most_shards, count);
      } else {
        whole = true;
      }
    }
    rest = m.suffix().str();
  }
  if (held.empty()) return false;
  gpus->assign(held.begin(), held.end());
  // A job holding whole GPUs holds them whole, whatever else it has.
  *shards = whole ? 0 : most_shards;
  return true;
}

Result<SlurmView> ParseSqueueJson(const std::string& text,
                                  const std::string& source) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("jobs") ||
      !j["jobs"].is_array()) {
    return InvalidArgumentError(
        source +
        ": expected squeue --json output (an object with a \"jobs\" list)");
  }
  static const std::regex kTag(R"(colo\[(c[0-9]+)\])");
  // Job states after which a job holds nothing (Slurm's job_state names).
  static const std::set<std::string> kFinished = {
      "COMPLETED", "CANCELLED", "FAILED",   "TIMEOUT",      "NODE_FAIL",
      "PREEMPTED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY"};
  SlurmView out;
  for (const nlohmann::json& e : j["jobs"]) {
    if (!e.is_object()) continue;
    const std::string state = StringField(e, "job_state");
    if (kFinished.count(state)) continue;
    const std::string comment = StringField(e, "comment");
    std::smatch tag;
    const bool tagged = std::regex_search(comment, tag, kTag);
    if (tagged) out.placements.push_back(tag[1].str());
    if (state != "RUNNING") continue;
    auto detail = e.find("gres_detail");
    // One entry per node: a job on several nodes is not colo's to count.
    if (detail == e.end() || !detail->is_array() || detail->size() != 1 ||
        !(*detail)[0].is_string())
      continue;
    SlurmJob job;
    job.node = StringField(e, "nodes");
    if (job.node.empty() || job.node.find_first_of(",[") != std::string::npos)
      continue;
    if (!ParseGresDetail((*detail)[0].get<std::string>(), &job.gpus,
                         &job.shards))
      continue;
    if (auto id = e.find("job_id"); id != e.end() && id->is_number_integer())
      job.job_id = std::to_string(id->get<int64_t>());
    job.name = StringField(e, "name");
    if (tagged) job.placement = tag[1].str();
    out.running.push_back(std::move(job));
  }
  return out;
}

}  // namespace colo::serve
