// What a run records about where it ran: hash, machine, time, default path.
#include "runs/run_context.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

namespace colo::runs {
namespace {

TEST(RunContextTest, ContentHashIsFnv1a64) {
  // The published FNV-1a 64-bit test vectors: "" hashes to the offset
  // basis, "a" and "foobar" to these.
  EXPECT_EQ(ContentHash(""), "cbf29ce484222325");
  EXPECT_EQ(ContentHash("a"), "af63dc4c8601ec8c");
  EXPECT_EQ(ContentHash("foobar"), "85944171f73967e8");
}

TEST(RunContextTest, FormatUtcIsIso8601) {
  EXPECT_EQ(FormatUtc(0), "1970-01-01T00:00:00Z");
  // 86400 s + 3661 s = 2 Jan 1970, 01:01:01.
  EXPECT_EQ(FormatUtc((86400LL + 3661) * 1000000000 + 999),
            "1970-01-02T01:01:01Z");
}

TEST(RunContextTest, DefaultPathFollowsXdgThenHome) {
  std::map<std::string, std::string> env;
  auto getenv = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  EXPECT_FALSE(DefaultRunsDbPath(getenv).has_value());
  env["HOME"] = "/home/u";
  EXPECT_EQ(DefaultRunsDbPath(getenv), "/home/u/.local/share/colo/runs.db");
  env["XDG_DATA_HOME"] = "relative/dir";  // invalid by the XDG spec: ignored
  EXPECT_EQ(DefaultRunsDbPath(getenv), "/home/u/.local/share/colo/runs.db");
  env["XDG_DATA_HOME"] = "/data";
  EXPECT_EQ(DefaultRunsDbPath(getenv), "/data/colo/runs.db");
}

TEST(RunContextTest, MachineReadsTheCpuModel) {
  const std::string path =
      ::testing::TempDir() + "/cpuinfo_" + std::to_string(::getpid());
  std::ofstream(path) << "processor\t: 0\nvendor_id\t: X\n"
                         "model name\t: Test CPU @ 1.00GHz\n"
                         "processor\t: 1\nmodel name\t: Other\n";
  const MachineInfo m = DescribeMachine(path);
  EXPECT_EQ(m.cpu, "Test CPU @ 1.00GHz");
  EXPECT_FALSE(m.host.empty());
  EXPECT_EQ(DescribeMachine(path + ".missing").cpu, "unknown");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace colo::runs
