// PlacementService::Handle: the JSON-lines protocol of `colo serve`. Kept
// apart from the placement rules so that each file holds one idea.
#include <nlohmann/json.hpp>

#include "serve/placement_service.h"

namespace colo::serve {
namespace {

using Json = nlohmann::ordered_json;

// The answer's keys in a fixed order with "reason" last, so that a client
// without a JSON library (Slurm's Lua) can read it with patterns.
std::string Error(const std::string& msg) {
  Json j;
  j["ok"] = false;
  j["error"] = msg;
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Reads an optional field of `want` type; false (and *error set) if it is
// present with another type.
template <typename T>
bool Field(const Json& req, const char* key, T* out, std::string* error) {
  auto it = req.find(key);
  if (it == req.end() || it->is_null()) return true;
  try {
    *out = it->get<T>();
    return true;
  } catch (const Json::exception&) {
    *error = std::string("field '") + key + "' has the wrong type";
    return false;
  }
}

std::string AnswerPlace(PlacementService& service, const Json& req,
                        TimePoint now) {
  PlaceRequest r;
  std::string cls = "best-effort", error;
  double memory = 0;
  bool explain = false;
  if (!Field(req, "name", &r.name, &error) ||
      !Field(req, "user", &r.user, &error) ||
      !Field(req, "account", &r.account, &error) ||
      !Field(req, "class", &cls, &error) ||
      !Field(req, "gpus", &r.gpus, &error) ||
      !Field(req, "shards", &r.shards, &error) ||
      !Field(req, "profile", &r.profile, &error) ||
      !Field(req, "dry_run", &r.dry_run, &error) ||
      !Field(req, "explain", &explain, &error) ||
      !Field(req, "memory_gib", &memory, &error)) {
    return Error(error);
  }
  if (cls == "high") {
    r.requested = PriorityClass::kHigh;
  } else if (cls != "best-effort" && !cls.empty()) {
    return Error("class '" + cls + "' is not high or best-effort");
  }
  if (req.contains("memory_gib") && !req["memory_gib"].is_null()) {
    if (!(memory > 0)) return Error("memory_gib must be > 0");
    r.memory_gib = memory;
  }
  Result<PlaceAnswer> a = service.Place(r, now);
  if (!a.ok()) return Error(a.status().message());
  Json j;
  j["ok"] = !a->rejected;
  if (a->rejected) {
    j["reject"] = a->reason;
    return j.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  j["id"] = a->id;
  j["node"] = a->node;
  j["gpus"] = a->gpus;
  j["granted"] = a->granted == PriorityClass::kHigh ? "high" : "best-effort";
  j["source"] = a->source;
  j["grant_reason"] = a->grant_reason;
  j["gres"] = a->gres;
  if (explain) {
    Result<std::string> y = service.Explain(r);
    if (!y.ok()) return Error(y.status().message());
    j["jobs_yaml"] = *y;
  }
  j["reason"] = a->reason;
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string AnswerState(const PlacementService& service) {
  Json j;
  j["ok"] = true;
  Json jobs = Json::array();
  for (const PlacedJob& p : service.jobs()) {
    Json o;
    o["id"] = p.id;
    o["name"] = p.name;
    o["class"] =
        p.request.priority == PriorityClass::kHigh ? "high" : "best-effort";
    o["profile"] = p.request.profile.name;
    o["shards"] = p.shards;
    // "colo": placed by this service; "slurm": a running job Slurm placed
    // itself (PlacementService::Observe).
    o["placed_by"] = p.from_slurm ? "slurm" : "colo";
    Json gpus = Json::array();
    for (int g : p.gpus) {
      const auto [node, local] = service.NodeOf(g);
      gpus.push_back({{"node", node}, {"gpu", local}});
    }
    o["gpus"] = gpus;
    jobs.push_back(o);
  }
  j["jobs"] = jobs;
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

std::string PlacementService::Handle(const std::string& line, TimePoint now) {
  try {
    const Json req = Json::parse(line, nullptr, false);
    if (req.is_discarded() || !req.is_object())
      return Error("a request is one JSON object on one line");
    const std::string op = req.contains("op") && req["op"].is_string()
                               ? req["op"].get<std::string>()
                               : "";
    if (op == "place") return AnswerPlace(*this, req, now);
    if (op == "state") return AnswerState(*this);
    if (op == "ping") return R"({"ok":true})";
    if (op == "forget") {
      std::string id, error;
      if (!Field(req, "id", &id, &error)) return Error(error);
      return Forget(id) ? R"({"ok":true})"
                        : Error("no placement with id '" + id + "'");
    }
    if (op == "retain") {
      std::vector<std::string> ids;
      std::string error;
      if (!Field(req, "ids", &ids, &error)) return Error(error);
      Json j;
      j["ok"] = true;
      j["dropped"] = Retain(ids, now, Seconds(30));
      return j.dump();
    }
    return Error("unknown op '" + op +
                 "' (expected place, state, forget, retain or ping)");
  } catch (const std::exception& e) {
    return Error(std::string("internal error: ") + e.what());
  }
}

}  // namespace colo::serve
