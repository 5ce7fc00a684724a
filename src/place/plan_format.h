// place/plan_format.h — a Plan as text for people (one block per GPU, then
// waiting jobs, then totals) and as JSON for programs. Pure functions.
#pragma once

#include <string>

#include "place/planner.h"

namespace colo::place {

std::string FormatPlanTable(const Plan& plan);
std::string PlanToJson(const Plan& plan);

}  // namespace colo::place
