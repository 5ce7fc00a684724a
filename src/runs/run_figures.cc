#include "runs/run_figures.h"

#include <nlohmann/json.hpp>

namespace colo::runs {
namespace {

using Json = nlohmann::ordered_json;

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() &&
         s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Whether `key` of `object` is a nanosecond figure that the object also
// holds in the unit the report prints.
bool HasPrintedCopy(const Json& object, const std::string& key) {
  if (!EndsWith(key, "_ns")) return false;
  const std::string stem = key.substr(0, key.size() - 3);
  return object.contains(stem + "_ms") || object.contains(stem + "_s");
}

void Walk(const Json& j, const std::string& path, const FigureOptions& options,
          std::vector<Figure>* out) {
  if (j.is_number()) {
    out->push_back({path, j.get<double>()});
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (HasPrintedCopy(j, it.key())) continue;
      if (it.key() == "timeline" && !options.time_series) continue;
      Walk(it.value(), path.empty() ? it.key() : path + "." + it.key(), options,
           out);
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      const Json& e = j[i];
      const bool named =
          e.is_object() && e.contains("name") && e["name"].is_string();
      const std::string index =
          named ? e["name"].get<std::string>() : std::to_string(i);
      Walk(e, path + "[" + index + "]", options, out);
    }
  }
}

}  // namespace

Result<std::vector<Figure>> ExtractFigures(const std::string& result_json,
                                           const FigureOptions& options) {
  const Json j = Json::parse(result_json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    return InvalidArgumentError("a run's result is not JSON");
  std::vector<Figure> out;
  Walk(j, "", options, &out);
  return out;
}

}  // namespace colo::runs
