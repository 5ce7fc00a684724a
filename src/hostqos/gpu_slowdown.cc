#include "hostqos/gpu_slowdown.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

namespace colo::hostqos {

Result<ClassDeviceTime> HighClassDeviceTime(std::string_view stats_json) {
  const nlohmann::json j = nlohmann::json::parse(stats_json, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return InvalidArgumentError("colod's statistics are not a JSON object");
  }
  const auto classes = j.find("classes");
  if (classes == j.end() || !classes->is_object() ||
      !classes->contains("high") || !(*classes)["high"].is_object()) {
    return InvalidArgumentError(
        "colod's statistics have no object classes.high");
  }
  const nlohmann::json& high = (*classes)["high"];
  ClassDeviceTime t;
  for (auto [key, out] :
       {std::pair<const char*, double*>{"device_ms", &t.device_ms},
        {"solo_ms", &t.solo_ms}}) {
    const auto v = high.find(key);
    if (v == high.end() || !v->is_number() || v->get<double>() < 0) {
      return InvalidArgumentError(std::string("colod's statistics: ") +
                                  "classes.high." + key +
                                  " is not a non-negative number");
    }
    *out = v->get<double>();
  }
  return t;
}

std::optional<double> GpuSlowdownWindow::Next(const ClassDeviceTime& now) {
  const std::optional<ClassDeviceTime> last = last_;
  last_ = now;
  if (!last || now.device_ms < last->device_ms || now.solo_ms < last->solo_ms) {
    return std::nullopt;
  }
  const double solo = now.solo_ms - last->solo_ms;
  if (solo <= 0) return 0.0;
  return std::max(0.0, (now.device_ms - last->device_ms) / solo - 1);
}

}  // namespace colo::hostqos
