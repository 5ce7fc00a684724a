// The planner on a hand-made interference model whose optimum is known:
// y_own = 1 - 0.5 * own.sm_util * partner.sm_util (sm_util as a fraction).
#include "place/planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>

#include "place/plan_format.h"
#include "predict/dataset_source.h"
#include "predict/model_training.h"

namespace colo::place {
namespace {

predict::InterferenceModel ProductModel() {
  predict::InterferenceModel m;
  m.terms = {*predict::ParsePairTerm("own.sm_util*partner.sm_util")};
  m.linear.names = {m.terms[0].Name()};
  m.linear.mean = Eigen::VectorXd::Zero(1);
  m.linear.scale = Eigen::VectorXd::Ones(1);
  m.linear.weights = Eigen::VectorXd::Constant(1, -0.5);
  m.linear.intercept = 1.0;
  return m;
}

JobRequest Job(const std::string& name, double sm_util_pct, double memory_gib,
               bool high = false) {
  JobRequest j;
  j.name = name;
  j.profile.name = "profile-" + std::to_string(static_cast<int>(sm_util_pct));
  j.profile.system.sm_util_pct = sm_util_pct;
  j.priority = high ? PriorityClass::kHigh : PriorityClass::kBestEffort;
  j.memory_gib = memory_gib;
  return j;
}

const PlannedJob& Named(const Plan& p, const std::string& name) {
  for (const auto& j : p.jobs) {
    if (j.name == name) return j;
  }
  ADD_FAILURE() << name;
  return p.jobs[0];
}

TEST(PlannerTest, EnoughGpusEveryoneAlone) {
  PlanOptions o;
  o.gpus = 3;
  Result<Plan> p =
      PlanPlacement({Job("a", 100, 4), Job("b", 20, 4), Job("c", 50, 4)},
                    ProductModel(), *GpuPreset("V100"), o);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_DOUBLE_EQ(p->total, 3.0);
  for (const auto& j : p->jobs)
    EXPECT_NE(j.reason.find("enough GPUs"), std::string::npos) << j.reason;
}

TEST(PlannerTest, IdleGpusCostNothingAndTheirNumberIsBounded) {
  // The search carries only as many GPUs as there are jobs; the rest are
  // listed idle. Past kMaxGpus the option is an error.
  PlanOptions o;
  o.gpus = kMaxGpus;
  Result<Plan> p = PlanPlacement({Job("a", 100, 4), Job("b", 20, 4)},
                                 ProductModel(), *GpuPreset("V100"), o);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->gpus.size(), static_cast<size_t>(kMaxGpus));
  EXPECT_DOUBLE_EQ(p->total, 2.0);
  EXPECT_EQ(p->gpus.back().mode, GpuMode::kIdle);
  o.gpus = kMaxGpus + 1;
  EXPECT_FALSE(
      PlanPlacement({Job("a", 100, 4)}, ProductModel(), *GpuPreset("V100"), o)
          .ok());
}

TEST(PlannerTest, AWaitingJobHasNullGpuAndPredictionInTheJson) {
  PlanOptions o;
  o.gpus = 1;
  o.max_jobs_per_gpu = 1;
  Result<Plan> p = PlanPlacement({Job("a", 100, 4), Job("b", 20, 4)},
                                 ProductModel(), *GpuPreset("V100"), o);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->waiting, 1);
  const nlohmann::json j = nlohmann::json::parse(PlanToJson(*p));
  int nulls = 0;
  for (const auto& job : j["jobs"]) {
    if (job["gpu"].is_null()) {
      EXPECT_TRUE(job["predicted_normalized_throughput"].is_null());
      ++nulls;
    } else {
      EXPECT_EQ(job["gpu"], 0);
      EXPECT_DOUBLE_EQ(job["predicted_normalized_throughput"].get<double>(),
                       1.0);
    }
  }
  EXPECT_EQ(nulls, 1);
}

