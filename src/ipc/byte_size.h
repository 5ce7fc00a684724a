// ipc/byte_size.h — memory sizes as people write them ("2GiB", "512MiB",
// "1.5GiB", "4096"), for the memory a client declares: `colo run
// --memory-persistent 2GiB`, the interposer's COLO_MEMORY_PERSISTENT, and
// colod's `jobs:` config. Units are binary (KiB, MiB, GiB, TiB; "B" or none
// for bytes); "GB"-style decimal units are refused rather than guessed.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "colo/status.h"

namespace colo::ipc {

// The largest size accepted: 1 PiB, far above any GPU and far from int64
// overflow when sizes are added.
inline constexpr int64_t kMaxByteSize = int64_t{1} << 50;

// Bytes of `text`: a non-negative number (a fraction only with a unit:
// "1.5GiB") and an optional unit, rounded down to a byte. InvalidArgument
// "expected a size such as 2GiB or 512MiB, got '<text>'" otherwise, and for
// a size above kMaxByteSize.
Result<int64_t> ParseByteSize(std::string_view text);

}  // namespace colo::ipc
