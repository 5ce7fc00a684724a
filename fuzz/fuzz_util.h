// fuzz/fuzz_util.h — what every fuzzer of fuzz/ shares: the fuzz input as
// text, a private temporary folder for readers that take a path, and the
// check that turns a broken promise into a crash libFuzzer reports.
//
// Files go under $TMPDIR (else /tmp), never into the checkout; the folder is
// removed when the process exits normally (a crash leaves it; scripts/fuzz.sh
// points TMPDIR into its own work folder). Not thread-safe: call from the
// fuzzer's thread.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace colo::fuzz {

// The repository (the source folder CMake was configured from) and its
// published data (COLO_DATA_DIR). Read only.
inline constexpr const char* kSourceDir = COLO_SOURCE_DIR;
inline constexpr const char* kDataDir = COLO_DATA_DIR;

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// The process's temporary folder, made on first use ("colo-fuzz-XXXXXX").
// Aborts if it cannot be made.
const std::string& TempDir();

// Writes `data` to TempDir()/`name` (replacing it; `name` may hold
// folders, made as needed) and returns the path. Aborts if it cannot.
std::string WriteTempFile(const std::string& name, std::string_view data);

// Reads a whole file (of the repository, for a fixed companion input).
// Aborts if it cannot.
std::string ReadWholeFile(const std::string& path);

// Prints "colo fuzz: <what>" on stderr and aborts: libFuzzer saves the input
// as a crash.
[[noreturn]] void Fail(const std::string& what);

// Whether a number a reader accepted is finite (an absent one is).
inline bool Finite(double x) { return std::isfinite(x); }
inline bool Finite(const std::optional<double>& x) {
  return !x || std::isfinite(*x);
}

// Fail(what) unless `ok`.
inline void Check(bool ok, const std::string& what) {
  if (!ok) Fail(what);
}

}  // namespace colo::fuzz