TEST(PlannerTest, AWaitingJobSaysWhetherMemoryOrAFloorKeepsItOut) {
  // One GPU holding a high-priority job H (SM 100 %). Partner F (SM 100 %)
  // would take H to 1 - 0.5 = 0.5 < 0.8: the floor. Partner M (SM 10 %)
  // would keep H at 0.95 but needs 30 GiB beside H's 4: memory.
  PlanOptions o;
  o.gpus = 1;
  Result<Plan> p = PlanPlacement({Job("H", 100, 4, true), Job("F", 100, 4)},
                                 ProductModel(), *GpuPreset("V100"), o);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_NE(Named(*p, "F").reason.find(
                "none of the 1 GPUs with room can take it: on 1 a "
                "high-priority job would fall below the floor 0.80"),
            std::string::npos)
      << Named(*p, "F").reason;
  p = PlanPlacement({Job("H", 100, 4, true), Job("M", 10, 30)}, ProductModel(),
                    *GpuPreset("V100"), o);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_NE(
      Named(*p, "M").reason.find(
          "on 1 its 30.0 GiB of memory does not fit beside the jobs there"),
      std::string::npos)
      << Named(*p, "M").reason;
}

TEST(PlannerTest, PairsLightWithHeavy) {
  // Two light (20 %) and two heavy (100 %) jobs on 2 GPUs.
  //   light+heavy: 1 - 0.5*0.2*1 = 0.9 each -> 1.8 per GPU -> 3.6;
  //   light+light (0.98 x 2) with heavy+heavy (0.5 x 2) -> 2.96;
  //   triple {L, L, H} (0.98*0.9 x 2 + 0.9*0.9) with H alone -> 3.574.
  // The optimum is one light and one heavy job per GPU.
  PlanOptions o;
  o.gpus = 2;
  Result<Plan> p = PlanPlacement({Job("L1", 20, 2), Job("L2", 20, 2),
                                  Job("H1", 100, 8), Job("H2", 100, 8)},
                                 ProductModel(), *GpuPreset("V100"), o);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_NEAR(p->total, 3.6, 1e-9);
  EXPECT_NE(Named(*p, "L1").gpu, Named(*p, "L2").gpu);
  EXPECT_NEAR(Named(*p, "H1").predicted, 0.9, 1e-12);
  EXPECT_EQ(p->waiting, 0);
  EXPECT_EQ(p->gpus[0].mode, GpuMode::kMps);
}

TEST(PlannerTest, HighPriorityKeepsItsFloor) {
  // H is high priority with floor 0.95; any partner takes it to <= 0.9, so it
  // runs alone and the two light jobs share (1 + 0.98 x 2 = 2.96).
  PlanOptions o;
  o.gpus = 2;
  o.high_priority_floor = 0.95;
  Result<Plan> p = PlanPlacement(
      {Job("H", 100, 8, true), Job("L1", 20, 2), Job("L2", 20, 2)},
      ProductModel(), *GpuPreset("V100"), o);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_NEAR(p->total, 2.96, 1e-9);
  const PlannedJob& h = Named(*p, "H");
  EXPECT_DOUBLE_EQ(h.predicted, 1.0);
  EXPECT_NE(h.reason.find("high priority"), std::string::npos) << h.reason;
  EXPECT_NE(h.reason.find("0.95"), std::string::npos) << h.reason;
}

TEST(PlannerTest, MemoryMustFit) {
  // Two 20 GiB jobs cannot share a 32 GiB V100 (31.5 GiB usable): one runs,
  // the other waits, and both reasons say memory.
  PlanOptions o;
  o.gpus = 1;
  Result<Plan> p = PlanPlacement({Job("A", 20, 20), Job("B", 20, 20)},
                                 ProductModel(), *GpuPreset("V100"), o);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->placed, 1);
  EXPECT_EQ(p->waiting, 1);
  const PlannedJob& alone = p->jobs[0].gpu >= 0 ? p->jobs[0] : p->jobs[1];
  const PlannedJob& waiting = p->jobs[0].gpu >= 0 ? p->jobs[1] : p->jobs[0];
  EXPECT_NE(alone.reason.find("memory"), std::string::npos) << alone.reason;
  EXPECT_NE(waiting.reason.find("memory"), std::string::npos) << waiting.reason;
  // A job larger than the GPU waits with its size named.
  p = PlanPlacement({Job("huge", 20, 40)}, ProductModel(), *GpuPreset("V100"),
                    o);
  ASSERT_TRUE(p.ok());
  EXPECT_NE(p->jobs[0].reason.find("needs 40.0 GiB"), std::string::npos)
      << p->jobs[0].reason;
}

