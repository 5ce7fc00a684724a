// Which NVTX ranges end iterations (shim/nvtx_ranges.h), without NVTX: the
// domain rule, a stack of a domain that does not count, and the unnested
// (start/end) ranges' ids. RangeCounter's outermost rule is tested in
// live_lanes_busy_test.cc.
#include "shim/nvtx_ranges.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

namespace colo::shim {
namespace {

// No domain glob: the default domain ("") only, so a library's own domain
// (NCCL's) never ends an iteration. A glob: the domains it matches; the
// default domain is "", which '*' matches and "colo_*" does not.
TEST(IterationRangeRuleTest, DomainsCountAsTheGlobSays) {
  const IterationRangeRule default_only("step");
  EXPECT_TRUE(default_only.DomainCounts(""));
  EXPECT_FALSE(default_only.DomainCounts("NCCL"));
  const IterationRangeRule named("step", "colo_*");
  EXPECT_TRUE(named.DomainCounts("colo_trainer"));
  EXPECT_FALSE(named.DomainCounts(""));
  EXPECT_FALSE(named.DomainCounts("NCCL"));
  const IterationRangeRule every("step", "*");
  EXPECT_TRUE(every.DomainCounts(""));
  EXPECT_TRUE(every.DomainCounts("NCCL"));
  EXPECT_TRUE(every.NameMatches("step"));
  EXPECT_FALSE(every.NameMatches("step_2"));
  // A name with "::" is a name (PyTorch's "aten::mm"), not a domain.
  const IterationRangeRule aten("aten::*");
  EXPECT_TRUE(aten.NameMatches("aten::mm"));
  EXPECT_TRUE(aten.DomainCounts(""));
}

// A stack of a domain that does not count answers depths (as
// nvtxDomainRangePushEx / Pop return them) and counts nothing, also for
// names that match.
TEST(RangeCounterTest, AStackThatDoesNotCountOnlyKeepsDepths) {
  RangeCounter off("step", /*counting=*/false);
  EXPECT_EQ(off.Push("step"), 0);
  EXPECT_EQ(off.Push("step"), 1);
  EXPECT_FALSE(off.Pop());
  EXPECT_FALSE(off.Pop());
  EXPECT_EQ(off.depth(), 0);
  EXPECT_FALSE(off.Pop());
}

// Ids are 1, 2, 3, ... for every range, counting or not. Unnested ranges
// overlap freely: a starts, b starts, a ends, b ends: both count, each once.
// A range that does not count, an id never given and an id ended twice
// count nothing.
TEST(OpenRangesTest, EachCountingRangeCountsOnceAtItsEnd) {
  OpenRanges open;
  const uint64_t a = open.Start(true);
  const uint64_t other = open.Start(false);
  const uint64_t b = open.Start(true);
  EXPECT_EQ(a, 1u);
  EXPECT_EQ(other, 2u);
  EXPECT_EQ(b, 3u);
  EXPECT_EQ(open.open(), 2u);
  EXPECT_TRUE(open.End(a));
  EXPECT_FALSE(open.End(other));
  EXPECT_TRUE(open.End(b));
  EXPECT_FALSE(open.End(b));
  EXPECT_FALSE(open.End(99));
  EXPECT_EQ(open.open(), 0u);
}

// Started on one thread, ended on another (nvtxRangeEnd may be called
// anywhere): 4 threads end 1000 ranges each that the main thread started,
// so exactly 4000 ends count.
TEST(OpenRangesTest, RangesEndOnAnyThread) {
  OpenRanges open;
  std::vector<std::vector<uint64_t>> ids(4);
  for (int i = 0; i < 4000; ++i) ids[i % 4].push_back(open.Start(true));
  std::vector<int> counted(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t id : ids[t]) counted[t] += open.End(id) ? 1 : 0;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(counted[0] + counted[1] + counted[2] + counted[3], 4000);
  EXPECT_EQ(open.open(), 0u);
}

// At most kMaxOpen counting ranges stay open: one more start forgets the
// oldest, whose end then counts nothing; the newest still counts.
TEST(OpenRangesTest, TheOldestOpenRangeIsForgottenPastTheBound) {
  OpenRanges open;
  const uint64_t first = open.Start(true);
  uint64_t last = first;
  for (size_t i = 0; i < OpenRanges::kMaxOpen; ++i) last = open.Start(true);
  EXPECT_EQ(open.open(), OpenRanges::kMaxOpen);
  EXPECT_FALSE(open.End(first));
  EXPECT_TRUE(open.End(first + 1));
  EXPECT_TRUE(open.End(last));
  EXPECT_EQ(open.open(), OpenRanges::kMaxOpen - 2);
}

}  // namespace
}  // namespace colo::shim
