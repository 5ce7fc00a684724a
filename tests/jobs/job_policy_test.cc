// SRTF's order, FAIR's equal shares, no head-of-line blocking, colo's
// pairing rule and priority, on the pure scheduler and the job simulator.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "jobs/job_scheduler.h"
#include "jobs/job_sim.h"

namespace colo::jobs {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

SchedulerOptions Options(JobPolicyKind policy) {
  SchedulerOptions o;
  o.policy = policy;
  o.lanes.capacity_bytes = 10 * kGiB;
  o.lanes.reserve_bytes = 0;
  o.lanes.persistent_pad = 0;
  return o;
}

JobDescription Job(int id, int64_t iterations, Duration iteration_time,
                   JobMemory m = {kGiB, kGiB}, double busy = 1.0) {
  JobDescription d;
  d.id = id;
  d.memory = m;
  d.iteration_time = iteration_time;
  d.iterations = iterations;
  d.busy_fraction = busy;
  return d;
}

SimJob Sim(int id, Duration submit, int64_t iterations, Duration it,
           JobMemory m = {kGiB, kGiB}, double busy = 1.0) {
  SimJob j;
  j.id = id;
  j.name = "job" + std::to_string(id);
  j.submit = submit;
  j.iterations = iterations;
  j.iteration_time = it;
  j.memory = m;
  j.busy_fraction = busy;
  return j;
}

TEST(JobPolicy, SrtfRunsTheShortestRemainingFirst) {
  // Three jobs at 0 with 30, 10 and 20 s of work (10 x 3 s, 10 x 1 s,
  // 10 x 2 s): SRTF runs job 1, then 2, then 0; finish times 10, 30, 60 s,
  // average JCT 33.3 s against FIFO's (30 + 40 + 60) / 3 = 43.3 s.
  std::vector<SimJob> jobs = {Sim(0, Seconds(0), 10, Seconds(3)),
                              Sim(1, Seconds(0), 10, Seconds(1)),
                              Sim(2, Seconds(0), 10, Seconds(2))};
  JobSimOptions o;
  o.scheduler = Options(JobPolicyKind::kSrtf);
  Result<JobSimResult> srtf = RunJobSim(jobs, o);
  ASSERT_TRUE(srtf.ok()) << srtf.status().ToString();
  EXPECT_EQ(srtf->jobs[1].finish, Seconds(10));
  EXPECT_EQ(srtf->jobs[2].finish, Seconds(30));
  EXPECT_EQ(srtf->jobs[0].finish, Seconds(60));
  EXPECT_NEAR(srtf->avg_jct_s, 100.0 / 3, 1e-6);
  o.scheduler.policy = JobPolicyKind::kFifo;
  Result<JobSimResult> fifo = RunJobSim(jobs, o);
  ASSERT_TRUE(fifo.ok());
  EXPECT_NEAR(fifo->avg_jct_s, 130.0 / 3, 1e-6);
}

TEST(JobPolicy, SrtfPreemptsAtTheNextIterationBoundary) {
  // Job 0: 10 x 2 s from 0. Job 1: 2 x 1 s arriving at 3 s, during job 0's
  // second iteration (2..4 s). Job 0 keeps the GPU until 4 s (a whole
  // iteration), then job 1 runs 4..6 s, then job 0's 8 remaining iterations
  // end at 22 s. Job 1 was admitted to the one lane at once (queuing 0) and
  // first ran at 4 s.
  std::vector<SimJob> jobs = {Sim(0, Seconds(0), 10, Seconds(2)),
                              Sim(1, Seconds(3), 2, Seconds(1))};
  JobSimOptions o;
  o.scheduler = Options(JobPolicyKind::kSrtf);
  Result<JobSimResult> r = RunJobSim(jobs, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->jobs[1].admitted, Seconds(3));
  EXPECT_EQ(r->jobs[1].first_iteration, Seconds(4));
  EXPECT_EQ(r->jobs[1].finish, Seconds(6));
  EXPECT_EQ(r->jobs[0].finish, Seconds(22));
}

TEST(JobPolicy, FairGivesEqualGpuTime) {
  // FAIR runs the job with the least GPU time so far. Three jobs with
  // iterations of 1, 2 and 3 s, each long enough to outlast the window: after
  // any number of decisions, the GPU times received differ by at most the
  // longest iteration (3 s), so over 600 s each gets 200 s +- 3 s.
  JobScheduler s(Options(JobPolicyKind::kFair));
  const Duration its[3] = {Seconds(1), Seconds(2), Seconds(3)};
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(s.Submit(Job(i, 100000, its[i])).ok());
  ASSERT_EQ(s.AdmitWaiting().size(), 3u);
  std::map<int, Duration> got;
  Duration t(0);
  while (t < Seconds(600)) {
    std::vector<int> run = s.PickRunning(0);
    ASSERT_EQ(run.size(), 1u);  // one lane: one iteration at a time
    s.CompleteIteration(run[0], its[run[0]]);
    got[run[0]] += its[run[0]];
    t += its[run[0]];
  }
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(ToSeconds(got[i]), ToSeconds(t) / 3, 3.0) << "job " << i;
  }
}

