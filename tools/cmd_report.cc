// `colo report RUN... -o report.html [--last N] [--batch B] [--runs-db PATH]`:
// recorded runs (docs/runs.md) as one self-contained HTML page with plots
// (src/webreport/, docs/report.md). Every input is checked before the page
// is built: the run ids, the output path, Chart.js, the database.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "colo/status.h"
#include "runs/run_context.h"
#include "runs/runs_store.h"
#include "tools/cli_status.h"
#include "tools/commands.h"
#include "tools/run_recording.h"
#include "webreport/chartjs.h"
#include "webreport/html_page.h"
#include "webreport/report_model.h"

namespace colo::tools {
namespace {

namespace fs = std::filesystem;

struct ReportFlags {
  std::vector<std::string> ids;
  std::string last;
  std::string batch;
  std::string out;
  std::string runs_db;
};

Result<int64_t> Positive(const std::string& what, const std::string& t) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size() || v <= 0) {
    return InvalidArgumentError(what + " '" + t +
                                "': expected a positive integer (`colo runs "
                                "list` shows the run ids)");
  }
  return v;
}

// The output must be a file colo can write, in a directory that exists:
// checked before any work, so that a typo costs nothing.
Status CheckOutput(const std::string& out) {
  if (out.empty()) return InvalidArgumentError("-o FILE.html is required");
  const fs::path path(out);
  const fs::path dir =
      path.parent_path().empty() ? fs::path(".") : path.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return InvalidArgumentError("-o " + out + ": the directory " +
                                dir.string() + " does not exist");
  }
  if (fs::is_directory(path, ec)) {
    return InvalidArgumentError("-o " + out +
                                ": is a directory; name the .html file");
  }
  // Whether colo may create a file there, tried for real (access() says yes
  // to root on a read-only file system).
  const std::string probe = out + ".probe-" + std::to_string(::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) {
    return InvalidArgumentError("-o " + out + ": cannot write there (" +
                                std::strerror(errno) + ")");
  }
  ::close(fd);
  ::unlink(probe.c_str());
  if (fs::exists(path, ec) && ::access(out.c_str(), W_OK) != 0) {
    return InvalidArgumentError("-o " + out +
                                ": cannot write there (the file is not "
                                "writable)");
  }
  return OkStatus();
}

// Writes beside the target and renames, so that a failed write never leaves
// half a page where the last good one was.
Status WriteFileAtomically(const std::string& out, const std::string& text) {
  const std::string tmp = out + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream file(tmp, std::ios::binary | std::ios::trunc);
    if (!file)
      return InvalidArgumentError("-o " + out + ": cannot write there");
    file << text;
    file.close();
    if (!file) {
      std::error_code ec;
      fs::remove(tmp, ec);
      return UnavailableError("-o " + out + ": write failed");
    }
  }
  std::error_code ec;
  fs::rename(tmp, out, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return UnavailableError("-o " + out + ": cannot rename into place (" +
                            ec.message() + ")");
  }
  return OkStatus();
}

Result<std::vector<runs::RunRecord>> LoadRuns(const ReportFlags& f,
                                              runs::RunsStore& store) {
  std::vector<int64_t> ids;
  for (const std::string& t : f.ids) {
    COLO_ASSIGN_OR_RETURN(int64_t id, Positive("run id", t));
    ids.push_back(id);
  }
  if (!f.last.empty() || !f.batch.empty()) {
    runs::RunFilter filter;
    if (!f.last.empty()) {
      COLO_ASSIGN_OR_RETURN(filter.limit, Positive("--last", f.last));
    }
    if (!f.batch.empty()) {
      COLO_ASSIGN_OR_RETURN(filter.batch, Positive("--batch", f.batch));
    }
    COLO_ASSIGN_OR_RETURN(std::vector<runs::RunRecord> list,
                          store.List(filter));
    if (list.empty()) {
      return NotFoundError(
          !f.batch.empty()
              ? "--batch " + f.batch + ": no runs of that batch in " +
                    store.path() + " (`colo runs list` shows the batches)"
              : "no runs in " + store.path());
    }
    // List is newest first; the page shows them oldest first.
    for (auto it = list.rbegin(); it != list.rend(); ++it)
      ids.push_back(it->id);
  }
  std::vector<runs::RunRecord> out;
  for (int64_t id : ids) {
    COLO_ASSIGN_OR_RETURN(runs::RunRecord r, store.Get(id));
    out.push_back(std::move(r));
  }
  return out;
}

Status RunReportCommand(const ReportFlags& f) {
  if (f.ids.empty() && f.last.empty() && f.batch.empty()) {
    return InvalidArgumentError(
        "colo report: name the runs: RUN ids, --last N or --batch B (`colo "
        "runs list` shows them)");
  }
  for (const std::string& t : f.ids)
    COLO_RETURN_IF_ERROR(Positive("run id", t).status());
  COLO_RETURN_IF_ERROR(CheckOutput(f.out));
  if (webreport::ChartJsText().empty()) {
    return FailedPreconditionError(fmt::format(
        "colo report needs Chart.js, which this colo was built without ({} "
        "was not found at configure time): install Debian's {} package "
        "(scripts/setup.sh does), then reconfigure and rebuild",
        webreport::ChartJsFile(), webreport::kChartJsPackage));
  }
  COLO_ASSIGN_OR_RETURN(std::string db, RunsDbPath(f.runs_db));
  Result<std::unique_ptr<runs::RunsStore>> store =
      runs::RunsStore::Open(db, {.create = false});
  if (!store.ok()) return store.status();
  COLO_ASSIGN_OR_RETURN(std::vector<runs::RunRecord> records,
                        LoadRuns(f, **store));
  COLO_ASSIGN_OR_RETURN(webreport::ReportPage page,
                        webreport::BuildReport(records));
  page.generated = fmt::format("Made {} by colo {} from {}: {}",
                               runs::FormatUtc(runs::UnixNanosNow()),
                               runs::ColoVersion(), db, CommandLine());
  COLO_ASSIGN_OR_RETURN(std::string html, webreport::RenderHtml(page));
  COLO_RETURN_IF_ERROR(WriteFileAtomically(f.out, html));
  std::fprintf(stderr, "colo report: wrote %s (%zu bytes, %zu runs)\n",
               f.out.c_str(), html.size(), records.size());
  return OkStatus();
}

}  // namespace

void RegisterReportCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<ReportFlags>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Recorded runs as one self-contained HTML page with plots "
      "(docs/report.md)");
  cmd->add_option("runs", f->ids, "Run ids (`colo runs list` shows them)");
  cmd->add_option("--last", f->last, "The N newest runs");
  cmd->add_option("--batch", f->batch,
                  "The runs of one command (a comparison's runs share it)");
  cmd->add_option("-o,--out", f->out, "The HTML file to write (required)");
  cmd->add_option("--runs-db", f->runs_db,
                  "The runs database (default: $XDG_DATA_HOME/colo/runs.db)");
  cmd->callback([f, exit_code] {
    const Status s = RunReportCommand(*f);
    *exit_code = ReportStatus(s);
    // A missing package or a newer database is for the user to fix, like
    // bad input.
    if (s.code() == StatusCode::kFailedPrecondition) *exit_code = 2;
  });
}

}  // namespace colo::tools
