#include "tools/sim_progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace colo::tools {

SimProgress::SimProgress(int jobs, bool mig, int scenario_runs,
                         bool solo_baselines) {
  if (solo_baselines) {
    steps_.assign(static_cast<size_t>(jobs) * (mig ? 2 : 1), 1.0);
  }
  steps_.push_back(std::max(1, jobs));  // the shared run.
  double per = 0;
  for (double w : steps_) per += w;
  per_scenario_ = static_cast<int>(per);
  reporter_ = std::make_unique<report::ProgressReporter>(
      clock_,
      [](std::string_view s) {
        std::fwrite(s.data(), 1, s.size(), stderr);
        std::fflush(stderr);
      },
      per * std::max(1, scenario_runs));
}

std::unique_ptr<SimProgress> SimProgress::StartIfTerminal(
    const experiment::ScenarioSpec& spec, int scenario_runs,
    bool solo_baselines, const experiment::RunOptions& run) {
  if (isatty(STDERR_FILENO) == 0) return nullptr;
  const int jobs = static_cast<int>(spec.jobs.size());
  std::unique_ptr<SimProgress> p(
      new SimProgress(jobs, spec.mode == experiment::SharingMode::kMig,
                      scenario_runs, solo_baselines));
  // The probe: 1% of the simulated duration (>= 1 ms, <= all of it).
  experiment::ScenarioSpec probe = spec;
  probe.duration =
      std::min(std::max(spec.duration / 100, Milliseconds(1)), spec.duration);
  probe.sample_interval = Duration(0);
  experiment::RunOptions options;
  options.wave_by_wave = run.wave_by_wave;
  options.time_tolerance = run.time_tolerance;
  options.ideal_preemption = run.ideal_preemption;
  options.solo_baselines = false;
  const TimePoint t0 = p->clock_.Now();
  if (!experiment::RunScenario(probe, options).ok()) return p;
  const double wall_s = std::max(1e-6, ToSeconds(p->clock_.Now() - t0));
  const double sim_per_wall = ToSeconds(probe.duration) / wall_s;
  const double shared_s = ToSeconds(spec.duration) / sim_per_wall;
  const double total_s =
      shared_s * std::max(1, scenario_runs) * (solo_baselines ? 2 : 1);
  p->reporter_->Announce(
      Nanoseconds(static_cast<int64_t>(total_s * 1e9)),
      fmt::format("from a {} probe of the shared run: {:.3g} simulated s per "
                  "wall s, {} run(s){}",
                  FormatDuration(probe.duration), sim_per_wall,
                  std::max(1, scenario_runs),
                  solo_baselines ? ", solo runs as much again" : ""));
  return p;
}

std::function<void()> SimProgress::RunDoneHook() {
  return [this] {
    done_ += steps_[static_cast<size_t>(runs_seen_) % steps_.size()];
    ++runs_seen_;
    reporter_->Update(done_);
  };
}

void SimProgress::ScenarioRunsDone(int done) {
  done_ = static_cast<double>(done) * per_scenario_;
  reporter_->Update(done_);
}

void SimProgress::Finish() { reporter_->Finish(); }

}  // namespace colo::tools
