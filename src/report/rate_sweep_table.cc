#include "report/rate_sweep_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

namespace colo::report {
namespace {

using Json = nlohmann::ordered_json;

// The swept job's report in `r` (the sweep only runs scenarios that have it).
const experiment::JobReport* SweptJob(const experiment::RunReport& r,
                                      const std::string& job) {
  for (const experiment::JobReport& j : r.jobs) {
    if (j.name == job) return &j;
  }
  return nullptr;
}

// The first objective's verdict that missed in `r`, "job 'x': why".
std::string FirstMiss(const experiment::RunReport& r) {
  for (const experiment::JobReport& j : r.jobs) {
    if (j.slo_verdict && !j.slo_verdict->met)
      return "job '" + j.name + "' " + j.slo_verdict->missed_because;
  }
  return "";
}

std::string RateText(double r) { return fmt::format("{:g}", r); }

// A double rounded to 6 significant digits (as run_json.h), null if not
// finite.
Json Number(double x) {
  if (!std::isfinite(x)) return nullptr;
  const std::string text = fmt::format("{:.6g}", x);
  double rounded = 0;
  std::from_chars(text.data(), text.data() + text.size(), rounded);
  return rounded;
}

Json LatencyMs(const experiment::JobReport* j,
               Duration experiment::LatencyStats::*field) {
  if (j == nullptr || !j->shared_latency || j->shared_latency->count == 0)
    return nullptr;
  return Number(ToMillis((*j->shared_latency).*field));
}

std::string Header(const experiment::RateSweepResult& result) {
  std::string out;
  if (result.series.empty() || result.series.front().reports.empty())
    return out;
  const experiment::RunReport& first = result.series.front().reports.front();
  const experiment::JobReport* job = SweptJob(first, result.sweep.job);
  out += fmt::format("scenario  {}\n", first.scenario);
  out += fmt::format("gpu       {}\n", first.gpu);
  out += fmt::format("seed      {}\n", first.seed);
  out +=
      fmt::format("duration  {} simulated\n", FormatDuration(first.duration));
  out +=
      fmt::format("sweep     job '{}' at {}..{} requests/s, step {}; slo {}\n",
                  result.sweep.job, RateText(result.sweep.lo),
                  RateText(result.sweep.hi), RateText(result.sweep.step),
                  job && job->slo ? job->slo->Describe() : "-");
  return out + "\n";
}

}  // namespace

std::string FormatRateSweepTable(const experiment::RateSweepResult& result) {
  std::string out = Header(result);
  std::vector<std::string> headers = {"rate/s"};
  for (const experiment::RateSweepSeries& s : result.series)
    headers.push_back(s.label);
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < result.rates.size(); ++i) {
    std::vector<std::string> row = {RateText(result.rates[i])};
    for (const experiment::RateSweepSeries& s : result.series) {
      if (i >= s.reports.size()) {
        row.push_back("-");
        continue;
      }
      const experiment::JobReport* j = SweptJob(s.reports[i], result.sweep.job);
      const bool latency =
          j && j->shared_latency && j->shared_latency->count > 0;
      row.push_back(
          (latency ? fmt::format("{:.3f}", ToMillis(j->shared_latency->p99))
                   : std::string("-")) +
          (s.met[i] ? "  " : " x"));
    }
    rows.push_back(std::move(row));
  }
  std::vector<size_t> widths;
  for (const std::string& h : headers) widths.push_back(h.size());
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c)
      widths[c] = std::max(widths[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) text += "  ";
      text += fmt::format("{:>{}}", cells[c], widths[c]);
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + "\n";
  };
  out += fmt::format("p99 ms of job '{}' at each rate (x: an slo missed)\n",
                     result.sweep.job);
  line(headers);
  for (const auto& row : rows) line(row);

  out += "\nhighest rate within the slo (requests/s)\n";
  size_t label_width = 0;
  for (const experiment::RateSweepSeries& s : result.series)
    label_width = std::max(label_width, s.label.size());
  for (const experiment::RateSweepSeries& s : result.series) {
    const bool all_met =
        std::all_of(s.met.begin(), s.met.end(), [](bool m) { return m; });
    std::string what = !s.max_rate ? "none" : RateText(*s.max_rate);
    if (s.max_rate && all_met) what += " (every rate swept met it)";
    out += fmt::format("  {:<{}}  {}\n", s.label, label_width, what);
  }
  for (const experiment::RateSweepSeries& s : result.series) {
    for (size_t i = 0; i < s.met.size(); ++i) {
      if (s.met[i]) continue;
      out += fmt::format("missed first: {} at {}/s: {}\n", s.label,
                         RateText(result.rates[i]), FirstMiss(s.reports[i]));
      break;
    }
  }
  return out;
}

std::string FormatRateSweepJson(const experiment::RateSweepResult& result) {
  Json j;
  j["format"] = "colo.sim.rate_sweep/1";
  const experiment::RunReport* first =
      result.series.empty() || result.series.front().reports.empty()
          ? nullptr
          : &result.series.front().reports.front();
  j["scenario"] = first ? Json(first->scenario) : Json(nullptr);
  j["gpu"] = first ? Json(first->gpu) : Json(nullptr);
  j["seed"] = first ? Json(first->seed) : Json(nullptr);
  j["duration_s"] = first ? Number(ToSeconds(first->duration)) : nullptr;
  j["job"] = result.sweep.job;
  const experiment::JobReport* swept =
      first ? SweptJob(*first, result.sweep.job) : nullptr;
  Json slo = nullptr;
  if (swept && swept->slo) {
    auto bound = [](const std::optional<Duration>& d) {
      return d ? Number(ToMillis(*d)) : Json(nullptr);
    };
    slo = Json::object();
    slo["p50_ms"] = bound(swept->slo->p50);
    slo["p99_ms"] = bound(swept->slo->p99);
    slo["mean_ms"] = bound(swept->slo->mean);
  }
  j["slo"] = slo;
  Json rates = Json::array();
  for (double r : result.rates) rates.push_back(Number(r));
  j["rates"] = rates;
  Json policies = Json::array();
  for (const experiment::RateSweepSeries& s : result.series) {
    Json p;
    p["policy"] = s.label;
    p["max_rate"] = s.max_rate ? Number(*s.max_rate) : Json(nullptr);
    p["all_met"] =
        std::all_of(s.met.begin(), s.met.end(), [](bool m) { return m; });
    Json points = Json::array();
    for (size_t i = 0; i < s.reports.size(); ++i) {
      const experiment::JobReport* job =
          SweptJob(s.reports[i], result.sweep.job);
      Json point;
      point["rate"] = Number(result.rates[i]);
      point["completed"] = job ? Json(job->completed) : Json(nullptr);
      point["arrived"] =
          job && job->arrived ? Json(*job->arrived) : Json(nullptr);
      point["unfinished"] =
          job && job->unfinished ? Json(*job->unfinished) : Json(nullptr);
      point["p50_ms"] = LatencyMs(job, &experiment::LatencyStats::p50);
      point["p99_ms"] = LatencyMs(job, &experiment::LatencyStats::p99);
      point["mean_ms"] = LatencyMs(job, &experiment::LatencyStats::mean);
      point["met"] = static_cast<bool>(s.met[i]);
      point["missed_because"] =
          s.met[i] ? Json(nullptr) : Json(FirstMiss(s.reports[i]));
      points.push_back(std::move(point));
    }
    p["points"] = std::move(points);
    policies.push_back(std::move(p));
  }
  j["policies"] = std::move(policies);
  return j.dump(2) + "\n";
}

}  // namespace colo::report
