// shim/form_cache_file.h — the kernel form cache's files on disk (the format
// kernel_form_cache.h describes): naming, encoding and checking one file,
// the directory's checks, and the atomic write.
//
// Thread safety: pure functions and file system calls; concurrent writers
// of one name each write their own temporary file and the last rename
// wins, with equal contents.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "colo/status.h"
#include "shim/sha256.h"

namespace colo::shim::form_file {

inline constexpr uint32_t kFormatVersion = 1;
inline constexpr size_t kHeaderBytes = 96;

struct Key {
  Sha256Digest ptx{};  // SHA-256 of the PTX text compiled
  int arch = 0;
  int driver_version = 0;
};

// "<sha256 hex>.sm<arch>.drv<version>.v<format>.colo-forms".
std::string FileName(const Key& key);

// The file's bytes for `cubin` under `key`.
std::string Encode(const Key& key, std::string_view cubin);

// The cubin in a file's `bytes`, or InvalidArgument saying what does not
// match `key` (magic, format, key, size, checksum).
Result<std::string> Decode(const Key& key, std::string_view bytes);

// Creates `dir` (and its parents) with mode 0700 if absent, then checks it
// is a directory (not a link) owned by this user that no one else may
// write. FailedPrecondition saying why not.
Status PrepareDirectory(const std::string& dir);

// The bytes of `dir`/`name`: NotFound if absent; FailedPrecondition if it
// is not a regular file of this user's; InvalidArgument past `max_bytes`.
Result<std::string> ReadFile(const std::string& dir, const std::string& name,
                             size_t max_bytes);

// Writes `bytes` to a new temporary file in `dir` (mode 0600) and renames
// it over `name`; the temporary file is removed on failure.
Status WriteFileAtomically(const std::string& dir, const std::string& name,
                           std::string_view bytes);

}  // namespace colo::shim::form_file
