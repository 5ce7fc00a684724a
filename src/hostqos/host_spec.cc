#include "hostqos/host_spec.h"

#include <set>

#include "io/yaml_value.h"

namespace colo::hostqos {
namespace {

Status Bad(const std::string& where, const std::string& what, double got) {
  return InvalidArgumentError(where + ": expected " + what + ", got " +
                              io::FormatG(got));
}

}  // namespace

double GpuJobHost::HostGbPerStep() const {
  return input_gb_per_step + copy_gb_per_step * (pinned ? 1.0 : 3.0);
}

int HostSpec::DomainIndex(const std::string& name) const {
  for (size_t i = 0; i < domains.size(); ++i) {
    if (domains[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

Status HostSpec::Validate() const {
  COLO_RETURN_IF_ERROR(saturation.Validate());
  if (domains.empty()) {
    return InvalidArgumentError("host: expected at least one memory domain");
  }
  std::set<std::string> names;
  for (const MemoryDomain& d : domains) {
    const std::string w = "host.domains." + d.name;
    if (d.name.empty())
      return InvalidArgumentError("host: a domain has no name");
    if (!names.insert(d.name).second) {
      return InvalidArgumentError("host: domain '" + d.name + "' twice");
    }
    if (!(d.peak_gbps > 0 && d.peak_gbps <= 1e5)) {
      return Bad(w + ".peak_gbps", "a number in (0, 1e5] (GB/s)", d.peak_gbps);
    }
    if (d.cores < 1 || d.cores > 4096) {
      return Bad(w + ".cores", "an integer in [1, 4096]", d.cores);
    }
  }
  names.clear();
  const auto check_domain = [&](const std::string& w,
                                const std::string& domain) -> Status {
    if (DomainIndex(domain) < 0) {
      std::string known;
      for (const MemoryDomain& d : domains) {
        known += (known.empty() ? "" : ", ") + d.name;
      }
      return InvalidArgumentError(w + ".domain: no domain '" + domain +
                                  "' (the host has " + known + ")");
    }
    return OkStatus();
  };
  for (const GpuJobHost& j : gpu_jobs) {
    const std::string w = "gpu job " + j.name;
    if (j.name.empty() || !names.insert(j.name).second) {
      return InvalidArgumentError(
          "host: job names must be unique and "
          "non-empty, got '" +
          j.name + "'");
    }
    COLO_RETURN_IF_ERROR(check_domain(w, j.domain));
    if (!(j.gpu_step_ms > 0 && j.gpu_step_ms <= 1e7)) {
      return Bad(w + ".gpu_step_ms", "a number in (0, 1e7]", j.gpu_step_ms);
    }
    if (!(j.host_cpu_ms >= 0 && j.host_cpu_ms <= 1e7)) {
      return Bad(w + ".host_cpu_ms", "a number in [0, 1e7]", j.host_cpu_ms);
    }
    if (!(j.input_gb_per_step >= 0 && j.input_gb_per_step <= 1e4)) {
      return Bad(w + ".input_gb_per_step", "a number in [0, 1e4]",
                 j.input_gb_per_step);
    }
    if (!(j.copy_gb_per_step >= 0 && j.copy_gb_per_step <= 1e4)) {
      return Bad(w + ".copy_gb_per_step", "a number in [0, 1e4]",
                 j.copy_gb_per_step);
    }
    if (!(j.input_gbps > 0 && j.input_gbps <= 1e5)) {
      return Bad(w + ".input_gbps", "a number in (0, 1e5] (GB/s)",
                 j.input_gbps);
    }
    if (j.cores < 1 || j.cores > 4096) {
      return Bad(w + ".cores", "an integer in [1, 4096]", j.cores);
    }
  }
  for (const Aggressor& a : aggressors) {
    const std::string w = "aggressor " + a.name;
    if (a.name.empty() || !names.insert(a.name).second) {
      return InvalidArgumentError(
          "host: job names must be unique and "
          "non-empty, got '" +
          a.name + "'");
    }
    COLO_RETURN_IF_ERROR(check_domain(w, a.domain));
    if (!(a.demand_gbps >= 0 && a.demand_gbps <= 1e5)) {
      return Bad(w + ".demand_gbps", "a number in [0, 1e5] (GB/s)",
                 a.demand_gbps);
    }
    if (a.cores < 1 || a.cores > 4096) {
      return Bad(w + ".cores", "an integer in [1, 4096]", a.cores);
    }
    if (!(a.memory_fraction > 0 && a.memory_fraction <= 1)) {
      return Bad(w + ".memory_fraction", "a number in (0, 1]",
                 a.memory_fraction);
    }
    if (!(a.start_s >= 0 && a.start_s <= 1e6)) {
      return Bad(w + ".start_s", "a number in [0, 1e6]", a.start_s);
    }
    if (a.stop_s && !(*a.stop_s > a.start_s && *a.stop_s <= 1e6)) {
      return Bad(w + ".stop_s", "a number > start_s and <= 1e6", *a.stop_s);
    }
  }
  if (!(knobs.prefetch_waste >= 0 && knobs.prefetch_waste < 1)) {
    return Bad("host.prefetch_waste", "a number in [0, 1)",
               knobs.prefetch_waste);
  }
  if (!(knobs.prefetch_slowdown >= 0 && knobs.prefetch_slowdown <= 10)) {
    return Bad("host.prefetch_slowdown", "a number in [0, 10]",
               knobs.prefetch_slowdown);
  }
  return OkStatus();
}

}  // namespace colo::hostqos
