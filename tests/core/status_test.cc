#include "colo/status.h"

#include <gtest/gtest.h>

namespace colo {
namespace {

Result<int> Half(int x) {
  if (x % 2) return InvalidArgumentError(std::to_string(x) + " is odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  COLO_ASSIGN_OR_RETURN(int h, Half(x));
  COLO_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status CheckEven(int x) {
  COLO_RETURN_IF_ERROR(Half(x).status());
  return OkStatus();
}

TEST(StatusTest, OkAndErrorsCarryCodeAndMessage) {
  EXPECT_TRUE(OkStatus().ok());
  Status s = NotFoundError("no such GPU");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.ToString(), "not found: no such GPU");
  EXPECT_EQ(s.WithContext("a.yaml").message(), "a.yaml: no such GPU");
}

TEST(StatusTest, MacrosPropagateTheFirstError) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> r = Quarter(6);  // 6 -> 3, then 3 is odd.
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "3 is odd");
  EXPECT_TRUE(CheckEven(4).ok());
  EXPECT_EQ(CheckEven(5).code(), StatusCode::kInvalidArgument);
}

// A message quoting user text stays one line: control characters become C
// escapes, everything else (UTF-8 included) is kept.
TEST(StatusTest, EscapeControlCharacters) {
  EXPECT_EQ(EscapeControlCharacters("plain ü text"), "plain ü text");
  EXPECT_EQ(EscapeControlCharacters(std::string("a\nb\tc\rd\0e\x7f\x1b", 11)),
            "a\\nb\\tc\\rd\\x00e\\x7f\\x1b");
  EXPECT_FALSE(HasControlCharacter("plain ü text"));
  EXPECT_TRUE(HasControlCharacter(std::string("a\0b", 3)));
  EXPECT_TRUE(HasControlCharacter("\x7f"));
}

}  // namespace
}  // namespace colo
