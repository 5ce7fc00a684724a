// runs/runs_schema.h — the runs database's tables and how a file of an
// older version becomes the current one.
//
// Version N of the schema is what kRunsMigrations[0..N-1] build, each run in
// one transaction that also sets PRAGMA user_version. A file at version 0
// with no tables is new. Tables of version 1:
//
//   batches(id, created_unix_ns, command, printed): one per command that
//     recorded runs; `printed` is what it printed.
//   inputs(hash, text): a scenario / jobs file's content, once per content.
//   runs(id, batch, kind, created_unix_ns, colo_version, input, input_hash,
//     options_json, options_hash, seed, policy, gpu, host, cpu,
//     result_json): one per run; indexed by time, by kind, and by (kind,
//     input_hash, options_hash) for finding repeats.
//
// Version 2 adds:
//
//   latencies(run, job, which, total, cap, ns): per run, job and `which`
//     ("shared" or "solo") run, the job's per-request latencies
//     (JobLatencies): `total` measured, at most `cap` kept, `ns` the kept
//     ones as a BLOB (run_latencies.h). Runs of version 1 have none.
//
// Thread safety: constants only.
#pragma once

#include <array>

namespace colo::runs {

inline constexpr int kRunsSchemaVersion = 2;

// kRunsMigrations[i] turns a version-i file into a version-(i+1) one.
inline constexpr std::array<const char*, kRunsSchemaVersion> kRunsMigrations = {
    R"sql(
CREATE TABLE batches (
  id INTEGER PRIMARY KEY,
  created_unix_ns INTEGER NOT NULL,
  command TEXT NOT NULL,
  printed TEXT NOT NULL
);
CREATE TABLE inputs (
  hash TEXT PRIMARY KEY,
  text TEXT NOT NULL
);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  batch INTEGER NOT NULL REFERENCES batches(id),
  kind TEXT NOT NULL,
  created_unix_ns INTEGER NOT NULL,
  colo_version TEXT NOT NULL,
  input TEXT NOT NULL,
  input_hash TEXT NOT NULL,
  options_json TEXT NOT NULL,
  options_hash TEXT NOT NULL,
  seed INTEGER,
  policy TEXT NOT NULL,
  gpu TEXT NOT NULL,
  host TEXT NOT NULL,
  cpu TEXT NOT NULL,
  result_json TEXT NOT NULL
);
CREATE INDEX runs_by_time ON runs(created_unix_ns);
CREATE INDEX runs_by_kind ON runs(kind);
CREATE INDEX runs_repeats ON runs(kind, input_hash, options_hash);
)sql",
    R"sql(
CREATE TABLE latencies (
  run INTEGER NOT NULL REFERENCES runs(id),
  job TEXT NOT NULL,
  which TEXT NOT NULL,
  total INTEGER NOT NULL,
  cap INTEGER NOT NULL,
  ns BLOB NOT NULL,
  PRIMARY KEY (run, job, which)
);
)sql",
};

}  // namespace colo::runs
