// runs/run_context.h — where a run happened and what it read: colo's
// version, the machine, a content hash, the wall clock, and where the runs
// database lives by default. Free functions; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace colo::runs {

// The version of colo this binary was built from (CMake's PROJECT_VERSION).
std::string ColoVersion();

// A 64-bit FNV-1a hash of `bytes`, as 16 lower-case hex digits. Identifies
// a scenario's content; not a cryptographic hash.
std::string ContentHash(std::string_view bytes);

struct MachineInfo {
  std::string host;  // gethostname(); "unknown" if it fails.
  std::string cpu;   // the first "model name" of `cpuinfo_path`; "unknown".
};
// Reads the host name and CPU model. `cpuinfo_path` is a file in the format
// of /proc/cpuinfo (a test passes its own).
MachineInfo DescribeMachine(const std::string& cpuinfo_path = "/proc/cpuinfo");

// Wall-clock time, Unix nanoseconds (for RunRecord::created_unix_ns).
int64_t UnixNanosNow();

// "2026-11-28T05:30:12Z" for a Unix time in nanoseconds (UTC, seconds).
std::string FormatUtc(int64_t unix_ns);

// The default database: $XDG_DATA_HOME/colo/runs.db when XDG_DATA_HOME is
// set to an absolute path, else $HOME/.local/share/colo/runs.db; nullopt
// when neither is usable. `getenv` reads the environment (a test passes its
// own).
std::optional<std::string> DefaultRunsDbPath(
    const std::function<const char*(const char*)>& getenv);

}  // namespace colo::runs