TEST(JobPolicy, AJobThatDoesNotFitNeverBlocksASmallerOne) {
  // 10 GiB, pack. Job 0 holds 6 GiB (P 3 + E 3). Job 1 (P 4, E 4) cannot
  // fit (6 + 8 = 14; joining: 6 + 4 + 1 = 11 > 10); job 2 (P 1, E 1),
  // behind it, fits a new lane (6 + 2 = 8) and is admitted at once.
  JobScheduler s(Options(JobPolicyKind::kPack));
  ASSERT_TRUE(s.Submit(Job(0, 10, Seconds(1), {3 * kGiB, 3 * kGiB})).ok());
  ASSERT_EQ(s.AdmitWaiting().size(), 1u);
  ASSERT_TRUE(s.Submit(Job(1, 10, Seconds(1), {4 * kGiB, 4 * kGiB})).ok());
  ASSERT_TRUE(s.Submit(Job(2, 10, Seconds(1), {1 * kGiB, 1 * kGiB})).ok());
  std::vector<Admission> a = s.AdmitWaiting();
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].job, 2);
  EXPECT_EQ(s.waiting_count(), 1);
  // When job 0 leaves, job 1 gets its lane: 2 + 8 = 10 <= 10.
  s.Finish(0);
  a = s.AdmitWaiting();
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].job, 1);
}

TEST(JobPolicy, FifoIsOneJobAtATimeInArrivalOrder) {
  JobScheduler s(Options(JobPolicyKind::kFifo));
  ASSERT_TRUE(s.Submit(Job(0, 10, Seconds(1))).ok());
  ASSERT_TRUE(s.Submit(Job(1, 1, Seconds(1))).ok());
  std::vector<Admission> a = s.AdmitWaiting();
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].job, 0);
  EXPECT_EQ(s.PickRunning(0), std::vector<int>({0}));
}

TEST(JobPolicy, ColoPairsOnlyWhereThePairLowersTheSumOfJcts) {
  // Speed model with η = 0.05: two jobs at u = 0.4 (D = 0.8) run at 0.95
  // each: 0.95 + 0.95 > 1 (the default throughput rule), and (2 - 0.95 -
  // 1.9) + m (1 - 1.9) < 0 (the exact rule): they pair. Two at u = 1.0
  // (D = 2) run at 0.5 x 0.95 = 0.475 each: 0.95 < 1, and (2 - 0.475 -
  // 0.95) > 0 with nothing queued behind: they take turns.
  for (double u : {0.4, 1.0}) {
    JobScheduler s(Options(JobPolicyKind::kColo));
    ASSERT_TRUE(s.Submit(Job(0, 10, Seconds(1), {kGiB, kGiB}, u)).ok());
    ASSERT_TRUE(s.Submit(Job(1, 20, Seconds(1), {kGiB, kGiB}, u)).ok());
    ASSERT_EQ(s.AdmitWaiting().size(), 2u);
    ASSERT_NE(s.LaneOf(0), s.LaneOf(1));
    std::vector<int> run = s.PickRunning(0);
    if (u < 0.5) {
      EXPECT_EQ(run, std::vector<int>({0, 1}));
    } else {
      EXPECT_EQ(run, std::vector<int>({0}));  // the shorter one first
    }
  }
}

TEST(JobPolicy, ColoPairingRulesDifferWhenNothingWaitsBehind) {
  // Two jobs at u = 0.75: D = 1.5, each at (1 / 1.5) x 0.95 = 0.6333.
  // Throughput rule: 0.6333 + 0.6333 = 1.27 > 1: they pair. Exact JCT rule
  // with nobody queued behind (m = 0): 2 - 0.6333 - 2 x 0.6333 = 0.1 > 0:
  // running one after the other gives the lower sum of JCTs.
  for (bool throughput : {true, false}) {
    SchedulerOptions o = Options(JobPolicyKind::kColo);
    o.colo_pair_for_throughput = throughput;
    JobScheduler s(o);
    ASSERT_TRUE(s.Submit(Job(0, 10, Seconds(1), {kGiB, kGiB}, 0.75)).ok());
    ASSERT_TRUE(s.Submit(Job(1, 20, Seconds(1), {kGiB, kGiB}, 0.75)).ok());
    ASSERT_EQ(s.AdmitWaiting().size(), 2u);
    EXPECT_EQ(s.PickRunning(0).size(), throughput ? 2u : 1u);
  }
}

