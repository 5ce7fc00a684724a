// shim/sha256.h — SHA-256 (FIPS 180-4), self-contained, for the keys and
// checksums of the kernel form cache (kernel_form_cache.h): a key there
// decides which compiled code a program runs, so it is a cryptographic hash,
// not FNV.
//
// Thread safety: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace colo::shim {

using Sha256Digest = std::array<uint8_t, 32>;

Sha256Digest Sha256(std::string_view data);
// The digest as 64 lower-case hex digits.
std::string Sha256Hex(std::string_view data);
std::string HexDigest(const Sha256Digest& digest);

}  // namespace colo::shim
