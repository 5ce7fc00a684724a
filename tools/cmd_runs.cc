// `colo runs list [--filter KEY=VALUE]... [--limit N] [--json]`,
// `colo runs show ID`, `colo runs compare ID ID... [--changed] [--json]`,
// `colo runs export ID --csv|--json [-o FILE]`: the runs that colo sim,
// plan and predict eval recorded (src/runs/, docs/runs.md), each subcommand
// with --runs-db PATH.
#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "colo/status.h"
#include "runs/run_compare.h"
#include "runs/run_context.h"
#include "runs/run_export.h"
#include "runs/runs_store.h"
#include "tools/cli_status.h"
#include "tools/commands.h"
#include "tools/run_recording.h"

namespace colo::tools {
namespace {

struct RunsFlags {
  std::string runs_db;
  std::vector<std::string> filters;
  std::string limit;
  bool json = false;
  bool csv = false;
  bool changed = false;
  std::string out;
  std::vector<std::string> ids;
};

Result<std::unique_ptr<runs::RunsStore>> OpenForReading(const RunsFlags& f) {
  COLO_ASSIGN_OR_RETURN(std::string path, RunsDbPath(f.runs_db));
  return runs::RunsStore::Open(path, {.create = false});
}

Result<int64_t> ParsePositive(const std::string& what, const std::string& t) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size() || v <= 0) {
    return InvalidArgumentError(what + " '" + t +
                                "': expected a positive integer (`colo runs "
                                "list` shows the run ids)");
  }
  return v;
}

Status Print(const std::string& text, const std::string& out) {
  if (out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return std::fflush(stdout) == 0 ? OkStatus()
                                    : UnavailableError("cannot write stdout");
  }
  std::ofstream file(out, std::ios::binary | std::ios::trunc);
  if (!file) return InvalidArgumentError("-o " + out + ": cannot write there");
  file << text;
  file.close();
  return file ? OkStatus() : UnavailableError("-o " + out + ": write failed");
}

Result<runs::RunFilter> ParseFilters(const RunsFlags& f) {
  runs::RunFilter filter;
  for (const std::string& kv : f.filters) {
    const size_t eq = kv.find('=');
    const std::string key = kv.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : kv.substr(eq + 1);
    if (eq == std::string::npos || value.empty()) {
      return InvalidArgumentError("--filter " + kv +
                                  ": expected KEY=VALUE (keys: kind, input, "
                                  "hash, policy, gpu, host, seed, batch)");
    }
    if (key == "kind") {
      filter.kind = value;
    } else if (key == "input") {
      filter.input = value;
    } else if (key == "hash") {
      filter.input_hash = value;
    } else if (key == "policy") {
      filter.policy = value;
    } else if (key == "gpu") {
      filter.gpu = value;
    } else if (key == "host") {
      filter.host = value;
    } else if (key == "seed" || key == "batch") {
      int64_t v = 0;
      const auto [end, ec] =
          std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || end != value.data() + value.size() || v < 0) {
        return InvalidArgumentError("--filter " + kv +
                                    ": expected a non-negative integer");
      }
      (key == "seed" ? filter.seed : filter.batch) = v;
    } else {
      return InvalidArgumentError("--filter " + kv + ": unknown key '" + key +
                                  "' (keys: kind, input, hash, policy, gpu, "
                                  "host, seed, batch)");
    }
  }
  if (!f.limit.empty()) {
    COLO_ASSIGN_OR_RETURN(filter.limit, ParsePositive("--limit", f.limit));
  }
  return filter;
}

Status RunList(const RunsFlags& f) {
  COLO_ASSIGN_OR_RETURN(runs::RunFilter filter, ParseFilters(f));
  COLO_ASSIGN_OR_RETURN(std::unique_ptr<runs::RunsStore> store,
                        OpenForReading(f));
  COLO_ASSIGN_OR_RETURN(std::vector<runs::RunRecord> list, store->List(filter));
  if (f.json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const runs::RunRecord& r : list) {
      j.push_back({{"id", r.id},
                   {"batch", r.batch},
                   {"created", runs::FormatUtc(r.created_unix_ns)},
                   {"kind", r.kind},
                   {"input", r.input},
                   {"input_hash", r.input_hash},
                   {"policy", r.policy},
                   {"seed", r.seed ? nlohmann::ordered_json(*r.seed)
                                   : nlohmann::ordered_json(nullptr)},
                   {"gpu", r.gpu},
                   {"host", r.host}});
    }
    return Print(j.dump(2) + "\n", "");
  }
  std::string out = fmt::format(
      "{:>6}  {:>6}  {:<20}  {:<12}  {:<22}  {:>6}  "
      "{:<16}  {}\n",
      "id", "batch", "created (UTC)", "kind", "policy", "seed", "gpu", "input");
  for (const runs::RunRecord& r : list) {
    out +=
        fmt::format("{:>6}  {:>6}  {:<20}  {:<12}  {:<22}  {:>6}  {:<16}  {}\n",
                    r.id, r.batch, runs::FormatUtc(r.created_unix_ns), r.kind,
                    r.policy.empty() ? "-" : r.policy,
                    r.seed ? std::to_string(*r.seed) : "-",
                    r.gpu.empty() ? "-" : r.gpu, r.input);
  }
  return Print(out, "");
}

