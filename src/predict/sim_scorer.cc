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

Status SimScorerOptions::Validate() const {
  COLO_RETURN_IF_ERROR(pair.Validate());
  if (!(max_solo_ratio > 1))
    return InvalidArgumentError("simulator scorer: max_solo_ratio must be > 1");
  return OkStatus();
}

Result<std::vector<ExtraScorer>> SimulatorScorers(
    const PairDataset& data, const SimScorerOptions& options) {
  COLO_RETURN_IF_ERROR(options.Validate());
  const SimPairOptions& o = options.pair;
  std::map<std::string, SoloReference> refs;
  if (!options.solo_reference_csv.empty()) {
    COLO_ASSIGN_OR_RETURN(refs, LoadSoloReference(options.solo_reference_csv));
  }
  std::vector<ReferencedProfile> profiles;
  for (const profile::WorkloadProfile& p : data.profiles) {
    auto it = refs.find(p.name);
    profiles.push_back(
        it == refs.end()
            ? ReferencedProfile{p, 1.0}
            : ApplySoloReference(p, it->second, options.max_solo_ratio));
  }
  // Simulate every pair up front so that errors surface here, once.
  auto cache =
      std::make_shared<std::map<std::pair<int, int>, PairPrediction>>();
  for (const PairSample& p : data.pairs) {
    const ReferencedProfile& a = profiles[p.a];
    const ReferencedProfile& b = profiles[p.b];
    Result<PairPrediction> pr = SimulatePair(a.profile, b.profile, o);
    if (!pr.ok())
      return pr.status().WithContext("simulating the pair at " + p.where);
    (*cache)[{p.a, p.b}] = PairPrediction{pr->norm_a * a.baseline_scale,
                                          pr->norm_b * b.baseline_scale};
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

Result<std::vector<ExtraScorer>> SimulatorScorers(const PairDataset& data,
                                                  const std::string& gpu) {
  SimScorerOptions o;
  o.pair.gpu = gpu;
  return SimulatorScorers(data, o);
}

}  // namespace colo::predict
