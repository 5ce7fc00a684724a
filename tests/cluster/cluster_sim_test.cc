// The cluster what-if (src/cluster/cluster_sim.h): the rate formulas, the
// invariants of each allocation, and conservation of jobs.
#include "cluster/cluster_sim.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace colo::cluster {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

ClusterJob Job(int id, double submit_s, double solo_s, double u, bool high,
               int64_t peak_bytes = 2 * kGiB) {
  ClusterJob j;
  j.id = id;
  j.model = "m";
  j.submit = DurationFromSeconds(submit_s);
  j.solo = DurationFromSeconds(solo_s);
  j.busy_fraction = u;
  j.high_priority = high;
  j.persistent_bytes = peak_bytes / 4;
  j.ephemeral_bytes = peak_bytes - peak_bytes / 4;
  return j;
}

// A deterministic mixed trace: `n` jobs, a job every 7 s, solo 100..1000 s,
// u in 0.3..0.9, every fifth high priority, peaks 1..6 GiB.
std::vector<ClusterJob> MixedTrace(int n) {
  std::vector<ClusterJob> jobs;
  for (int i = 0; i < n; ++i) {
    jobs.push_back(Job(i, 7.0 * i, 100 + (i * 137) % 900,
                       0.3 + 0.1 * ((i * 5) % 7), i % 5 == 0,
                       (1 + (i * 3) % 6) * kGiB));
  }
  return jobs;
}

ClusterOptions SmallCluster(int gpus) {
  ClusterOptions o;
  o.gpus = gpus;
  return o;
}

// The jobs of `r` on each GPU as [start, finish) intervals.
std::map<int, std::vector<const ClusterJobOutcome*>> ByGpu(
    const ClusterResult& r) {
  std::map<int, std::vector<const ClusterJobOutcome*>> by;
  for (const ClusterJobOutcome& o : r.jobs) by[o.gpu].push_back(&o);
  return by;
}

TEST(ClusterRatesTest, SharesFollowTheSpeedModel) {
  // Shards: n jobs at demand D = Σu run at min(1, 1/D)·0.95^(n−1).
  ClusterOptions o;
  const ClusterJob a = Job(1, 0, 10, 0.5, false), b = Job(2, 0, 10, 0.5, false);
  const ClusterJob c = Job(3, 0, 10, 0.9, false), d = Job(4, 0, 10, 0.9, false);
  EXPECT_NEAR(Rates({&a, &b}, Allocation::kShards, o)[0], 0.95, 1e-12);
  EXPECT_NEAR(Rates({&c, &d}, Allocation::kShards, o)[1], 0.95 / 1.8, 1e-12);
  // Whole-GPU: one job, alone, rate 1.
  EXPECT_EQ(Rates({&c}, Allocation::kWholeGpu, o)[0], 1.0);
  // colo, high u = 0.6 beside best effort u = 0.6: the high job keeps
  // min(1, 1/0.6)·0.99^1 = 0.99; best effort gets the 0.4 left:
  // min(1, 0.4/0.6)·0.95 = 0.6333.
  const ClusterJob h = Job(5, 0, 10, 0.6, true), e = Job(6, 0, 10, 0.6, false);
  const std::vector<double> r = Rates({&h, &e}, Allocation::kColo, o);
  EXPECT_NEAR(r[0], 0.99, 1e-12);
  EXPECT_NEAR(r[1], 0.4 / 0.6 * 0.95, 1e-12);
  // Under shards the same pair is not protected: both at 1/1.2·0.95.
  EXPECT_NEAR(Rates({&h, &e}, Allocation::kShards, o)[0], 0.95 / 1.2, 1e-12);
}

TEST(ClusterSimTest, ShardsCoRunAndSlowDownPerTheModel) {
  // One GPU of 4 shards; two jobs of ≤ 2 shards each at t = 0, u = 0.5:
  // together each runs at 0.95. A (solo 100 s) ends at 100/0.95 =
  // 105.263 s; B (solo 200 s) has done 100 s of work by then and runs its
  // last 100 s alone at rate 1: it ends at 205.263 s.
  const std::vector<ClusterJob> jobs = {Job(1, 0, 100, 0.5, false),
                                        Job(2, 0, 200, 0.5, false)};
  ClusterOptions o = SmallCluster(1);
  ASSERT_LE(ShardsFor(jobs[0], o), 2);
  Result<ClusterResult> r = RunClusterSim(jobs, Allocation::kShards, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NEAR(ToSeconds(r->jobs[0].finish), 100 / 0.95, 1e-6);
  EXPECT_NEAR(ToSeconds(r->jobs[1].finish), 100 / 0.95 + 100, 1e-6);
  EXPECT_EQ(r->max_jobs_per_gpu, 2);
  // Whole-GPU on the same GPU: B waits for A: 100 s, then 200 s.
  Result<ClusterResult> w = RunClusterSim(jobs, Allocation::kWholeGpu, o);
  ASSERT_TRUE(w.ok());
  EXPECT_NEAR(ToSeconds(w->jobs[1].start), 100, 1e-6);
  EXPECT_NEAR(ToSeconds(w->jobs[1].finish), 300, 1e-6);
}

TEST(ClusterSimTest, WholeGpuNeverCoRunsTwoJobs) {
  // 200 jobs arriving every 7 s on 8 GPUs: a queue forms. On every GPU the
  // [start, finish) intervals are disjoint, and each job runs its solo time.
  const std::vector<ClusterJob> jobs = MixedTrace(200);
  Result<ClusterResult> r =
      RunClusterSim(jobs, Allocation::kWholeGpu, SmallCluster(8));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->max_jobs_per_gpu, 1);
  EXPECT_GT(r->avg_queue_s, 0);  // the trace does queue
  for (auto& [gpu, list] : ByGpu(*r)) {
    std::sort(list.begin(), list.end(),
              [](auto* a, auto* b) { return a->start < b->start; });
    for (size_t k = 1; k < list.size(); ++k)
      EXPECT_LE(list[k - 1]->finish, list[k]->start) << "gpu " << gpu;
  }
  for (const ClusterJobOutcome& o : r->jobs)
    EXPECT_NEAR(ToSeconds(o.finish - o.start), ToSeconds(o.solo), 1e-6);
}

