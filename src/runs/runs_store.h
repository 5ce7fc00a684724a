// runs/runs_store.h — the runs database: every recorded run of colo in one
// SQLite file, for listing, showing, comparing and exporting later.
//
// The file holds a schema version (PRAGMA user_version, kRunsSchemaVersion);
// Open() migrates an older one step by step (runs_schema.h) and refuses a
// newer one. Writers use WAL and wait up to RunsStoreOptions::busy_timeout
// for one another, so several colo processes recording at once lose nothing.
// Commits are durable against a crash of colo (synchronous=NORMAL in WAL:
// a power loss may drop the last runs recorded, never damage the file).
//
// Thread safety: a RunsStore is used by one thread at a time; separate
// stores (in threads or processes) may share a file.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "colo/status.h"
#include "runs/run_record.h"

struct sqlite3;

namespace colo::runs {

struct RunsStoreOptions {
  // Create the file (not its directory) when it does not exist. Default:
  // true. With false, a missing file is NotFound.
  bool create = true;
  // How long to wait for another process's write to finish. Default: 10 s.
  std::chrono::milliseconds busy_timeout{10000};
};

// Which runs List() returns: every set field must match (strings exactly,
// except `input`, a substring of the input's path). Newest first.
struct RunFilter {
  std::string kind = {};
  std::string input = {};
  std::string input_hash = {};  // a prefix of the hash.
  std::string policy = {};
  std::string gpu = {};
  std::string host = {};
  std::optional<int64_t> seed = {};
  std::optional<int64_t> batch = {};
  int64_t limit = 0;  // 0: no limit.
};

class RunsStore {
 public:
  // Opens (or creates) the database at `path` and brings its schema to
  // kRunsSchemaVersion. Errors name the file: NotFound (missing, create
  // false), InvalidArgument (not an SQLite file, damaged, or an SQLite file
  // that is not a runs database), FailedPrecondition (a newer schema),
  // Unavailable (cannot open or write: the directory is missing or
  // read-only).
  static Result<std::unique_ptr<RunsStore>> Open(
      const std::string& path, const RunsStoreOptions& options = {});
  ~RunsStore();
  RunsStore(const RunsStore&) = delete;
  RunsStore& operator=(const RunsStore&) = delete;

  // Records `runs` (one command's runs, e.g. each policy of a comparison) in
  // one transaction: all or none. Sets each run's id and batch (the first
  // run's id) and returns them. `printed` (what the command printed) is
  // stored once for the batch; each run's `printed` is ignored.
  Result<std::vector<int64_t>> Record(std::vector<RunRecord>& runs,
                                      const std::string& printed);

  // The run with this id, every field set. NotFound naming the id and the
  // file when there is none.
  Result<RunRecord> Get(int64_t id);

  // The runs that match, newest first, without their input text, result and
  // printed text (Get() has them).
  Result<std::vector<RunRecord>> List(const RunFilter& filter);

  // The repeats of `run`: the runs of the same kind, input content and
  // options (any seed, `run` itself included), oldest first, every field
  // but the input and printed text set.
  Result<std::vector<RunRecord>> Repeats(const RunRecord& run);

  // How many runs the file holds.
  Result<int64_t> Count();

  const std::string& path() const { return path_; }

 private:
  RunsStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Status Error(const std::string& doing) const;
  sqlite3* db_;
  std::string path_;
};

}  // namespace colo::runs
