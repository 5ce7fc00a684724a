// SRTF's order, FAIR's equal shares, no head-of-line blocking, PACK's
// repacking, colo's lane rule, pairing rule and priority, on the pure
// scheduler and the job simulator.
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

TEST(JobPolicy, PackRepacksAQueuedJobWhenMemoryFrees) {
  // 10 GiB. Job 0 (P 1, E 6) gets lane 0 (7), job 1 (P 1, E 1) lane 1 (9);
  // job 2 (P 1, E 2) cannot open a lane (12) and joins lane 0 (10), behind
  // job 0. When job 1 leaves (8), job 2, between iterations, moves to a lane
  // of its own: 8 - 6 + 6 + 2 = 10 <= 10, and runs beside job 0. Without
  // repacking it stays queued behind job 0.
  for (bool repack : {true, false}) {
    SchedulerOptions o = Options(JobPolicyKind::kPack);
    o.repack_lanes = repack;
    JobScheduler s(o);
    ASSERT_TRUE(s.Submit(Job(0, 60, Seconds(1), {kGiB, 6 * kGiB})).ok());
    ASSERT_TRUE(s.Submit(Job(1, 10, Seconds(1), {kGiB, 1 * kGiB})).ok());
    ASSERT_TRUE(s.Submit(Job(2, 10, Seconds(1), {kGiB, 2 * kGiB})).ok());
    ASSERT_EQ(s.AdmitWaiting().size(), 3u);
    ASSERT_EQ(s.LaneOf(2), s.LaneOf(0));
    EXPECT_EQ(s.PickRunning(0), std::vector<int>({0, 1}));
    s.StartIteration(0);
    s.Finish(1);
    EXPECT_TRUE(s.AdmitWaiting().empty());
    if (repack) {
      EXPECT_NE(s.LaneOf(2), s.LaneOf(0));
      EXPECT_EQ(s.PickRunning(0), std::vector<int>({0, 2}));
    } else {
      EXPECT_EQ(s.LaneOf(2), s.LaneOf(0));
      EXPECT_EQ(s.PickRunning(0), std::vector<int>({0}));
    }
  }
}

TEST(JobPolicy, RepackingNeverMovesAJobInMidIteration) {
  // As above, but job 2 is in an iteration (it holds lane 0's E): it stays.
  SchedulerOptions o = Options(JobPolicyKind::kPack);
  o.repack_lanes = true;
  JobScheduler s(o);
  ASSERT_TRUE(s.Submit(Job(0, 60, Seconds(1), {kGiB, 6 * kGiB})).ok());
  ASSERT_TRUE(s.Submit(Job(1, 10, Seconds(1), {kGiB, 1 * kGiB})).ok());
  ASSERT_TRUE(s.Submit(Job(2, 10, Seconds(1), {kGiB, 2 * kGiB})).ok());
  ASSERT_EQ(s.AdmitWaiting().size(), 3u);
  s.StartIteration(2);
  s.Finish(1);
  s.AdmitWaiting();
  EXPECT_EQ(s.LaneOf(2), s.LaneOf(0));
  // Once its iteration ends, the next admission round moves it.
  s.CompleteIteration(2, Seconds(1));
  s.AdmitWaiting();
  EXPECT_NE(s.LaneOf(2), s.LaneOf(0));
}