TEST(ClusterSimTest, EveryJobFinishesOnceUnderEveryAllocation) {
  // Conservation: each input job appears once, on a GPU, with
  // submit <= start < finish, and finish − start >= its solo time (no rate
  // is above 1).
  const std::vector<ClusterJob> jobs = MixedTrace(150);
  for (Allocation a : kAllAllocations) {
    Result<ClusterResult> r = RunClusterSim(jobs, a, SmallCluster(6));
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->jobs.size(), jobs.size());
    std::set<int> ids;
    for (size_t i = 0; i < jobs.size(); ++i) {
      const ClusterJobOutcome& o = r->jobs[i];
      ids.insert(o.id);
      EXPECT_EQ(o.id, jobs[i].id);
      EXPECT_GE(o.gpu, 0);
      EXPECT_LT(o.gpu, 6);
      EXPECT_LE(o.submit, o.start);
      EXPECT_LT(o.start, o.finish);
      EXPECT_GE((o.finish - o.start).count() + 1, o.solo.count());
    }
    EXPECT_EQ(ids.size(), jobs.size()) << AllocationName(a);
  }
}

TEST(ClusterSimTest, ShardsAndColoKeepTheirCapacityAtEveryStart) {
  // At every job's start, the jobs running on its GPU hold at most
  // shards_per_gpu shards (shards) and at most capacity − reserve padded
  // bytes (colo), the new job included.
  const std::vector<ClusterJob> jobs = MixedTrace(150);
  const ClusterOptions o = SmallCluster(4);
  const double usable = double(o.capacity_bytes - o.reserve_bytes);
  for (Allocation a : {Allocation::kShards, Allocation::kColo}) {
    Result<ClusterResult> r = RunClusterSim(jobs, a, o);
    ASSERT_TRUE(r.ok());
    EXPECT_GT(r->max_jobs_per_gpu, 1) << AllocationName(a);
    for (size_t i = 0; i < jobs.size(); ++i) {
      const Duration t = r->jobs[i].start;
      int shards = 0;
      double bytes = 0;
      for (size_t k = 0; k < jobs.size(); ++k) {
        const ClusterJobOutcome& x = r->jobs[k];
        if (x.gpu != r->jobs[i].gpu || x.start > t || x.finish <= t) continue;
        shards += ShardsFor(jobs[k], o);
        bytes += 1.1 * jobs[k].persistent_bytes + jobs[k].ephemeral_bytes;
      }
      if (a == Allocation::kShards) {
        EXPECT_LE(shards, o.shards_per_gpu);
      } else {
        EXPECT_LE(bytes, usable + 64);
      }
    }
  }
}

TEST(ClusterSimTest, ColoNeverBreaksAHighPriorityFloor) {
  // Under colo every high-priority job runs at >= high_min_rate (0.95) at
  // all times; under shards the same trace pushes some below it (the
  // check can fail).
  const std::vector<ClusterJob> jobs = MixedTrace(200);
  const ClusterOptions o = SmallCluster(4);
  Result<ClusterResult> colo = RunClusterSim(jobs, Allocation::kColo, o);
  Result<ClusterResult> shards = RunClusterSim(jobs, Allocation::kShards, o);
  ASSERT_TRUE(colo.ok() && shards.ok());
  EXPECT_GT(colo->high_jobs, 0);
  EXPECT_GE(colo->high_min_rate_seen, o.high_min_rate);
  EXPECT_LT(shards->high_min_rate_seen, o.high_min_rate);
  // The slowdown while running follows: at most 1/0.95 − 1 under colo.
  EXPECT_LE(colo->high_p99_overhead, 1 / o.high_min_rate - 1 + 1e-9);
  EXPECT_GT(shards->high_p99_overhead, colo->high_p99_overhead);
}

TEST(ClusterSimTest, SameInputSameResult) {
  const std::vector<ClusterJob> jobs = MixedTrace(100);
  Result<ClusterResult> a = RunClusterSim(jobs, Allocation::kColo, {});
  Result<ClusterResult> b = RunClusterSim(jobs, Allocation::kColo, {});
  ASSERT_TRUE(a.ok() && b.ok());
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(a->jobs[i].finish, b->jobs[i].finish);
    EXPECT_EQ(a->jobs[i].gpu, b->jobs[i].gpu);
  }
}

TEST(ClusterSimTest, RefusesAJobLargerThanAGpuAndRepeatedIds) {
  // 17 GiB padded > 16 GiB − 300 MiB.
  Result<ClusterResult> r = RunClusterSim(
      {Job(1, 0, 10, 0.5, false, 17 * kGiB)}, Allocation::kColo, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("could never run"), std::string::npos);
  r = RunClusterSim({Job(1, 0, 10, 0.5, false), Job(1, 1, 10, 0.5, false)},
                    Allocation::kShards, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unique"), std::string::npos);
}

}  // namespace
}  // namespace colo::cluster
