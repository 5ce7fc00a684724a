// runs/run_export.h — one recorded run written out: for people (`colo runs
// show`), as JSON (the whole record) and as CSV (every figure, time series
// included). Thread-safe (pure functions).
#pragma once

#include <string>

#include "colo/status.h"
#include "runs/run_record.h"

namespace colo::runs {

// What, where, when and with what the run ran, the per-request latencies it
// kept (how many of how many, per job), then exactly what its command
// printed. Ends in a newline.
std::string FormatRunShow(const RunRecord& run);

// The record as JSON (format "colo.runs.run/1"): {"format", "id", "batch",
// "kind", "created", "created_unix_ns", "colo_version", "command", "input",
// "input_hash", "input_text" (null without one), "options" (the object),
// "seed", "policy", "gpu", "host", "cpu", "result" (the run's result JSON
// as recorded, time series included), "printed", "latencies": [{"job",
// "run" ("shared" / "solo"), "total", "cap", "sampled" (total > kept),
// "ns": [the kept latencies, completion order]}]}. InvalidArgument if the
// stored result or options are not JSON. Ends in a newline.
Result<std::string> FormatRunExportJson(const RunRecord& run);

// "run_id,figure,value" and a line per figure of ExtractFigures with time
// series, values as the JSON held them, then a line per kept latency,
// named "latencies[JOB].RUN_ns[I]" (I from 0, completion order).
// InvalidArgument as above.
Result<std::string> FormatRunExportCsv(const RunRecord& run);

}  // namespace colo::runs
