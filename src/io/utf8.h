// io/utf8.h — whether bytes are well-formed UTF-8, so that a name read from a
// user's file can be refused where it was read (file:line) instead of failing
// later, where it is written as JSON. Thread-safe (a pure function).
#pragma once

#include <string_view>

namespace colo::io {

// True when `s` is well-formed UTF-8 (RFC 3629): no stray continuation
// bytes, no truncated sequence, no overlong form, no surrogate (U+D800 to
// U+DFFF), nothing above U+10FFFF. The empty string is well-formed.
bool IsValidUtf8(std::string_view s);

}  // namespace colo::io
