#include "report/policy_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/run_table.h"

namespace colo::report {
namespace {

std::optional<double> Mean(const std::vector<double>& xs) {
  if (xs.empty()) return std::nullopt;
  double sum = 0;
  for (double x : xs) sum += x;
  return sum / static_cast<double>(xs.size());
}

std::string Cell(const std::optional<double>& x, int digits) {
  if (!x || !std::isfinite(*x)) return "-";
  return fmt::format("{:.{}f}", *x, digits);
}

std::string PercentCell(const std::optional<double>& fraction, bool sign) {
  if (!fraction || !std::isfinite(*fraction)) return "-";
  return sign ? fmt::format("{:+.1f}%", 100 * *fraction)
              : fmt::format("{:.1f}%", 100 * *fraction);
}

// The priority runs' bounds differ (a sweep of the bound): each of their
// rows says its bound.
bool SeveralBounds(const std::vector<experiment::RunReport>& reports) {
  std::optional<Duration> first;
  for (const experiment::RunReport& r : reports) {
    if (!r.preemption_bound) continue;
    if (first && *first != *r.preemption_bound) return true;
    first = r.preemption_bound;
  }
  return false;
}

}  // namespace

PolicySummary SummarizeRun(const experiment::RunReport& report) {
  PolicySummary s;
  s.policy = report.policy.empty() ? "none" : report.policy;
  if (report.ideal_preemption == "keep-progress") s.policy = "ideal bound";
  if (report.ideal_preemption == "restart") s.policy = "ideal restart";
  std::vector<double> p50, p99, overhead, be, delayed, delay_p99;
  for (const experiment::JobReport& j : report.jobs) {
    if (j.priority == PriorityClass::kHigh) {
      if (j.kernel_delays && j.kernel_delays->compared > 0) {
        delayed.push_back(j.kernel_delays->DelayedFraction());
        // No kernel delayed: a max of 0 (LatencyStats' default), and no p99.
        s.hp_delay_max_us = std::max(s.hp_delay_max_us.value_or(0),
                                     ToMicros(j.kernel_delays->delay.max));
        if (j.kernel_delays->delayed > 0)
          delay_p99.push_back(ToMicros(j.kernel_delays->delay.p99));
      }
      if (j.shared_latency && j.shared_latency->count > 0) {
        p50.push_back(ToMillis(j.shared_latency->p50));
        p99.push_back(ToMillis(j.shared_latency->p99));
      }
      if (j.p99_overhead) overhead.push_back(*j.p99_overhead);
    } else {
      if (j.normalized) be.push_back(*j.normalized);
    }
  }
  s.hp_p50_ms = Mean(p50);
  s.hp_p99_ms = Mean(p99);
  s.hp_p99_overhead = Mean(overhead);
  s.hp_delayed = Mean(delayed);
  // No kernel delayed: a p99 of 0, not an unknown one.
  s.hp_delay_p99_us =
      delay_p99.empty() && !delayed.empty() ? 0.0 : Mean(delay_p99);
  s.be_normalized = Mean(be);
  s.system_throughput = report.system_throughput;
  std::vector<double> occupancy;
  for (const experiment::GpuReport& g : report.gpus) {
    occupancy.push_back(g.mean_sm_occupancy);
  }
  s.sm_occupancy = Mean(occupancy).value_or(0);
  for (const experiment::JobReport& j : report.jobs) {
    if (j.slo_verdict)
      s.slo_met = s.slo_met.value_or(true) && j.slo_verdict->met;
  }
  return s;
}

std::string FormatPolicyTable(
    const std::vector<experiment::RunReport>& reports) {
  std::string out;
  if (!reports.empty()) {
    const experiment::RunReport& first = reports.front();
    out += fmt::format("scenario  {}\n", first.scenario);
    out += fmt::format("gpu       {}\n", first.gpu);
    out += fmt::format("seed      {}\n", first.seed);
    out +=
        fmt::format("duration  {} simulated\n", FormatDuration(first.duration));
    out += "\n";
  }
  std::vector<std::string> headers = {
      "policy",       "hp p50 ms",    "hp p99 ms", "hp p99 +%", "hp delayed",
      "delay p99 us", "delay max us", "be norm",   "system",    "SM occ"};
  const bool several_bounds = SeveralBounds(reports);
  auto label = [several_bounds](const experiment::RunReport& r) {
    std::string name = SummarizeRun(r).policy;
    if (several_bounds && r.preemption_bound)
      name += " " + FormatDuration(*r.preemption_bound);
    return name;
  };
  const bool slo = std::any_of(reports.begin(), reports.end(),
                               [](const experiment::RunReport& r) {
                                 return SummarizeRun(r).slo_met.has_value();
                               });
  if (slo) headers.push_back("SLO");
  std::vector<std::vector<std::string>> rows;
  std::string unfused;  // the runs simulated wave by wave.
  for (const experiment::RunReport& r : reports) {
    const PolicySummary s = SummarizeRun(r);
    if (r.wave_by_wave) unfused += (unfused.empty() ? "" : ", ") + label(r);
    rows.push_back({label(r), Cell(s.hp_p50_ms, 3), Cell(s.hp_p99_ms, 3),
                    PercentCell(s.hp_p99_overhead, true),
                    PercentCell(s.hp_delayed, false),
                    Cell(s.hp_delay_p99_us, 1), Cell(s.hp_delay_max_us, 1),
                    Cell(s.be_normalized, 3), Cell(s.system_throughput, 3),
                    PercentCell(s.sm_occupancy, false)});
    if (slo)
      rows.back().push_back(!s.slo_met ? "-" : *s.slo_met ? "met" : "missed");
  }
  std::vector<size_t> widths;
  for (const std::string& h : headers) widths.push_back(h.size());
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      widths[c] = std::max(widths[c], row[c].size());
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) text += "  ";
      // The policy name aligns left, numbers right.
      text += c == 0 ? fmt::format("{:<{}}", cells[c], widths[c])
                     : fmt::format("{:>{}}", cells[c], widths[c]);
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + "\n";
  };
  line(headers);
  for (const auto& row : rows) line(row);
  out +=
      std::string(
          "\nhp: high-priority jobs' request latency (mean over them) and p99 "
          "overhead over solo;\n") +
      fmt::format(
          "hp delayed: the share of their kernels that took more than {:g} us "
          "longer than\n"
          "alone, from launch to end; delay p99 / max: how much longer those "
          "took\n",
          ToMicros(experiment::kKernelDelayThreshold)) +
      "be norm: best-effort jobs' mean normalized throughput; system: sum of "
      "normalized\nthroughput; SM occ: mean SM occupancy of the GPU\n";
  if (!unfused.empty())
    out += "wave by wave (--wave-by-wave): " + unfused + "\n";
  for (const experiment::RunReport& r : reports) {
    if (r.ideal_preemption.empty()) continue;
    out += SummarizeRun(r).policy +
           ": not a policy but a bound: best effort is preempted at once and "
           "for\nfree, " +
           (r.ideal_preemption == "restart" ? "its blocks starting again"
                                            : "keeping its progress") +
           ", and gets only what high priority leaves; no policy\npasses it "
           "without slowing high priority\n";
  }
  for (const experiment::RunReport& r : reports) {
    for (const experiment::JobReport& j : r.jobs) {
      if (j.slo_verdict && !j.slo_verdict->met) {
        out += "slo missed: " + label(r) + ": job '" + j.name + "' (" +
               j.slo->Describe() + "): " + j.slo_verdict->missed_because + "\n";
      }
    }
  }
  for (const experiment::RunReport& r : reports) {
    for (const experiment::JobReport& j : r.jobs) {
      const std::string warning = UnfinishedWarning(j);
      if (!warning.empty()) {
        out += "warning: " + label(r) + ": " + warning + "\n";
      }
    }
  }
  return out;
}

}  // namespace colo::report
