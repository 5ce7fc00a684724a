// runs/run_compare.h — recorded runs side by side: every figure of each,
// its difference from the first run, and whether the difference is beyond
// the seed-to-seed spread.
//
// Repeats of a run are the recorded runs of the same kind, input content and
// options with any seed (RunsStore::Repeats). A figure's spread for a run
// is the range (max - min) of the figure over the run's repeats, known when
// there are at least two of them. A figure of run i moved beyond the spread
// when |value_i - value_0| > max(spread of run 0, spread of run i) over the
// spreads that are known; with none known, nothing is marked.
// Thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "colo/status.h"
#include "runs/run_record.h"
#include "runs/runs_store.h"

namespace colo::runs {

struct ComparedFigure {
  std::string name;
  // One per compared run, in order; none where the run lacks the figure.
  std::vector<std::optional<double>> values;
  // One per run: the figure's spread over that run's repeats (none with
  // fewer than two repeats).
  std::vector<std::optional<double>> spreads;
  // One per run: run i's difference from run 0 is beyond the spread (always
  // false for run 0 and where no spread is known).
  std::vector<bool> moved;
};

struct RunComparison {
  std::vector<RunRecord> runs;          // as RunsStore::Get returns them.
  std::vector<int64_t> repeats;         // per run: how many repeats it has.
  std::vector<ComparedFigure> figures;  // in the first run's order, then new.
};

// Reads runs `ids` (at least one) and their repeats from `store`. NotFound
// for an id that is not there.
Result<RunComparison> CompareRuns(RunsStore& store,
                                  const std::vector<int64_t>& ids);

// As a table for people: a line per run, then a line per figure (all, or
// with `changed_only` those whose values differ), "*" marking a move beyond
// the spread. Ends in a newline.
std::string FormatComparison(const RunComparison& c, bool changed_only);

// As JSON (format "colo.runs.compare/1"): {"format", "runs": [{"id",
// "kind", "input", "policy", "seed", "created", "repeats"}], "figures":
// [{"name", "values", "spreads", "moved"}]}; absent values are null, numbers
// as stored. Ends in a newline.
std::string FormatComparisonJson(const RunComparison& c);

}  // namespace colo::runs
