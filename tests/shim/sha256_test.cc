// SHA-256 against the FIPS 180-2 examples (appendix B) and reference
// digests (Python's hashlib) at the padding's block boundaries.
#include "shim/sha256.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace colo::shim {
namespace {

TEST(Sha256Test, FipsExamples) {
  EXPECT_EQ(Sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(
      Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_EQ(Sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256Test, LengthsAroundTheLastBlock) {
  // 55 bytes fit one padded block, 56 need two; 64 is one full block.
  // Each length's digest differs from its neighbours' and is stable.
  std::set<std::string> seen;
  for (size_t n = 50; n <= 130; ++n) {
    const std::string m(n, 'x');
    EXPECT_EQ(Sha256Hex(m), Sha256Hex(std::string(n, 'x')));
    EXPECT_TRUE(seen.insert(Sha256Hex(m)).second) << n;
  }
  // 56 and 64 'a's (two padded blocks; one full block and a padding
  // block), as hashlib.sha256 gives them.
  EXPECT_EQ(Sha256Hex(std::string(56, 'a')),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(Sha256Hex(std::string(64, 'a')),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

}  // namespace
}  // namespace colo::shim
