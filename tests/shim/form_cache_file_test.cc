// The kernel form cache's file format (form_cache_file.h): what Encode
// writes Decode gives back under the same key and refuses under any other
// key or after any damage; the directory checks; the atomic write.
#include "shim/form_cache_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace colo::shim::form_file {
namespace {

Key MakeKey(std::string_view ptx, int arch, int driver) {
  Key k;
  k.ptx = Sha256(ptx);
  k.arch = arch;
  k.driver_version = driver;
  return k;
}

std::string TempDir() {
  char name[] = "/tmp/colo_form_file_XXXXXX";
  const char* made = mkdtemp(name);
  EXPECT_NE(made, nullptr);
  return made != nullptr ? made : "";
}

TEST(FormCacheFileTest, RoundTripsUnderItsKeyOnly) {
  const Key key = MakeKey(".entry k", 80, 13000);
  const std::string cubin = std::string(
                                "\x7f"
                                "ELF",
                                4) +
                            std::string(300, '\x11');
  const std::string file = Encode(key, cubin);
  // header + cubin, nothing else.
  EXPECT_EQ(file.size(), kHeaderBytes + cubin.size());
  auto back = Decode(key, file);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, cubin);
  EXPECT_FALSE(Decode(MakeKey(".entry k2", 80, 13000), file).ok());
  EXPECT_FALSE(Decode(MakeKey(".entry k", 90, 13000), file).ok());
  EXPECT_FALSE(Decode(MakeKey(".entry k", 80, 13010), file).ok());
  // The name carries the whole key.
  EXPECT_NE(FileName(key), FileName(MakeKey(".entry k", 90, 13000)));
  EXPECT_NE(FileName(key), FileName(MakeKey(".entry k", 80, 13010)));
  EXPECT_NE(FileName(key), FileName(MakeKey(".entry k2", 80, 13000)));
  EXPECT_EQ(FileName(key).find('/'), std::string::npos);
}

TEST(FormCacheFileTest, EveryTruncationAndEveryByteChangeIsRefused) {
  // Each header byte is checked against the key or the content, and the
  // cubin against its SHA-256: no change can pass.
  const Key key = MakeKey("ptx", 86, 12080);
  const std::string file = Encode(key, std::string(200, 'c'));
  for (size_t n = 0; n < file.size(); ++n)
    EXPECT_FALSE(Decode(key, file.substr(0, n)).ok()) << n;
  EXPECT_FALSE(Decode(key, file + "x").ok());
  for (size_t i = 0; i < file.size(); ++i) {
    std::string bad = file;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    EXPECT_FALSE(Decode(key, bad).ok()) << i;
  }
}

TEST(FormCacheFileTest, DirectoryMustBeThisUsersAndPrivate) {
  const std::string root = TempDir();
  const std::string dir = root + "/a/b/forms";
  ASSERT_TRUE(PrepareDirectory(dir).ok());
  struct stat st;
  ASSERT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 077, 0u);          // created 0700
  EXPECT_TRUE(PrepareDirectory(dir).ok());  // again: it exists
  ASSERT_EQ(chmod(dir.c_str(), 0777), 0);
  EXPECT_FALSE(PrepareDirectory(dir).ok());
  ASSERT_EQ(chmod(dir.c_str(), 0700), 0);
  // Not a directory; a relative path.
  const std::string file = root + "/plain_file";
  ASSERT_TRUE(WriteFileAtomically(root, "plain_file", "x").ok());
  EXPECT_FALSE(PrepareDirectory(file).ok());
  EXPECT_FALSE(PrepareDirectory(file + "/under").ok());
  EXPECT_FALSE(PrepareDirectory("relative/forms").ok());
  std::filesystem::remove_all(root);
}

TEST(FormCacheFileTest, AtomicWriteReplacesAndLeavesNoTemporaryFile) {
  const std::string dir = TempDir();
  ASSERT_TRUE(WriteFileAtomically(dir, "f", "first").ok());
  ASSERT_TRUE(WriteFileAtomically(dir, "f", "second, longer").ok());
  auto got = ReadFile(dir, "f", 1 << 20);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, "second, longer");
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);
  EXPECT_EQ(ReadFile(dir, "absent", 1 << 20).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(ReadFile(dir, "f", 3).status().code(),
            StatusCode::kInvalidArgument);
  // A link is not followed.
  ASSERT_EQ(symlink((dir + "/f").c_str(), (dir + "/link").c_str()), 0);
  EXPECT_FALSE(ReadFile(dir, "link", 1 << 20).ok());
  // A directory that does not exist cannot be written.
  EXPECT_FALSE(WriteFileAtomically(dir + "/missing", "f", "x").ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace colo::shim::form_file
