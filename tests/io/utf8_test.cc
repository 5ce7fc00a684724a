// io/utf8.h against RFC 3629's rules, each case a sequence that is or is not
// well-formed for a stated reason.
#include "io/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace colo::io {
namespace {

TEST(Utf8Test, WellFormedSequencesOfEveryLength) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("caf\xC3\xA9"));           // U+00E9, 2 bytes
  EXPECT_TRUE(IsValidUtf8("\xE2\x82\xAC"));          // U+20AC, 3 bytes
  EXPECT_TRUE(IsValidUtf8("\xF0\x9F\x98\x80"));      // U+1F600, 4 bytes
  EXPECT_TRUE(IsValidUtf8("\xF4\x8F\xBF\xBF"));      // U+10FFFF, the last
  EXPECT_TRUE(IsValidUtf8(std::string("a\0b", 3)));  // NUL is U+0000
}

TEST(Utf8Test, MalformedSequencesAreRefused) {
  EXPECT_FALSE(IsValidUtf8("caf\xE9"));               // Latin-1, not UTF-8
  EXPECT_FALSE(IsValidUtf8("\x80"));                  // a continuation first
  EXPECT_FALSE(IsValidUtf8("\xC3"));                  // truncated at the end
  EXPECT_FALSE(IsValidUtf8("\xE2\x82"));              // truncated at the end
  EXPECT_FALSE(IsValidUtf8("\xC3(x"));                // no continuation byte
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));              // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xE0\x80\xAF"));          // overlong '/', 3 bytes
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));          // U+D800, a surrogate
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));      // U+110000, past the end
  EXPECT_FALSE(IsValidUtf8("\xF8\x88\x80\x80\x80"));  // 5-byte form
  EXPECT_FALSE(IsValidUtf8("\xFF"));
}

}  // namespace
}  // namespace colo::io