TEST(PlannerTest, NoSharingThatLowersTheTotal) {
  // Two heavy best-effort jobs on one GPU: together 0.5 + 0.5 = 1.0, not more
  // than one alone, so the second waits.
  PlanOptions o;
  o.gpus = 1;
  Result<Plan> p = PlanPlacement({Job("H1", 100, 4), Job("H2", 100, 4)},
                                 ProductModel(), *GpuPreset("V100"), o);
  ASSERT_TRUE(p.ok());
  EXPECT_DOUBLE_EQ(p->total, 1.0);
  EXPECT_EQ(p->waiting, 1);
}

TEST(PlannerTest, MoreHighPriorityJobsPlacedComesFirst) {
  // One GPU, three high-priority jobs. W (SM 100 %, the largest, so the
  // greedy start places it first) keeps its 0.8 floor beside nobody
  // (1 - 0.5 * 1 * 0.5 = 0.75 next to a V); the two V (SM 50 %) keep
  // 1 - 0.5 * 0.25 = 0.875 beside each other. Two placed beat one.
  PlanOptions o;
  o.gpus = 1;
  Result<Plan> p = PlanPlacement(
      {Job("W", 100, 16, true), Job("V1", 50, 3, true), Job("V2", 50, 3, true)},
      ProductModel(), *GpuPreset("V100"), o);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(Named(*p, "W").gpu, -1) << FormatPlanTable(*p);
  EXPECT_EQ(Named(*p, "V1").gpu, 0);
  EXPECT_EQ(Named(*p, "V2").gpu, 0);
  EXPECT_NEAR(p->total, 1.75, 1e-9);
}

TEST(PlannerTest, TheOrderOfTheJobsFileDoesNotChangeThePlan) {
  // Twelve jobs of different SM use, memory and priority on three GPUs, in
  // six orders: the same groups (as sets of names) and the same total.
  std::vector<JobRequest> jobs;
  for (int i = 0; i < 12; ++i) {
    jobs.push_back(Job("j" + std::to_string(i), 10 + (i * 37) % 91,
                       1 + (i * 5) % 11, i % 5 == 0));
  }
  PlanOptions o;
  o.gpus = 3;
  auto groups = [&](const std::vector<JobRequest>& order, double* total) {
    Result<Plan> p =
        PlanPlacement(order, ProductModel(), *GpuPreset("V100"), o);
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    std::vector<std::vector<std::string>> out;
    for (const PlannedGpu& g : p->gpus) {
      std::vector<std::string> names;
      for (int j : g.jobs) names.push_back(p->jobs[j].name);
      std::sort(names.begin(), names.end());
      out.push_back(names);
    }
    std::sort(out.begin(), out.end());
    *total = p->total;
    return out;
  };
  double first_total = 0;
  const auto first = groups(jobs, &first_total);
  std::vector<JobRequest> order = jobs;
  for (int round = 0; round < 5; ++round) {
    std::reverse(order.begin(), order.end());
    std::rotate(order.begin(), order.begin() + 1 + round, order.end());
    double total = 0;
    EXPECT_EQ(groups(order, &total), first) << "order " << round;
    EXPECT_DOUBLE_EQ(total, first_total) << "order " << round;
  }
  // Two high-priority jobs alike in memory, one GPU, floor 0.9: S (SM 100 %)
  // keeps it beside nobody; V (SM 30 %) beside the best-effort B
  // (1 - 0.5 * 0.09 = 0.955 each). Either order: V and B, 1.91.
  o.gpus = 1;
  o.high_priority_floor = 0.9;
  const JobRequest s = Job("S", 100, 4, true), v = Job("V", 30, 4, true),
                   b = Job("B", 30, 4);
  for (const auto& order :
       {std::vector<JobRequest>{s, v, b}, std::vector<JobRequest>{v, s, b}}) {
    double total = 0;
    groups(order, &total);
    EXPECT_NEAR(total, 1.91, 1e-9);
  }
}

