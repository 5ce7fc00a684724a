// profile/arrival_trace.h — request arrival traces for inference workloads.
//
// Two formats, told apart by the file's first non-space character:
//
//   '['  a JSON array of inter-arrival times in seconds, as Orion's
//        artifact_evaluation/fig10/inter_arrival_times.json (copy in
//        data/orion/). Arrival i is at the sum of the first i + 1 gaps, so the
//        first arrival is at the first gap, not at 0.
//   else text: one arrival timestamp in seconds per line, from the start of
//        the run. Blank lines and '#' comments (to the end of the line) are
//        skipped; further comma-separated fields on a line are ignored (so a
//        CSV whose first column is the timestamp reads as well); line 1 may be
//        a header that is not a number. Timestamps are returned as given
//        (not shifted to start at 0).
//
// Either way the result is a non-empty, non-decreasing list of offsets from
// the start, each rounded to whole nanoseconds, ready for
// ArrivalSpec::offsets (kind kTrace). For the JSON form the gaps are rounded
// first and summed in integer ns, so offsets[i] - offsets[i-1] equals gap i
// rounded, with no floating-point drift over long traces.
//
// Thread safety: thread-compatible (no shared state).
#pragma once

#include <string>
#include <vector>

#include "colo/status.h"
#include "colo/time.h"

namespace colo::profile {

// Reads the arrival trace at `path` (format above).
// On success: the arrival offsets, non-decreasing, at least one.
// On failure:
//   NotFound         the file cannot be opened;
//   InvalidArgument  the trace is empty; a value is not a finite number, is
//                    negative, or (text) is smaller than the one before; the
//                    JSON does not parse or is not an array of numbers.
//                    Messages name the file and the line ("<path>:7: ...")
//                    or the array index ("<path>: [12]: ...").
Result<std::vector<Duration>> LoadArrivalTrace(const std::string& path);

}  // namespace colo::profile