Result<std::vector<int64_t>> ParseIds(const RunsFlags& f) {
  std::vector<int64_t> ids;
  for (const std::string& t : f.ids) {
    COLO_ASSIGN_OR_RETURN(int64_t id, ParsePositive("run id", t));
    ids.push_back(id);
  }
  return ids;
}

Status RunShow(const RunsFlags& f) {
  COLO_ASSIGN_OR_RETURN(std::vector<int64_t> ids, ParseIds(f));
  COLO_ASSIGN_OR_RETURN(std::unique_ptr<runs::RunsStore> store,
                        OpenForReading(f));
  COLO_ASSIGN_OR_RETURN(runs::RunRecord run, store->Get(ids.front()));
  return Print(runs::FormatRunShow(run), "");
}

Status RunCompare(const RunsFlags& f) {
  COLO_ASSIGN_OR_RETURN(std::vector<int64_t> ids, ParseIds(f));
  COLO_ASSIGN_OR_RETURN(std::unique_ptr<runs::RunsStore> store,
                        OpenForReading(f));
  COLO_ASSIGN_OR_RETURN(runs::RunComparison c, runs::CompareRuns(*store, ids));
  return Print(f.json ? runs::FormatComparisonJson(c)
                      : runs::FormatComparison(c, f.changed),
               "");
}

Status RunExport(const RunsFlags& f) {
  if (f.csv == f.json) {
    return InvalidArgumentError(
        "colo runs export: pass one of --csv or --json");
  }
  COLO_ASSIGN_OR_RETURN(std::vector<int64_t> ids, ParseIds(f));
  COLO_ASSIGN_OR_RETURN(std::unique_ptr<runs::RunsStore> store,
                        OpenForReading(f));
  COLO_ASSIGN_OR_RETURN(runs::RunRecord run, store->Get(ids.front()));
  Result<std::string> text =
      f.csv ? runs::FormatRunExportCsv(run) : runs::FormatRunExportJson(run);
  if (!text.ok()) return text.status();
  return Print(*text, f.out);
}

void AddDbFlag(CLI::App* cmd, RunsFlags* f) {
  cmd->add_option("--runs-db", f->runs_db,
                  "The runs database (default: $XDG_DATA_HOME/colo/runs.db)");
}

}  // namespace

void RegisterRunsCommand(CLI::App& app, int* exit_code) {
  CLI::App* runs_cmd = app.add_subcommand(
      "runs", "The recorded runs: list, show, compare, export (docs/runs.md)");
  runs_cmd->require_subcommand(1);

  auto list_flags = std::make_shared<RunsFlags>();
  CLI::App* list = runs_cmd->add_subcommand("list", "List recorded runs");
  AddDbFlag(list, list_flags.get());
  list->add_option("--filter", list_flags->filters,
                   "KEY=VALUE (kind, input (a substring), hash (a prefix), "
                   "policy, gpu, host, seed, batch); repeat to narrow");
  list->add_option("--limit", list_flags->limit, "At most N runs (newest)");
  list->add_flag("--json", list_flags->json, "Print JSON");
  list->callback([list_flags, exit_code] {
    *exit_code = ReportStatus(RunList(*list_flags));
  });

  auto show_flags = std::make_shared<RunsFlags>();
  CLI::App* show = runs_cmd->add_subcommand(
      "show", "What a run ran with, and what it printed");
  AddDbFlag(show, show_flags.get());
  show->add_option("id", show_flags->ids, "Run id")->required()->expected(1);
  show->callback([show_flags, exit_code] {
    *exit_code = ReportStatus(RunShow(*show_flags));
  });

  auto compare_flags = std::make_shared<RunsFlags>();
  CLI::App* compare = runs_cmd->add_subcommand(
      "compare",
      "Runs side by side: every figure, differences from the first, and "
      "which moved beyond the seed-to-seed spread");
  AddDbFlag(compare, compare_flags.get());
  compare
      ->add_option("ids", compare_flags->ids,
                   "Run ids (the first is the "
                   "baseline)")
      ->required();
  compare->add_flag("--changed", compare_flags->changed,
                    "Only the figures that differ");
  compare->add_flag("--json", compare_flags->json, "Print JSON");
  compare->callback([compare_flags, exit_code] {
    *exit_code = ReportStatus(RunCompare(*compare_flags));
  });

  auto export_flags = std::make_shared<RunsFlags>();
  CLI::App* exp = runs_cmd->add_subcommand(
      "export", "One run as CSV (every figure) or JSON (the whole record)");
  AddDbFlag(exp, export_flags.get());
  exp->add_option("id", export_flags->ids, "Run id")->required()->expected(1);
  exp->add_flag("--csv", export_flags->csv, "CSV: run_id,figure,value");
  exp->add_flag("--json", export_flags->json, "JSON: the whole record");
  exp->add_option("-o,--out", export_flags->out,
                  "Write to FILE instead of stdout");
  exp->callback([export_flags, exit_code] {
    *exit_code = ReportStatus(RunExport(*export_flags));
  });
}

}  // namespace colo::tools