TEST(PlannerTest, WithAGpuForEachJobNoneShares) {
  // Jobs that use no SM at all are predicted at 1.0 next to anyone, so
  // sharing ties with running alone; with a GPU each, none shares.
  PlanOptions o;
  o.gpus = 4;
  Result<Plan> p =
      PlanPlacement({Job("A", 0, 4, true), Job("B", 0, 4), Job("C", 0, 4)},
                    ProductModel(), *GpuPreset("V100"), o);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  for (const PlannedGpu& g : p->gpus) EXPECT_LE(g.jobs.size(), 1u);
  EXPECT_NE(Named(*p, "B").reason.find("enough GPUs"), std::string::npos)
      << Named(*p, "B").reason;
}

TEST(PlannerTest, MigWhenInstancesBeatSharing) {
  // Two heavy jobs on one A100: MPS gives 0.5 + 0.5. Their MPS curves reach
  // 90 % of solo at 30 % of the SMs and 95 % at 50 %. MIG: 3g.20gb has
  // min(42/108, 4/8) = 38.9 % -> 0.9 + (8.9/20) * 0.05 = 0.9222; 4g.20gb
  // min(56/108, 4/8) = 50 % -> 0.95. Together (7 slices, 8 eighths) 1.8722,
  // the best fitting assignment (3g+3g: 1.844; 2g+4g: 1.75; 4g+4g: 8 slices).
  JobRequest a = Job("A", 100, 10), b = Job("B", 100, 10);
  for (JobRequest* j : {&a, &b})
    j->profile.mps_scaling = {{10, 50}, {30, 90}, {50, 95}, {100, 100}};
  PlanOptions o;
  o.gpus = 1;
  o.allow_mig = true;
  Result<Plan> p = PlanPlacement({a, b}, ProductModel(), *GpuPreset("A100"), o);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->gpus[0].mode, GpuMode::kMig);
  const double f3 = 42.0 / 108.0 * 100;
  EXPECT_NEAR(p->total, 0.9 + (f3 - 30) / 20 * 0.05 + 0.95, 1e-9);
  std::vector<std::string> slices = {p->jobs[0].mig_profile,
                                     p->jobs[1].mig_profile};
  std::sort(slices.begin(), slices.end());
  EXPECT_EQ(slices, (std::vector<std::string>{"3g.20gb", "4g.20gb"}));
  // The V100 has no MIG: asking for it is an error, not a silent fallback.
  EXPECT_FALSE(
      PlanPlacement({a, b}, ProductModel(), *GpuPreset("V100"), o).ok());
}

TEST(PlannerTest, MigInstancesKeepTheReserveFree) {
  // Two 19.8 GiB jobs on one A100 (40 GiB): together they exceed the 39.5
  // GiB MPS leaves; each fits a 20 GiB instance only if no reserve is kept
  // there (real instances are 19.62 GiB, and a CUDA context needs room).
  JobRequest a = Job("A", 100, 19.8), b = Job("B", 100, 19.8);
  for (JobRequest* j : {&a, &b})
    j->profile.mps_scaling = {{10, 50}, {30, 90}, {50, 95}, {100, 100}};
  PlanOptions o;
  o.gpus = 1;
  o.allow_mig = true;
  o.memory_reserve_gib = 0;
  Result<Plan> p = PlanPlacement({a, b}, ProductModel(), *GpuPreset("A100"), o);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->gpus[0].mode, GpuMode::kMig);
  o.memory_reserve_gib = 0.5;
  p = PlanPlacement({a, b}, ProductModel(), *GpuPreset("A100"), o);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_NE(p->gpus[0].mode, GpuMode::kMig);
  EXPECT_DOUBLE_EQ(p->total, 1.0);  // one runs alone, the other waits
}

