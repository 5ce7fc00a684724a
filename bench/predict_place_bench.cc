// Benchmarks for predict/ and place/, with the figures the issue asks for:
//   * training the linear model on the KACE pairs (whole pipeline: pool,
//     correlation filter, inner-CV choice of threshold and ridge lambda,
//     final fit) — target under 10 ms;
//   * planning 1,000 jobs (KACE workloads, 10 % high priority) on 250 GPUs
//     — target under 1 s — with each job's memory its profile's (third
//     argument 0: 38 kinds of job) or its own (1: about 1,000 kinds, as
//     when users give each job its memory);
// and, measured in the same run, the plan's predicted total and the
// partner-choice ratios (k-fold, LOWO, best baseline) as counters.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "colo/gpu_spec.h"
#include "place/planner.h"
#include "predict/dataset_source.h"
#include "predict/model_eval.h"
#include "predict/model_training.h"

namespace {

using namespace colo;

const predict::LoadedDataset& Kace() {
  static const predict::LoadedDataset d = [] {
    predict::DatasetSource s;
    s.kace_dir = std::string(COLO_DATA_DIR) + "/kace";
    Result<predict::LoadedDataset> r = predict::LoadDataset(s);
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
      std::abort();
    }
    return std::move(r).value();
  }();
  return d;
}

void BM_TrainLinearModel(benchmark::State& state) {
  const predict::LoadedDataset& d = Kace();
  const std::vector<int> all = predict::AllPairIds(d.data);
  predict::TrainReport rep;
  for (auto _ : state) {
    Result<predict::InterferenceModel> m = predict::TrainInterferenceModel(
        d.data, all, predict::TrainOptions{}, &rep);
    if (!m.ok()) state.SkipWithError(m.status().ToString().c_str());
    benchmark::DoNotOptimize(m);
  }
  state.counters["pairs"] = static_cast<double>(d.data.pairs.size());
  state.counters["terms"] = static_cast<double>(rep.selected.size());
}
BENCHMARK(BM_TrainLinearModel)->Unit(benchmark::kMillisecond);

void BM_PartnerChoiceEval(benchmark::State& state) {
  const predict::LoadedDataset& d = Kace();
  predict::EvalReport r;
  for (auto _ : state) {
    Result<predict::EvalReport> e =
        predict::EvaluatePartnerChoice(d.data, predict::EvalOptions{});
    if (!e.ok()) state.SkipWithError(e.status().ToString().c_str());
    r = *e;
  }
  double best_baseline = 0;
  for (const auto& b : r.baselines)
    best_baseline = std::max(best_baseline, b.mean);
  state.counters["kfold_ratio"] = r.kfold.mean;
  state.counters["lowo_ratio"] = r.lowo.mean;
  state.counters["best_baseline"] = best_baseline;
}
BENCHMARK(BM_PartnerChoiceEval)->Unit(benchmark::kMillisecond)->Iterations(1);

std::vector<place::JobRequest> ManyJobs(int n, bool own_memory) {
  const auto& profiles = Kace().data.profiles;
  std::vector<place::JobRequest> jobs;
  for (int i = 0; i < n; ++i) {
    place::JobRequest j;
    j.profile = profiles[(i * 7 + i / 19) % profiles.size()];
    j.name = "job-" + std::to_string(i);
    j.memory_gib = *j.profile.system.memory_used_gib;
    if (own_memory) j.memory_gib *= 0.5 + (i * 37 % 1000) / 1000.0;
    j.priority =
        i % 10 == 0 ? PriorityClass::kHigh : PriorityClass::kBestEffort;
    jobs.push_back(std::move(j));
  }
  return jobs;
}

void BM_Plan(benchmark::State& state) {
  const int n_jobs = static_cast<int>(state.range(0)),
            n_gpus = static_cast<int>(state.range(1));
  const predict::LoadedDataset& d = Kace();
  const predict::InterferenceModel model = *predict::TrainInterferenceModel(
      d.data, predict::AllPairIds(d.data), predict::TrainOptions{});
  const std::vector<place::JobRequest> jobs =
      ManyJobs(n_jobs, state.range(2) != 0);
  place::PlanOptions o;
  o.gpus = n_gpus;
  o.allow_mig = state.range(3) != 0;  // on A100s, which MIG can split.
  const GpuSpec gpu = *GpuPreset(o.allow_mig ? "A100" : "V100");
  place::Plan plan;
  for (auto _ : state) {
    Result<place::Plan> p = place::PlanPlacement(jobs, model, gpu, o);
    if (!p.ok()) state.SkipWithError(p.status().ToString().c_str());
    plan = *p;
  }
  state.counters["predicted_total"] = plan.total;
  state.counters["placed"] = plan.placed;
  state.counters["waiting"] = plan.waiting;
  state.counters["passes"] = plan.passes;
}
BENCHMARK(BM_Plan)
    ->Args({100, 25, 0, 0})
    ->Args({1000, 250, 0, 0})
    ->Args({1000, 250, 1, 0})
    ->Args({100, 25, 0, 1})
    ->Args({1000, 250, 0, 1})
    ->Args({1000, 250, 1, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
