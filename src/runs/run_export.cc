#include "runs/run_export.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "runs/run_context.h"
#include "runs/run_figures.h"

namespace colo::runs {
namespace {

using Json = nlohmann::ordered_json;

// A CSV field: quoted when it holds a separator, a quote or a line break.
std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string FormatRunShow(const RunRecord& r) {
  std::string out =
      fmt::format("run {} ({}), recorded {} by colo {}\n", r.id, r.kind,
                  FormatUtc(r.created_unix_ns), r.colo_version);
  out += fmt::format("  command   {}\n", r.command);
  out += fmt::format("  input     {}", r.input);
  if (!r.input_hash.empty()) out += fmt::format(" (hash {})", r.input_hash);
  out += "\n";
  out += fmt::format("  options   {}\n", r.options_json);
  if (r.seed) out += fmt::format("  seed      {}\n", *r.seed);
  if (!r.policy.empty()) out += fmt::format("  policy    {}\n", r.policy);
  if (!r.gpu.empty()) out += fmt::format("  gpu       {}\n", r.gpu);
  out += fmt::format("  machine   {} ({})\n", r.host, r.cpu);
  out += fmt::format("  batch     {} (runs recorded by the same command)\n",
                     r.batch);
  for (const JobLatencies& l : r.latencies) {
    out += fmt::format(
        "  latencies {} ({} run): {} of {} requests kept{}\n", l.job, l.run,
        l.ns.size(), l.total,
        l.sampled() ? fmt::format(" (a uniform sample; cap {})", l.cap) : "");
  }
  out += "printed:\n" + r.printed;
  if (!r.printed.empty() && r.printed.back() != '\n') out += "\n";
  return out;
}

Result<std::string> FormatRunExportJson(const RunRecord& r) {
  const Json result = Json::parse(r.result_json, nullptr, false);
  const Json options = Json::parse(r.options_json, nullptr, false);
  if (result.is_discarded() || options.is_discarded()) {
    return InvalidArgumentError("run " + std::to_string(r.id) +
                                ": its stored result or options are not JSON");
  }
  Json j;
  j["format"] = "colo.runs.run/1";
  j["id"] = r.id;
  j["batch"] = r.batch;
  j["kind"] = r.kind;
  j["created"] = FormatUtc(r.created_unix_ns);
  j["created_unix_ns"] = r.created_unix_ns;
  j["colo_version"] = r.colo_version;
  j["command"] = r.command;
  j["input"] = r.input;
  j["input_hash"] = r.input_hash;
  j["input_text"] = r.input_hash.empty() ? Json(nullptr) : Json(r.input_text);
  j["options"] = options;
  j["seed"] = r.seed ? Json(*r.seed) : Json(nullptr);
  j["policy"] = r.policy;
  j["gpu"] = r.gpu;
  j["host"] = r.host;
  j["cpu"] = r.cpu;
  j["result"] = result;
  j["printed"] = r.printed;
  Json latencies = Json::array();
  for (const JobLatencies& l : r.latencies) {
    latencies.push_back({{"job", l.job},
                         {"run", l.run},
                         {"total", l.total},
                         {"cap", l.cap},
                         {"sampled", l.sampled()},
                         {"ns", l.ns}});
  }
  j["latencies"] = std::move(latencies);
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

Result<std::string> FormatRunExportCsv(const RunRecord& r) {
  Result<std::vector<Figure>> figures =
      ExtractFigures(r.result_json, {.time_series = true});
  if (!figures.ok())
    return figures.status().WithContext("run " + std::to_string(r.id));
  std::string out = "run_id,figure,value\n";
  for (const Figure& f : *figures)
    out += fmt::format("{},{},{}\n", r.id, CsvField(f.name), f.value);
  for (const JobLatencies& l : r.latencies) {
    const std::string name = fmt::format("latencies[{}].{}_ns", l.job, l.run);
    for (size_t i = 0; i < l.ns.size(); ++i) {
      out += fmt::format("{},{},{}\n", r.id,
                         CsvField(fmt::format("{}[{}]", name, i)), l.ns[i]);
    }
  }
  return out;
}

}  // namespace colo::runs
