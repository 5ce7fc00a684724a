#include "predict/sim_scorer.h"

#include <memory>

#include "experiment/scenario_runner.h"

namespace colo::predict {

Status SimPairOptions::Validate() const {
  COLO_RETURN_IF_ERROR(workload.Validate());
  if (duration.count() <= 0)
    return InvalidArgumentError("simulated duration must be > 0");
  return OkStatus();
}

Result<PairPrediction> SimulatePair(const profile::WorkloadProfile& a,
                                    const profile::WorkloadProfile& b,
                                    const SimPairOptions& o) {
  COLO_RETURN_IF_ERROR(o.Validate());
  experiment::ScenarioSpec spec;
  spec.name = a.name + "+" + b.name;
  spec.source = "simulated pair";
  COLO_ASSIGN_OR_RETURN(spec.gpu, GpuPreset(o.gpu));
  spec.mode = experiment::SharingMode::kMps;
  spec.seed = o.seed;
  spec.duration = o.duration;
  for (const profile::WorkloadProfile* p : {&a, &b}) {
    experiment::JobSpec job;
    job.name = p == &a ? "a" : "b";
    COLO_ASSIGN_OR_RETURN(job.workload, SyntheticWorkload(*p, o.workload));
    spec.jobs.push_back(std::move(job));
  }
  COLO_ASSIGN_OR_RETURN(experiment::RunReport r, experiment::RunScenario(spec));
  if (r.jobs.size() != 2)
    return InternalError("simulated pair: expected two job reports");
  for (const experiment::JobReport& j : r.jobs) {
    if (!j.normalized) {
      return FailedPreconditionError("simulated pair: job '" + j.name +
                                     "' completed nothing alone in " +
                                     FormatDuration(o.duration));
    }
  }
  return PairPrediction{*r.jobs[0].normalized, *r.jobs[1].normalized};
}

Result<std::vector<ExtraScorer>> SimulatorScorers(const PairDataset& data,
                                                  const std::string& gpu) {
  SimPairOptions o;
  o.gpu = gpu;
  COLO_RETURN_IF_ERROR(o.Validate());
  // Simulate every pair up front so that errors surface here, once.
  auto cache =
      std::make_shared<std::map<std::pair<int, int>, PairPrediction>>();
  for (const PairSample& p : data.pairs) {
    Result<PairPrediction> pr =
        SimulatePair(data.profiles[p.a], data.profiles[p.b], o);
    if (!pr.ok())
      return pr.status().WithContext("simulating the pair at " + p.where);
    (*cache)[{p.a, p.b}] = *pr;
  }
  ExtraScorer s;
  s.name = "simulator";
  s.predict = [cache](const PairSample& p) -> Result<PairPrediction> {
    auto it = cache->find({p.a, p.b});
    if (it == cache->end())
      return InternalError("simulator scorer: pair not simulated");
    return it->second;
  };
  return std::vector<ExtraScorer>{s};
}

}  // namespace colo::predict
