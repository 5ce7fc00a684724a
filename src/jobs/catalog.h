// jobs/catalog.h — the job catalog: what each kind of training job costs
// when it runs alone (iteration time, iterations, memory), read from Salus's
// tests/workloads.csv (data/salus/).
//
// Salus's file has no header and CRLF line endings; its five columns are
// `name, jct, mem, env, cmd` (tests/runexp.py): the name
// `<model>_<batch>_<length>`, the solo job completion time in seconds, the
// peak GPU memory in MiB, the iteration count (EXEC_ITER_NUMBER) and the
// tf_cnn_benchmarks command line. Decisions this reader makes:
//
// * Per-iteration time = jct / iterations (the brief's rule; it folds the
//   job's start-up time into its iterations).
// * A name that repeats is renamed after the length its jct says (1, 5 or 10
//   minutes, the closest): the second `vgg16_100_1min` (jct 617.6 s, 912
//   iterations) is the 10-minute variant and reads as `vgg16_100_10min`. A
//   name that still repeats is an error.
// * Persistent vs ephemeral memory (P + E = peak): for each model, a
//   least-squares line of peak memory against batch size over the model's
//   batch sizes; P is the line's intercept (what does not grow with the
//   batch: weights, optimizer state, framework), E = peak - P. P is kept in
//   [10%, 90%] of the peak so that neither part vanishes for a model whose
//   line fits badly. See docs/jobs.md for the figures.
// * Busy fraction (how much of the GPU a job keeps busy alone): samples/s at
//   this batch over samples/s at the model's largest batch, times 0.95 (a
//   large batch still leaves launch gaps). Used by the co-running speed
//   model (speed_model.h).
//
// Thread safety: value types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"
#include "colo/time.h"

namespace colo::jobs {

inline constexpr int64_t kMiB = int64_t{1} << 20;

struct CatalogEntry {
  std::string name;        // "vgg16_100_10min" (after the rename rule above)
  std::string model;       // "vgg16"
  int batch = 0;           // 100
  int length_min = 0;      // 1, 5 or 10: the target duration in minutes
  Duration solo_jct{0};    // measured alone
  int64_t iterations = 0;  // EXEC_ITER_NUMBER
  Duration iteration_time{0};    // solo_jct / iterations
  int64_t peak_bytes = 0;        // peak GPU memory
  int64_t persistent_bytes = 0;  // P (rule above)
  int64_t ephemeral_bytes = 0;   // E = peak - P
  double busy_fraction = 1.0;    // (0, 1], rule above
  int line = 0;                  // where it was read
};

class Catalog {
 public:
  std::string path;  // for messages
  std::vector<CatalogEntry> entries;

  // The entry named `name`, or nullptr.
  const CatalogEntry* Find(std::string_view name) const;
  // NotFound "unknown model 'x' (the catalog <path> has 99 entries, e.g.
  // alexnet_25_1min)" — for readers that name the line themselves.
  Status Unknown(std::string_view name) const;
};

// Parses Salus's workloads.csv text (LF or CRLF). InvalidArgument
// "<path>:<line>: ..." for a row of the wrong width, a jct/mem that is not a
// number > 0, an iteration count that is not an integer > 0, a name not
// of the form model_batch_length, or a name that repeats after the rename.
Result<Catalog> ParseSalusCatalog(std::string_view text, std::string path);

// Reads a file with ParseSalusCatalog; NotFound if it cannot be opened.
Result<Catalog> ReadSalusCatalog(const std::string& path);

}  // namespace colo::jobs
