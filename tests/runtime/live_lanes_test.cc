// Memory lanes for colod's live clients, without processes: sizes as
// people write them, the `jobs:` config section, and LiveLanes's admission
// (the safety condition Σ pad·P + Σ_lanes max E <= C - reserve) and turns
// at iteration boundaries under fifo, fair and pack (priority, srtf and
// colo: live_lanes_policy_test.cc).
#include "runtime/live_lanes.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "ipc/byte_size.h"
#include "jobs/memory_lanes.h"
#include "live_lanes_test_util.h"
#include "runtime/daemon_config.h"

namespace colo::runtime {
namespace {

using testing::At;
using testing::kMiB;
using testing::Lanes;

TEST(ByteSizeTest, ReadsBinaryUnitsAndRefusesTheRest) {
  EXPECT_EQ(*ipc::ParseByteSize("2GiB"), int64_t{2} << 30);
  EXPECT_EQ(*ipc::ParseByteSize("512MiB"), 512 * kMiB);
  EXPECT_EQ(*ipc::ParseByteSize("512 MiB"), 512 * kMiB);
  // 1.5 x 2^30 = 1610612736.
  EXPECT_EQ(*ipc::ParseByteSize("1.5GiB"), 1610612736);
  EXPECT_EQ(*ipc::ParseByteSize("4096"), 4096);
  EXPECT_EQ(*ipc::ParseByteSize("4KiB"), 4096);
  EXPECT_EQ(*ipc::ParseByteSize("0"), 0);
  for (const char* bad : {"", "2GB", "2 gb", "-1", "1.5", "GiB", "0x10",
                          "1.GiB", "2GiBs", "99999999999999999GiB"}) {
    Result<int64_t> r = ipc::ParseByteSize(bad);
    EXPECT_FALSE(r.ok()) << bad;
  }
  EXPECT_NE(ipc::ParseByteSize("2GB").status().message().find("'2GB'"),
            std::string::npos);
  // 1 PiB is the most; 1025 TiB is above it.
  EXPECT_TRUE(ipc::ParseByteSize("1024TiB").ok());
  EXPECT_FALSE(ipc::ParseByteSize("1025TiB").ok());
}

class ConfigFile {
 public:
  explicit ConfigFile(const std::string& text) {
    char tmpl[] = "/tmp/colo-lanes-XXXXXX";
    const int fd = mkstemp(tmpl);
    close(fd);
    path_ = tmpl;
    std::ofstream(path_) << text;
  }
  ~ConfigFile() { unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(LanesConfigTest, ReadsTheJobsSection) {
  ConfigFile f(
      "gpu: A100\n"
      "jobs:\n"
      "  policy: pack\n"
      "  max_lanes: 2\n"
      "  reserve_mib: 100\n"
      "  persistent_pad: 0.2\n"
      "  declare:\n"
      "    - {program: train, persistent: 2GiB, ephemeral: 512MiB}\n"
      "    - {uid: 1000, persistent: 1GiB, ephemeral: 0}\n");
  Result<DaemonConfig> c = LoadDaemonConfig(f.path());
  ASSERT_TRUE(c.ok()) << c.status().message();
  const LanesConfig& l = c->lanes;
  EXPECT_TRUE(l.enabled);
  EXPECT_EQ(l.policy, jobs::JobPolicyKind::kPack);
  EXPECT_EQ(l.lanes.max_lanes, 2);
  EXPECT_EQ(l.lanes.reserve_bytes, 100 * kMiB);
  EXPECT_DOUBLE_EQ(l.lanes.persistent_pad, 0.2);
  ASSERT_EQ(l.declare.size(), 2u);
  EXPECT_EQ(l.declare[0].memory.persistent_bytes, int64_t{2} << 30);
  EXPECT_EQ(l.declare[0].memory.ephemeral_bytes, 512 * kMiB);
  // The first rule that matches: by program, then by uid.
  EXPECT_EQ(l.DeclaredFor("train", 0)->memory.persistent_bytes,
            int64_t{2} << 30);
  EXPECT_EQ(l.DeclaredFor("other", 1000)->memory.persistent_bytes,
            int64_t{1} << 30);
  EXPECT_FALSE(l.DeclaredFor("other", 1001).has_value());
  // Without the section: no lanes.
  ConfigFile none("gpu: A100\n");
  EXPECT_FALSE(LoadDaemonConfig(none.path())->lanes.enabled);
}

// Each bad section is refused with the file, the line of the bad key and
// what was expected.
TEST(LanesConfigTest, RefusesBadSectionsWithFileAndLine) {
  struct Case {
    std::string text;
    int line;
    std::string says;
  };
  const Case cases[] = {
      {"jobs:\n  policy: fair\n  max_lanes: 2\n", 3, "has no lanes"},
      {"jobs:\n  max_lanes: 2\n", 2, "policy fifo has no lanes"},
      {"jobs:\n  policy: pack-unsafe\n", 2, "out-of-memory"},
      {"jobs:\n  policy: mps\n", 2, "not a lane policy"},
      {"jobs:\n  policy: srtf\n  max_lanes: 2\n", 3, "srtf one lane"},
      {"jobs:\n  policy: fastest\n", 2, "fifo, pack, fair, srtf or colo"},
      {"jobs:\n  declare:\n    - {program: t, persistent: 1GiB, ephemeral: "
       "0, iterations: 0}\n",
       3, "iterations >= 1"},
      {"jobs:\n  declare:\n    - {program: t, persistent: 2GB, ephemeral: "
       "0}\n",
       3, "expected a size"},
      {"jobs:\n  declare:\n    - {persistent: 1GiB, ephemeral: 0}\n", 3,
       "give a program, a uid or both"},
      {"jobs:\n  declare:\n    - {program: t, persistent: 1GiB}\n", 3,
       "ephemeral"},
      {"jobs:\n  lanes: 2\n", 2, "lanes"},
      {"jobs:\n  persistent_pad: 2\n", 2, "a fraction in [0, 1]"},
  };
  for (const Case& c : cases) {
    ConfigFile f(c.text);
    Result<DaemonConfig> r = LoadDaemonConfig(f.path());
    ASSERT_FALSE(r.ok()) << c.text;
    const std::string m(r.status().message());
    EXPECT_NE(m.find(f.path() + ":" + std::to_string(c.line) + ":"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find(c.says), std::string::npos) << m;
  }
}

// A GPU of C = 100 MiB, no reserve, no pad; fair runs one lane.
//   A (P 40, E 10) alone: 40 + 10 = 50 <= 100: admitted, holds the turn.
//   B (P 40, E 10) joins A's lane: 80 + max(10, 10) = 90 <= 100: admitted,
//     not its turn.
//   C (P 20, E 10): 100 + 10 = 110 > 100: waits.
// Fair runs the least GPU time: at A's first boundary (A 10 ms, B 0) the
// turn goes to B; B keeps it while it has had less (5 < 10) and gives it back
// past A (15 > 10). A leaves while it holds the turn: C fits (60 + 10 = 70)
// and, with no GPU time yet, gets the turn over B.
TEST(LiveLanesTest, FairTakesTurnsAtBoundariesAndAdmitsWhenOneLeaves) {
  LiveLanes lanes(Lanes(jobs::JobPolicyKind::kFair), 100 * kMiB);
  const jobs::JobMemory big{40 * kMiB, 10 * kMiB};
  const jobs::JobMemory small{20 * kMiB, 10 * kMiB};
  EXPECT_TRUE(*lanes.Join(1, big, false, At(0)));
  EXPECT_TRUE(*lanes.Join(2, big, false, At(0)));
  EXPECT_FALSE(*lanes.Join(3, small, false, At(0)));
  EXPECT_EQ(lanes.lanes().UsedBytes(), 90 * kMiB);
  EXPECT_EQ(lanes.waiting_count(), 1);
  EXPECT_TRUE(lanes.MayRun(1));
  EXPECT_FALSE(lanes.MayRun(2));
  EXPECT_FALSE(lanes.MayRun(3));
  EXPECT_EQ(*lanes.StateOf(3), LaneState::kWaiting);
  EXPECT_EQ(*lanes.LaneOf(1), *lanes.LaneOf(2));

  LaneChanges ch;
  EXPECT_FALSE(lanes.AtSync(2, At(1), &ch));  // not its turn: parked
  EXPECT_EQ(*lanes.StateOf(2), LaneState::kParked);
  EXPECT_FALSE(lanes.AtSync(1, At(10), &ch));  // A's boundary: switch to B
  ASSERT_EQ(ch.given_turn, std::vector<ClientId>{2});
  EXPECT_EQ(lanes.turn_stats().switches, 1);
  EXPECT_EQ(*lanes.StateOf(1), LaneState::kParked);
  EXPECT_TRUE(lanes.MayRun(2));
  ch = {};
  EXPECT_TRUE(lanes.AtSync(2, At(10), &ch));  // B's parked call returns
  EXPECT_EQ(lanes.Iterations(2), 0);          // the start of its turn
  lanes.OnLaunchTaken(2, At(12));
  EXPECT_EQ(lanes.turn_stats().measured, 1);
  EXPECT_EQ(lanes.turn_stats().last, Milliseconds(2));
  EXPECT_EQ(lanes.turn_stats().Quantile(0.5), Milliseconds(2));
  EXPECT_TRUE(lanes.AtSync(2, At(15), &ch));   // B 5 ms < A 10 ms: keeps it
  EXPECT_FALSE(lanes.AtSync(2, At(25), &ch));  // B 15 ms > A 10 ms
  ASSERT_EQ(ch.given_turn, std::vector<ClientId>{1});
  EXPECT_EQ(lanes.turn_stats().switches, 2);
  EXPECT_EQ(lanes.turn_stats().iterations, 3);  // A once, B twice

  LaneChanges left = lanes.Leave(1, At(30));  // A dies holding the turn
  EXPECT_EQ(left.admitted, std::vector<ClientId>{3});
  EXPECT_EQ(left.given_turn, std::vector<ClientId>{3});
  EXPECT_EQ(lanes.lanes().UsedBytes(), 70 * kMiB);
  EXPECT_TRUE(lanes.MayRun(3));
  EXPECT_FALSE(lanes.MayRun(2));
  EXPECT_EQ(lanes.waiting_count(), 0);
}

// fifo: one job per GPU, whatever memory is free: B waits behind A, A never
// switches, and B is admitted and runs once A leaves.
TEST(LiveLanesTest, FifoRunsOneJobAtATime) {
  LiveLanes lanes(Lanes(jobs::JobPolicyKind::kFifo), 100 * kMiB);
  const jobs::JobMemory m{10 * kMiB, 10 * kMiB};
  EXPECT_TRUE(*lanes.Join(1, m, false, At(0)));
  EXPECT_FALSE(*lanes.Join(2, m, false, At(0)));
  LaneChanges ch;
  for (int i = 1; i <= 5; ++i) EXPECT_TRUE(lanes.AtSync(1, At(i), &ch));
  EXPECT_EQ(lanes.turn_stats().switches, 0);
  EXPECT_EQ(lanes.turn_stats().iterations, 5);
  LaneChanges left = lanes.Leave(1, At(6));
  EXPECT_EQ(left.admitted, std::vector<ClientId>{2});
  EXPECT_EQ(left.given_turn, std::vector<ClientId>{2});
  EXPECT_TRUE(lanes.MayRun(2));
}

// pack, C = 100 MiB: A and B (P 40, E 10) each get a lane (80 + 10 + 10 =
// 100 <= 100) and both run at once. C (P 5, E 5): a lane of its own needs
// 85 + 25 = 110; joining either lane 85 + 10 + 10 = 105: both > 100, it
// waits. A job that can never fit (P 90 + E 20 = 110 > 100) is refused
// with the figures, and nothing is recorded of it.
TEST(LiveLanesTest, PackRunsLanesSideBySideAndRefusesWhatNeverFits) {
  LiveLanes lanes(Lanes(jobs::JobPolicyKind::kPack), 100 * kMiB);
  const jobs::JobMemory big{40 * kMiB, 10 * kMiB};
  EXPECT_TRUE(*lanes.Join(1, big, false, At(0)));
  EXPECT_TRUE(*lanes.Join(2, big, false, At(0)));
  EXPECT_NE(*lanes.LaneOf(1), *lanes.LaneOf(2));
  EXPECT_TRUE(lanes.MayRun(1));
  EXPECT_TRUE(lanes.MayRun(2));
  EXPECT_FALSE(*lanes.Join(3, {5 * kMiB, 5 * kMiB}, false, At(0)));
  const jobs::JobMemory huge{90 * kMiB, 20 * kMiB};
  Result<bool> refused = lanes.Join(4, huge, false, At(0));
  ASSERT_FALSE(refused.ok());
  jobs::LaneOptions o;
  o.capacity_bytes = 100 * kMiB;
  o.reserve_bytes = 0;
  o.persistent_pad = 0;
  EXPECT_EQ(refused.status().message(),
            jobs::MemoryLanes(o).CheckFitsAlone(huge).message());
  EXPECT_FALSE(lanes.Joined(4));
}

}  // namespace
}  // namespace colo::runtime
