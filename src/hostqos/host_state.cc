#include "hostqos/host_state.h"

#include <algorithm>

namespace colo::hostqos {
namespace {

// The CPU share an aggressor's knobs leave it, of its declared cores.
double Share(const Aggressor& a, const AggressorKnobs& k) {
  return static_cast<double>(k.cores) / a.cores * k.quota;
}

// Its memory time per unit of work relative to alone, before L.
double MemoryStretch(const HostSpec& spec, const AggressorKnobs& k) {
  const double mba = 100.0 / k.mba_percent;
  return mba * (k.prefetch_off ? 1.0 + spec.knobs.prefetch_slowdown : 1.0);
}

double AggressorRate(const HostSpec& spec, const Aggressor& a,
                     const AggressorKnobs& k, double crowd, double l) {
  const double m = a.memory_fraction;
  return Share(a, k) / ((1.0 - m) * crowd + m * l * MemoryStretch(spec, k));
}

double AggressorGbps(const HostSpec& spec, const Aggressor& a,
                     const AggressorKnobs& k, double rate) {
  return a.demand_gbps * rate *
         (k.prefetch_off ? 1.0 - spec.knobs.prefetch_waste : 1.0);
}

double StepMs(const GpuJobHost& j, int loader_cores, double crowd, double l) {
  const double host_ms =
      j.host_cpu_ms * crowd * j.cores / std::max(1, loader_cores) +
      j.HostGbPerStep() / j.input_gbps * 1e3 * l;
  return j.loader_ahead ? std::max(j.gpu_step_ms, host_ms)
                        : j.gpu_step_ms + host_ms;
}

}  // namespace

HostKnobs OpenKnobs(const HostSpec& spec) {
  HostKnobs knobs;
  for (const Aggressor& a : spec.aggressors) {
    knobs.aggressors.push_back({.cores = a.cores});
  }
  for (const GpuJobHost& j : spec.gpu_jobs)
    knobs.loader_cores.push_back(j.cores);
  return knobs;
}

HostSnapshot EvaluateHost(const HostSpec& spec, const HostKnobs& knobs,
                          const std::vector<bool>& running) {
  HostSnapshot snap;
  snap.running = running;
  snap.aggressor_rate.assign(spec.aggressors.size(), 0.0);
  snap.aggressor_gbps.assign(spec.aggressors.size(), 0.0);
  snap.step_ms.assign(spec.gpu_jobs.size(), 0.0);
  for (size_t d = 0; d < spec.domains.size(); ++d) {
    const MemoryDomain& domain = spec.domains[d];
    // CPU crowding: cores asked for in the domain past the cores it has
    // stretch every job's compute in proportion.
    double cores_used = 0;
    for (size_t j = 0; j < spec.gpu_jobs.size(); ++j) {
      if (spec.gpu_jobs[j].domain == domain.name) {
        cores_used += knobs.loader_cores[j];
      }
    }
    for (size_t i = 0; i < spec.aggressors.size(); ++i) {
      if (running[i] && spec.aggressors[i].domain == domain.name) {
        cores_used += knobs.aggressors[i].cores * knobs.aggressors[i].quota;
      }
    }
    const double crowd = std::max(1.0, cores_used / domain.cores);
    const auto achieved = [&](double l) {
      double gbps = 0;
      for (size_t j = 0; j < spec.gpu_jobs.size(); ++j) {
        const GpuJobHost& job = spec.gpu_jobs[j];
        if (job.domain != domain.name) continue;
        gbps += job.HostGbPerStep() /
                (StepMs(job, knobs.loader_cores[j], crowd, l) * 1e-3);
      }
      for (size_t i = 0; i < spec.aggressors.size(); ++i) {
        const Aggressor& a = spec.aggressors[i];
        if (!running[i] || a.domain != domain.name) continue;
        const AggressorKnobs& k = knobs.aggressors[i];
        gbps += AggressorGbps(spec, a, k, AggressorRate(spec, a, k, crowd, l));
      }
      return gbps;
    };
    const DomainState state =
        SolveDomain(spec.saturation, domain.peak_gbps, achieved);
    snap.domains.push_back(state);
    const double l = state.latency_factor;
    for (size_t j = 0; j < spec.gpu_jobs.size(); ++j) {
      if (spec.gpu_jobs[j].domain != domain.name) continue;
      snap.step_ms[j] =
          StepMs(spec.gpu_jobs[j], knobs.loader_cores[j], crowd, l);
    }
    for (size_t i = 0; i < spec.aggressors.size(); ++i) {
      const Aggressor& a = spec.aggressors[i];
      if (!running[i] || a.domain != domain.name) continue;
      const AggressorKnobs& k = knobs.aggressors[i];
      snap.aggressor_rate[i] = AggressorRate(spec, a, k, crowd, l);
      snap.aggressor_gbps[i] =
          AggressorGbps(spec, a, k, snap.aggressor_rate[i]);
    }
  }
  for (size_t j = 0; j < spec.gpu_jobs.size(); ++j) {
    snap.solo_step_ms.push_back(SoloStepMs(spec, static_cast<int>(j)));
    snap.slowdown.push_back(snap.step_ms[j] / snap.solo_step_ms[j] - 1.0);
  }
  return snap;
}

double SoloStepMs(const HostSpec& spec, int job) {
  // The job alone in its domain at its declared loader cores: the baseline
  // its slowdown is measured against.
  const GpuJobHost& j = spec.gpu_jobs[job];
  const MemoryDomain& domain = spec.domains[spec.DomainIndex(j.domain)];
  const double crowd =
      std::max(1.0, static_cast<double>(j.cores) / domain.cores);
  const DomainState state =
      SolveDomain(spec.saturation, domain.peak_gbps, [&](double l) {
        return j.HostGbPerStep() / (StepMs(j, j.cores, crowd, l) * 1e-3);
      });
  return StepMs(j, j.cores, crowd, state.latency_factor);
}

}  // namespace colo::hostqos
