// webreport/plan_svg.h — a plan of `colo plan` (place::PlanToJson's JSON) as
// an inline SVG picture: one column per GPU (its index, mode and predicted
// total), a box per job on it (name, high priority marked), and the waiting
// jobs in a row below. Thread-compatible.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "colo/status.h"
#include "webreport/report_model.h"

namespace colo::webreport {

// The picture, with id `id`; boxes = GPUs + jobs placed on them.
// InvalidArgument when `plan` lacks "gpus" or "jobs" arrays.
Result<Picture> PlanPicture(const std::string& id, const nlohmann::json& plan);

// `text` with &, <, >, " and ' escaped for HTML / SVG.
std::string EscapeHtml(const std::string& text);

}  // namespace colo::webreport
