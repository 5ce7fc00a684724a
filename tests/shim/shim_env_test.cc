// The interposer's environment rules (passthrough_permit.h,
// colod_credentials.h), without the interposer: the permit checked in a
// directory of the test's own, with the test's uid as the operator's.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "shim/colod_credentials.h"
#include "shim/passthrough_permit.h"

namespace colo::shim {
namespace {

class PermitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/colo-permit-XXXXXX";
    dir_ = mkdtemp(tmpl);  // 0700, the test's own
    permit_ = dir_ + "/shim-passthrough";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(mode_t mode) {
    std::ofstream(permit_) << "operator's\n";
    ASSERT_EQ(chmod(permit_.c_str(), mode), 0);
  }
  Status Check() const { return CheckPassthroughPermit(permit_, geteuid()); }

  std::string dir_, permit_;
};

TEST(PermitPathTest, NoDirectoryIsNoPermit) {
  const Status s =
      CheckPassthroughPermit("/nonexistent-colo-dir/shim-passthrough", 0);
  EXPECT_EQ(s.message(),
            "/nonexistent-colo-dir/shim-passthrough does not exist");
}

TEST_F(PermitTest, AnOperatorsFileWritableByNoOneElseIsAPermit) {
  Write(0644);
  EXPECT_TRUE(Check().ok()) << Check().message();
  Write(0400);
  EXPECT_TRUE(Check().ok()) << Check().message();
}

TEST_F(PermitTest, NoFileIsNoPermit) {
  const Status s = Check();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("does not exist"), std::string::npos)
      << s.message();
}

TEST_F(PermitTest, AFileOthersMayWriteIsNoPermit) {
  for (mode_t mode : {0664, 0646, 0666}) {
    Write(mode);
    const Status s = Check();
    EXPECT_FALSE(s.ok()) << std::oct << mode;
    EXPECT_NE(s.message().find("writable by group or others"),
              std::string::npos)
        << s.message();
  }
}

TEST_F(PermitTest, AnotherUsersFileIsNoPermit) {
  Write(0644);
  // The same file, judged for another operator uid.
  const Status s = CheckPassthroughPermit(permit_, geteuid() + 1);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is not owned by uid"), std::string::npos)
      << s.message();
}

TEST_F(PermitTest, ALinkOrADirectoryIsNoPermit) {
  const std::string target = dir_ + "/target";
  std::ofstream(target) << "x";
  ASSERT_EQ(chmod(target.c_str(), 0644), 0);
  ASSERT_EQ(symlink(target.c_str(), permit_.c_str()), 0);
  EXPECT_NE(Check().message().find("symbolic link"), std::string::npos)
      << Check().message();
  ASSERT_EQ(unlink(permit_.c_str()), 0);
  ASSERT_EQ(mkdir(permit_.c_str(), 0755), 0);
  EXPECT_NE(Check().message().find("not a regular file"), std::string::npos)
      << Check().message();
}

TEST_F(PermitTest, AFileInADirectoryOthersMayWriteIsNoPermit) {
  // Whoever may write the directory could put their own file there.
  Write(0644);
  ASSERT_EQ(chmod(dir_.c_str(), 0777), 0);
  EXPECT_FALSE(Check().ok());
  ASSERT_EQ(chmod(dir_.c_str(), 0700), 0);
  EXPECT_TRUE(Check().ok());
}

TEST(ServerUidsTest, OneUidOrAList) {
  std::vector<uid_t> uids;
  ASSERT_TRUE(ParseServerUids("0", &uids));
  EXPECT_EQ(uids, std::vector<uid_t>({0}));
  ASSERT_TRUE(ParseServerUids("998,999", &uids));
  EXPECT_EQ(uids, std::vector<uid_t>({998, 999}));
  ASSERT_TRUE(ParseServerUids("4294967294", &uids));
  EXPECT_EQ(uids, std::vector<uid_t>({4294967294u}));
}

TEST(ServerUidsTest, AnythingElseIsRefusedAndLeavesNone) {
  for (const char* bad : {"", "colod", "-1", " 5", "5 ", "5,", ",5", "1,,2",
                          "4294967295", "99999999999999999999", "0x10"}) {
    std::vector<uid_t> uids = {7};
    EXPECT_FALSE(ParseServerUids(bad, &uids)) << "'" << bad << "'";
    EXPECT_TRUE(uids.empty()) << "'" << bad << "'";
  }
}

TEST(ColodTokenTest, TakenOutOfTheEnvironmentOnceAndKept) {
  // The first call in this process (nothing else here reads the token).
  ASSERT_EQ(setenv("COLO_TOKEN", "op-issued", 1), 0);
  EXPECT_EQ(TakeColodToken(), "op-issued");
  EXPECT_EQ(std::getenv("COLO_TOKEN"), nullptr);
  // Set again later (by the program, say): the interposer keeps its copy
  // and does not take the new one.
  ASSERT_EQ(setenv("COLO_TOKEN", "other", 1), 0);
  EXPECT_EQ(TakeColodToken(), "op-issued");
}

}  // namespace
}  // namespace colo::shim