// Best total by trying every assignment of each job to a GPU or the waiting
// list (high-priority jobs must be placed).
double BruteForce(const std::vector<JobRequest>& jobs, int gpus,
                  const predict::InterferenceModel& model, const GpuSpec& gpu,
                  const PlanOptions& o) {
  std::vector<profile::WorkloadProfile> profiles;
  std::vector<JobType> types;
  for (const auto& j : jobs) {
    profiles.push_back(j.profile);
    types.push_back({static_cast<int>(types.size()),
                     j.priority == PriorityClass::kHigh, j.memory_gib});
  }
  GroupOptions go{
      static_cast<double>(gpu.memory_bytes) / (1 << 30) - o.memory_reserve_gib,
      o.high_priority_floor, false};
  GroupEvaluator e = *GroupEvaluator::Create(model, profiles, types, gpu, go);
  const int n = static_cast<int>(jobs.size());
  double best = -1;
  std::vector<int> at(n, 0);  // gpus = waiting
  std::function<void(int)> rec = [&](int i) {
    if (i == n) {
      double total = 0;
      for (int g = 0; g < gpus; ++g) {
        std::vector<int> m;
        for (int k = 0; k < n; ++k) {
          if (at[k] == g) m.push_back(k);
        }
        if (static_cast<int>(m.size()) > o.max_jobs_per_gpu) return;
        std::array<int, 3> key{-1, -1, -1};
        for (size_t k = 0; k < m.size(); ++k) key[k] = m[k];
        const GroupOutcome out = e.Evaluate(key);
        if (!out.feasible) return;
        total += out.total;
      }
      best = std::max(best, total);
      return;
    }
    for (int g = 0; g <= gpus; ++g) {
      if (g == gpus && types[i].high) continue;
      at[i] = g;
      rec(i + 1);
    }
  };
  rec(0);
  return best;
}

TEST(PlannerTest, MatchesBruteForceOnSmallKaceInstances) {
  // Seven jobs of KACE workloads on 2 or 3 GPUs, with the model trained on
  // the KACE pairs: the planner's total equals the exhaustive optimum.
  predict::DatasetSource src;
  src.kace_dir = std::string(COLO_DATA_DIR) + "/kace";
  Result<predict::LoadedDataset> d = predict::LoadDataset(src);
  ASSERT_TRUE(d.ok());
  Result<predict::InterferenceModel> model = predict::TrainInterferenceModel(
      d->data, predict::AllPairIds(d->data), predict::TrainOptions{});
  ASSERT_TRUE(model.ok());
  const auto& ps = d->data.profiles;
  for (int instance = 0; instance < 4; ++instance) {
    std::vector<JobRequest> jobs;
    for (int k = 0; k < 7; ++k) {
      JobRequest j;
      j.profile = ps[(instance * 5 + k * 3) % ps.size()];
      j.name = "j" + std::to_string(k);
      j.memory_gib = *j.profile.system.memory_used_gib;
      j.priority =
          k == instance ? PriorityClass::kHigh : PriorityClass::kBestEffort;
      jobs.push_back(j);
    }
    PlanOptions o;
    o.gpus = 2 + instance % 2;
    o.high_priority_floor = 0.6;
    Result<Plan> p = PlanPlacement(jobs, *model, *GpuPreset("V100"), o);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    const double optimum =
        BruteForce(jobs, o.gpus, *model, *GpuPreset("V100"), o);
    EXPECT_NEAR(p->total, optimum, 1e-9) << "instance " << instance << "\n"
                                         << FormatPlanTable(*p);
  }
}

}  // namespace
}  // namespace colo::place