TEST(JobPolicy, ColoNeverQueuesHighPriorityBehindBestEffort) {
  // A long high-priority job and a short best-effort one, both u = 1: colo
  // runs the high-priority job alone although SRTF would run the short one.
  JobScheduler s(Options(JobPolicyKind::kColo));
  JobDescription be = Job(0, 5, Seconds(1));
  JobDescription high = Job(1, 500, Seconds(1));
  high.high_priority = true;
  ASSERT_TRUE(s.Submit(be).ok());
  ASSERT_TRUE(s.Submit(high).ok());
  ASSERT_EQ(s.AdmitWaiting().size(), 2u);
  EXPECT_EQ(s.PickRunning(0), std::vector<int>({1}));
  // In the simulator: job 0 (best effort, 100 x 1 s) runs from 0; job 1
  // (high, 50 x 1 s) arrives at 10.5 s and takes a lane of its own, so it
  // starts at once. Job 0's iteration under way has 0.5 s of work left and
  // finishes beside it: D = 2, both at 0.5 x 0.95 = 0.475, so it ends 0.5 /
  // 0.475 = 1.0526 s later, having given job 1 0.5 s of work. Then job 0
  // starts no iteration until job 1 is done: job 1 ends at 10.5 + 1.0526 +
  // 49.5 = 61.0526 s, and job 0 waited for it, never the other way round.
  std::vector<SimJob> jobs = {
      Sim(0, Seconds(0), 100, Seconds(1)),
      Sim(1, Seconds(10) + Milliseconds(500), 50, Seconds(1))};
  jobs[1].high_priority = true;
  JobSimOptions o;
  o.scheduler = Options(JobPolicyKind::kColo);
  Result<JobSimResult> r = RunJobSim(jobs, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->jobs[1].first_iteration, Seconds(10) + Milliseconds(500));
  const double shared = 0.5 / 0.475;
  EXPECT_NEAR(ToSeconds(r->jobs[1].finish), 10.5 + shared + 49.5, 1e-6);
  // Job 0: 11 iterations by 11.55 s, its other 89 after job 1: 89 s more.
  EXPECT_NEAR(ToSeconds(r->jobs[0].finish), 10.5 + shared + 49.5 + 89, 1e-6);
}

TEST(JobPolicy, ThePackUnsafePolicyRunsOutOfMemory) {
  // Three jobs of P 3 + E 3 = 6 GiB on 10 GiB: pack admits one (6), the
  // others wait; pack-unsafe admits all three (18 > 10): the later
  // admissions fail (OOM) and retry 30 s later.
  std::vector<SimJob> jobs;
  for (int i = 0; i < 3; ++i) {
    jobs.push_back(Sim(i, Seconds(0), 100, Seconds(1), {3 * kGiB, 3 * kGiB}));
  }
  JobSimOptions o;
  o.scheduler = Options(JobPolicyKind::kPack);
  Result<JobSimResult> safe = RunJobSim(jobs, o);
  ASSERT_TRUE(safe.ok());
  EXPECT_EQ(safe->oom_events, 0);
  o.scheduler.policy = JobPolicyKind::kPackUnsafe;
  Result<JobSimResult> unsafe = RunJobSim(jobs, o);
  ASSERT_TRUE(unsafe.ok());
  EXPECT_GT(unsafe->oom_events, 0);
}

TEST(JobPolicy, AJobLargerThanTheGpuIsRefusedWithTheFigures) {
  JobScheduler s(Options(JobPolicyKind::kPack));
  Status st = s.Submit(Job(7, 10, Seconds(1), {6 * kGiB, 5 * kGiB}));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("job 7: P 6.0 GiB"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("= 11.0 GiB > 10.0 GiB usable"),
            std::string::npos)
      << st.message();
}

TEST(JobSim, CoRunningFollowsTheSpeedModel) {
  // Two jobs at u = 0.6 in two lanes under pack: D = 1.2, each runs at
  // (1 / 1.2) x 0.95 = 0.79167 of solo speed: 100 iterations of 1 s end at
  // 100 / 0.79167 = 126.3 s. Utilization min(1, 1.2) = 1.
  std::vector<SimJob> jobs = {
      Sim(0, Seconds(0), 100, Seconds(1), {kGiB, kGiB}, 0.6),
      Sim(1, Seconds(0), 100, Seconds(1), {kGiB, kGiB}, 0.6)};
  JobSimOptions o;
  o.scheduler = Options(JobPolicyKind::kPack);
  Result<JobSimResult> r = RunJobSim(jobs, o);
  ASSERT_TRUE(r.ok());
  const double expected = 100 / (0.95 / 1.2);
  EXPECT_NEAR(ToSeconds(r->jobs[0].finish), expected, 1e-3);
  EXPECT_NEAR(r->utilization, 1.0, 1e-6);
}

}  // namespace
}  // namespace colo::jobs
