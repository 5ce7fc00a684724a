// runs/run_figures.h — a recorded run's figures as (name, value) pairs, read
// from its result JSON, for comparing runs and exporting them as CSV.
//
// Names are JSON paths: object keys joined by '.', an element of an array of
// objects that have a "name" by that name in brackets
// ("jobs[resnet50].normalized"), any other array element by its index. Only
// numbers are figures (strings, booleans and nulls are not). A "*_ns" key is
// left out where the same object has its "*_ms" or "*_s" copy (the copies
// are what the report prints). Time series ("timeline" arrays) are left out
// unless asked for. Thread-safe (pure functions).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "colo/status.h"

namespace colo::runs {

struct Figure {
  std::string name;
  double value = 0;
};

struct FigureOptions {
  // Include the samples of "timeline" arrays. Default: false.
  bool time_series = false;
};

// The figures of `result_json`, in the document's order. InvalidArgument if
// it is not JSON.
Result<std::vector<Figure>> ExtractFigures(const std::string& result_json,
                                           const FigureOptions& options = {});

}  // namespace colo::runs
