#include "report/run_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

namespace colo::report {
namespace {

constexpr std::string_view kLevels = " .:-=+*#%@";
constexpr size_t kSparklineWidth = 60;

// A column of the job table: numbers align right, names left.
struct Column {
  std::string header;
  bool left = false;
  std::vector<std::string> cells;
};

std::string Fixed(double x, int digits) {
  if (!std::isfinite(x)) return "-";
  return fmt::format("{:.{}f}", x, digits);
}

std::string Percent(double fraction) {
  if (!std::isfinite(fraction)) return "-";
  return fmt::format("{:.1f}%", 100 * fraction);
}

std::string Ms(const std::optional<experiment::LatencyStats>& stats,
               Duration experiment::LatencyStats::*field) {
  if (!stats || stats->count == 0) return "-";
  return Fixed(ToMillis((*stats).*field), 3);
}

std::string RenderColumns(const std::vector<Column>& columns) {
  std::vector<size_t> widths;
  for (const Column& c : columns) {
    size_t w = c.header.size();
    for (const std::string& cell : c.cells) w = std::max(w, cell.size());
    widths.push_back(w);
  }
  const size_t rows = columns.empty() ? 0 : columns.front().cells.size();
  std::string out;
  auto line = [&](auto cell_of) {
    std::string text;
    for (size_t c = 0; c < columns.size(); ++c) {
      if (c > 0) text += "  ";
      const std::string& cell = cell_of(c);
      text += columns[c].left ? fmt::format("{:<{}}", cell, widths[c])
                              : fmt::format("{:>{}}", cell, widths[c]);
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + "\n";
  };
  line([&](size_t c) -> const std::string& { return columns[c].header; });
  for (size_t r = 0; r < rows; ++r) {
    line([&](size_t c) -> const std::string& { return columns[c].cells[r]; });
  }
  return out;
}

std::string Count(const std::optional<int64_t>& n) {
  return n ? std::to_string(*n) : "-";
}

std::string JobTable(const std::vector<experiment::JobReport>& jobs) {
  // Which instance each job ran on, under MIG only (elsewhere all share one).
  const bool instances = std::any_of(
      jobs.begin(), jobs.end(),
      [](const experiment::JobReport& j) { return !j.instance.empty(); });
  // Requests arrived and unfinished, where some job serves requests.
  const bool requests = std::any_of(
      jobs.begin(), jobs.end(),
      [](const experiment::JobReport& j) { return j.arrived.has_value(); });
  std::vector<Column> cols = {
      {"job", true, {}},        {"class", true, {}},   {"kind", true, {}},
      {"completed", false, {}}, {"solo/s", false, {}}, {"shared/s", false, {}},
      {"norm", false, {}},      {"p50 ms", false, {}}, {"p95 ms", false, {}},
      {"p99 ms", false, {}},    {"p99 +%", false, {}}};
  if (requests) {
    cols.insert(cols.begin() + 4, {Column{"arrived", false, {}},
                                   Column{"unfinished", false, {}}});
  }
  // Under MIG, also normalized against the job alone on its instance.
  const size_t norm_col = requests ? 8 : 6;
  if (instances) {
    cols.insert(cols.begin() + norm_col + 1, Column{"norm inst", false, {}});
    cols.insert(cols.begin() + 3, Column{"instance", true, {}});
  }
  for (const experiment::JobReport& j : jobs) {
    std::vector<std::string> row = {
        j.name,
        PriorityClassName(j.priority),
        WorkloadKindName(j.kind),
        std::to_string(j.completed),
        Fixed(j.solo_throughput, 2),
        Fixed(j.shared_throughput, 2),
        j.normalized ? Fixed(*j.normalized, 3) : "-",
        Ms(j.shared_latency, &experiment::LatencyStats::p50),
        Ms(j.shared_latency, &experiment::LatencyStats::p95),
        Ms(j.shared_latency, &experiment::LatencyStats::p99),
        j.p99_overhead && std::isfinite(*j.p99_overhead)
            ? fmt::format("{:+.1f}%", 100 * *j.p99_overhead)
            : "-",
    };
    if (requests) {
      row.insert(row.begin() + 4, {Count(j.arrived), Count(j.unfinished)});
    }
    if (instances) {
      row.insert(
          row.begin() + norm_col + 1,
          j.normalized_instance ? Fixed(*j.normalized_instance, 3) : "-");
      row.insert(row.begin() + 3, j.instance);
    }
    for (size_t c = 0; c < cols.size(); ++c) cols[c].cells.push_back(row[c]);
  }
  std::string out = RenderColumns(cols);
  for (const experiment::JobReport& j : jobs) {
    const std::string warning = UnfinishedWarning(j);
    if (!warning.empty()) out += "warning: " + warning + "\n";
  }
  for (const experiment::JobReport& j : jobs) out += SloLine(j);
  return out;
}

// Per job, its kernels that took longer than alone (experiment::KernelDelays);
// empty when no job has a solo run to compare with.
std::string KernelDelaySection(const std::vector<experiment::JobReport>& jobs) {
  std::vector<Column> cols = {{"job", true, {}},  {"delayed", false, {}},
                              {"of", false, {}},  {"share", false, {}},
                              {"p50", false, {}}, {"p99", false, {}},
                              {"max", false, {}}};
  for (const experiment::JobReport& j : jobs) {
    if (!j.kernel_delays) continue;
    const experiment::KernelDelays& d = *j.kernel_delays;
    const bool any = d.delay.count > 0;
    const std::vector<std::string> row = {
        j.name,
        std::to_string(d.delayed),
        std::to_string(d.compared),
        Percent(d.DelayedFraction()),
        any ? FormatDuration(d.delay.p50) : "-",
        any ? FormatDuration(d.delay.p99) : "-",
        any ? FormatDuration(d.delay.max) : "-"};
    for (size_t c = 0; c < cols.size(); ++c) cols[c].cells.push_back(row[c]);
  }
  if (cols.front().cells.empty()) return "";
  return fmt::format(
             "kernels delayed: took more than {} longer than alone, from the "
             "job's launch to\n"
             "their end; p50 / p99 / max of how much longer\n",
             FormatDuration(experiment::kKernelDelayThreshold)) +
         RenderColumns(cols);
}

std::string GpuSection(const experiment::GpuReport& gpu) {
  std::vector<double> occupancy, active, dram;
  for (const sim::UtilizationSample& s : gpu.timeline) {
    occupancy.push_back(s.sm_occupancy);
    active.push_back(s.sm_active);
    dram.push_back(s.dram_util);
  }
  auto line = [&](const char* label, double mean,
                  const std::vector<double>& series) {
    std::string text = fmt::format("  {:<13}{:>6} mean", label, Percent(mean));
    if (!series.empty())
      text += "  |" + Sparkline(series, kSparklineWidth) + "|";
    return text + "\n";
  };
  std::string out = "gpu " + gpu.name + "\n";
  out += line("SM occupancy", gpu.mean_sm_occupancy, occupancy);
  out += line("SM active", gpu.mean_sm_active, active);
  out += line("DRAM util", gpu.mean_dram_util, dram);
  if (gpu.timeline.size() >= 2) {
    const Duration step = gpu.timeline[1].start - gpu.timeline[0].start;
    const size_t per_char =
        (gpu.timeline.size() + kSparklineWidth - 1) / kSparklineWidth;
    out += fmt::format(
        "  timeline: {} samples of {}, {} per character (' ' = 0%, '@' = "
        "100%)\n",
        gpu.timeline.size(), FormatDuration(step),
        FormatDuration(step * static_cast<int64_t>(per_char)));
  }
  return out;
}

// "copies  in N (X MiB, engine busy Y%), out ..." when the run copied.
std::string CopiesLine(const experiment::RunReport& report) {
  const sim::CopyTotals& in =
      report.copies[CopyEngineIndex(CopyDirection::kHostToDevice)];
  const sim::CopyTotals& out =
      report.copies[CopyEngineIndex(CopyDirection::kDeviceToHost)];
  if (in.copies == 0 && out.copies == 0) return "";
  auto side = [&](const sim::CopyTotals& t) {
    return fmt::format("{} ({:.1f} MiB, engine busy {})", t.copies,
                       static_cast<double>(t.bytes) / (1024.0 * 1024.0),
                       Percent(t.BusyFraction(report.duration)));
  };
  return fmt::format("copies             in {}, out {}\n", side(in), side(out));
}

}  // namespace

std::string SloLine(const experiment::JobReport& job) {
  if (!job.slo || !job.slo_verdict) return "";
  return fmt::format("slo: job '{}' ({}): {}\n", job.name, job.slo->Describe(),
                     job.slo_verdict->met
                         ? "met"
                         : "missed (" + job.slo_verdict->missed_because + ")");
}

std::string UnfinishedWarning(const experiment::JobReport& job) {
  if (!job.arrived || !job.unfinished) return "";
  const int64_t arrived = *job.arrived;
  auto share = [arrived](int64_t n) {
    return fmt::format("{} ({:.1f}%)", n,
                       100.0 * static_cast<double>(n) /
                           static_cast<double>(std::max<int64_t>(1, arrived)));
  };
  const bool shared = experiment::TooManyUnfinished(*job.unfinished, arrived);
  const bool solo = job.solo_unfinished && experiment::TooManyUnfinished(
                                               *job.solo_unfinished, arrived);
  if (!shared && !solo) return "";
  std::string text = fmt::format(
      "job '{}' left {} of {} requests unfinished at the "
      "end of the run",
      job.name, share(*job.unfinished), arrived);
  if (job.solo_unfinished)
    text += ", " + share(*job.solo_unfinished) + " alone";
  return text + fmt::format("; its latency figures cover only the {} completed",
                            job.completed);
}

std::string Sparkline(const std::vector<double>& values, size_t width) {
  if (values.empty() || width == 0) return "";
  const size_t per_char = (values.size() + width - 1) / width;
  std::string out;
  for (size_t i = 0; i < values.size(); i += per_char) {
    const size_t end = std::min(values.size(), i + per_char);
    double sum = 0;
    for (size_t k = i; k < end; ++k)
      sum += std::isfinite(values[k]) ? values[k] : 0;
    const double mean =
        std::clamp(sum / static_cast<double>(end - i), 0.0, 1.0);
    out +=
        kLevels[static_cast<size_t>(std::lround(mean * (kLevels.size() - 1)))];
  }
  return out;
}

std::string FormatRunTable(const experiment::RunReport& report) {
  std::string out;
  out += fmt::format("scenario  {}\n", report.scenario);
  out += fmt::format("gpu       {}\n", report.gpu);
  out += fmt::format("mode      {}\n", report.mode);
  out += fmt::format("policy    {}{}\n",
                     report.policy.empty() ? "none" : report.policy,
                     report.preemption_bound
                         ? " (preemption bound " +
                               FormatDuration(*report.preemption_bound) + ")"
                         : "");
  out += fmt::format("seed      {}\n", report.seed);
  out +=
      fmt::format("duration  {} simulated\n", FormatDuration(report.duration));
  out += "\n" + JobTable(report.jobs);
  const std::string delays = KernelDelaySection(report.jobs);
  if (!delays.empty()) out += "\n" + delays;
  for (const experiment::GpuReport& gpu : report.gpus)
    out += "\n" + GpuSection(gpu);
  out += fmt::format("\nsystem throughput  {} (sum of normalized throughput)\n",
                     Fixed(report.system_throughput, 3));
  out += fmt::format("kernels simulated  {}\n", report.kernels_simulated);
  if (report.wave_by_wave)
    out += "wave by wave       one event per wave (--wave-by-wave)\n";
  if (report.time_tolerance > 0) {
    out += fmt::format(
        "approximate        wave ends moved by up to {:g} of a wave "
        "(--sim-tolerance)\n",
        report.time_tolerance);
  }
  out += CopiesLine(report);
  return out;
}

}  // namespace colo::report