TEST(JobSim, PackRepackingStartsTheQueuedJobWhenALaneFrees) {
  // The jobs above in the simulator, all at 0, u = 0.3 (two together: D =
  // 0.6, each at 0.95). Job 1 (10 x 1 s) ends at 10 / 0.95 = 10.526 s.
  // Repacked, job 2 (10 x 1 s) starts then beside job 0 and ends 10.526 s
  // later, at 21.053 s; job 0 (60 x 1 s) has done 20 s of work by then and
  // ends 40 s later, at 61.053 s. Unrepacked, job 2 waits for job 0, which
  // runs alone from 10.526 s with 50 s left (60.526 s), and ends at 70.526 s.
  std::vector<SimJob> jobs = {
      Sim(0, Seconds(0), 60, Seconds(1), {kGiB, 6 * kGiB}, 0.3),
      Sim(1, Seconds(0), 10, Seconds(1), {kGiB, 1 * kGiB}, 0.3),
      Sim(2, Seconds(0), 10, Seconds(1), {kGiB, 2 * kGiB}, 0.3)};
  JobSimOptions o;
  o.scheduler = Options(JobPolicyKind::kPack);
  const double pair = 10 / 0.95;
  o.scheduler.repack_lanes = true;
  Result<JobSimResult> r = RunJobSim(jobs, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NEAR(ToSeconds(r->jobs[2].first_iteration), pair, 1e-6);
  EXPECT_NEAR(ToSeconds(r->jobs[2].finish), 2 * pair, 1e-6);
  EXPECT_NEAR(ToSeconds(r->jobs[0].finish), 2 * pair + 40, 1e-6);
  o.scheduler.repack_lanes = false;
  r = RunJobSim(jobs, o);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(ToSeconds(r->jobs[0].finish), pair + 50, 1e-6);
  EXPECT_NEAR(ToSeconds(r->jobs[2].finish), pair + 60, 1e-6);
}

TEST(JobPolicy, ColoJoinsALaneOnlyToPreemptBrieflyOrWhenLanesAreCapped) {
  // 10 GiB. Job 0 (P 1, E 6, 100 x 1 s) holds lane 0 (7). A job of P 1, E 4
  // would need 12 for a lane of its own; joining lane 0 would fit (8). Job 1
  // (60 x 1 s): 60 > 0.5 x 100 (colo.join_ratio): it would hold its P in
  // lane 0 behind most of job 0, so it waits outside (pack would join).
  JobScheduler s(Options(JobPolicyKind::kColo));
  ASSERT_TRUE(s.Submit(Job(0, 100, Seconds(1), {kGiB, 6 * kGiB})).ok());
  ASSERT_EQ(s.AdmitWaiting().size(), 1u);
  ASSERT_TRUE(s.Submit(Job(1, 60, Seconds(1), {kGiB, 4 * kGiB})).ok());
  EXPECT_TRUE(s.AdmitWaiting().empty());
  EXPECT_EQ(s.waiting_count(), 1);
  // Job 2 (40 x 1 s): 40 <= 50: it joins and is the lane's pick (shortest
  // remaining) at the next boundary.
  ASSERT_TRUE(s.Submit(Job(2, 40, Seconds(1), {kGiB, 4 * kGiB})).ok());
  std::vector<Admission> a = s.AdmitWaiting();
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].job, 2);
  EXPECT_EQ(s.LaneOf(2), s.LaneOf(0));
  EXPECT_EQ(s.PickRunning(0), std::vector<int>({2}));
  // A high-priority job goes before every best-effort one: it joins (9)
  // whatever its length, and is the pick.
  JobDescription high = Job(3, 500, Seconds(1), {kGiB, 4 * kGiB});
  high.high_priority = true;
  ASSERT_TRUE(s.Submit(high).ok());
  a = s.AdmitWaiting();
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].job, 3);
  EXPECT_EQ(s.PickRunning(0), std::vector<int>({3}));
  // With colo.join_ratio 0, best effort never joins: job 2 waits too.
  SchedulerOptions never = Options(JobPolicyKind::kColo);
  never.colo_join_ratio = 0;
  JobScheduler n(never);
  ASSERT_TRUE(n.Submit(Job(0, 100, Seconds(1), {kGiB, 6 * kGiB})).ok());
  ASSERT_TRUE(n.Submit(Job(2, 40, Seconds(1), {kGiB, 4 * kGiB})).ok());
  // Admission order is shortest first: job 2 takes lane 0 (5), and job 0
  // cannot open a lane (5 + 7 = 12) nor join.
  ASSERT_EQ(n.AdmitWaiting().size(), 1u);
  EXPECT_EQ(n.waiting_count(), 1);
  // With max_lanes 1 no lane can open whatever memory is free: the longer
  // job joins.
  SchedulerOptions capped = Options(JobPolicyKind::kColo);
  capped.lanes.max_lanes = 1;
  JobScheduler one(capped);
  ASSERT_TRUE(one.Submit(Job(0, 100, Seconds(1), {kGiB, 6 * kGiB})).ok());
  ASSERT_TRUE(one.Submit(Job(1, 60, Seconds(1), {kGiB, 4 * kGiB})).ok());
  ASSERT_EQ(one.AdmitWaiting().size(), 2u);
  EXPECT_EQ(one.PickRunning(0), std::vector<int>({1}));
}

TEST(JobSim, ColoKeepsMemoryForALaneThatRunsWhereAJoinerWouldWait) {
  // 10 GiB, u = 0.3 each. Job 0 (P 1, E 6, 100 x 1 s) at 0 s: lane 0 (7).
  // Job 1 (P 2, E 5, 60 x 1 s) at 1 s: its own lane needs 14; joining lane
  // 0 would use 9. Job 2 (P 0.5, E 1, 10 x 1 s) at 2 s.
  // pack: job 1 joins lane 0 (9); job 2 then needs 9 + 1.5 = 10.5 for a
  // lane and joins lane 0 too (9.5): it runs after jobs 0 and 1, alone
  // (100 + 60 s), from 160 s.
  // colo: job 1 (60 s > 0.5 x 99 s left of job 0) waits outside; job 2
  // gets a lane (7 + 1.5 = 8.5) and runs
  // at once beside job 0 (D = 0.6, both at 0.95): from 2 s to 2 + 10 / 0.95.
  const int64_t half = kGiB / 2;
  std::vector<SimJob> jobs = {
      Sim(0, Seconds(0), 100, Seconds(1), {kGiB, 6 * kGiB}, 0.3),
      Sim(1, Seconds(1), 60, Seconds(1), {2 * kGiB, 5 * kGiB}, 0.3),
      Sim(2, Seconds(2), 10, Seconds(1), {half, kGiB}, 0.3)};
  JobSimOptions o;
  o.scheduler = Options(JobPolicyKind::kPack);
  Result<JobSimResult> pack = RunJobSim(jobs, o);
  ASSERT_TRUE(pack.ok());
  EXPECT_NEAR(ToSeconds(pack->jobs[2].first_iteration), 160, 1e-6);
  o.scheduler.policy = JobPolicyKind::kColo;
  Result<JobSimResult> colo = RunJobSim(jobs, o);
  ASSERT_TRUE(colo.ok());
  EXPECT_EQ(colo->jobs[2].first_iteration, Seconds(2));
  EXPECT_NEAR(ToSeconds(colo->jobs[2].finish), 2 + 10 / 0.95, 1e-6);
  EXPECT_GT(colo->jobs[1].admitted, Seconds(1));
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
