// `colo report` end to end: runs recorded by the built `colo` (a comparison
// of every policy, a preemption-bound sweep, a plan, a prediction
// evaluation, a job-queue comparison), the page written, then opened in a real
// headless Chromium: it loads with no error, and every plot has exactly the
// number of points its runs' recorded figures give (computed here from `colo
// runs export`, by the rules of docs/report.md); a screenshot is taken. Also
// the bad inputs, each an error before any work.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "cli/colo_process.h"
#include "webreport/sections.h"

namespace colo::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

const std::string kScenario =
    std::string(COLO_SOURCE_DIR) + "/examples/inference-vs-training/mps.yaml";

// Chromium, from PATH (Debian's package installs /usr/bin/chromium).
std::string FindChromium() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t at = 0;
  while (at <= dirs.size()) {
    const size_t end = dirs.find(':', at);
    const std::string dir = dirs.substr(
        at, end == std::string::npos ? std::string::npos : end - at);
    for (const char* name : {"chromium", "chromium-browser"}) {
      const fs::path p = fs::path(dir) / name;
      if (!dir.empty() && ::access(p.c_str(), X_OK) == 0) return p.string();
    }
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return "";
}

// Runs `argv` under `timeout 120` with stdout and stderr in files of `dir`.
ProcessResult RunProgram(std::vector<std::string> argv, const fs::path& dir) {
  argv.insert(argv.begin(), {"timeout", "120"});
  static int call = 0;
  ++call;
  const std::string out = (dir / ("prog-out-" + std::to_string(call))).string();
  const std::string err = (dir / ("prog-err-" + std::to_string(call))).string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  ProcessResult r;
  pid_t pid = 0;
  if (posix_spawnp(&pid, "timeout", &actions, nullptr, args.data(), environ) ==
      0) {
    int status = 0;
    if (::waitpid(pid, &status, 0) == pid && WIFEXITED(status))
      r.exit_code = WEXITSTATUS(status);
  }
  posix_spawn_file_actions_destroy(&actions);
  r.out = ReadWholeFile(out);
  r.err = ReadWholeFile(err);
  return r;
}

// A job name as it appears in a plot id (the names used here are already
// lower-case words and dashes, which the page keeps as they are).
std::string IdPart(const std::string& name) {
  EXPECT_TRUE(std::regex_match(name, std::regex("[a-z0-9]+(-[a-z0-9]+)*")))
      << name;
  return name;
}

bool Number(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number();
}

// What each plot must hold, from the recorded results, by the rules of
// docs/report.md: plot id -> points.
std::map<std::string, int> ExpectedPoints(const std::vector<Json>& runs) {
  std::map<std::string, int> want;
  std::vector<const Json*> sims;
  for (const Json& r : runs)
    if (r["kind"] == "sim") sims.push_back(&r);
  // All sim runs here are of one scenario: group g1.
  std::set<std::string> solo_done;
  std::set<double> bounds;
  int swept_points = 0;
  for (const Json* r : sims) {
    const Json& res = (*r)["result"];
    for (const Json& job : res["jobs"]) {
      const std::string name = IdPart(job["name"]);
      const bool high = job["class"] == "high";
      // A high-priority service that completed requests: a CDF point per
      // latency the run kept, at most kMaxCdfPoints (or, a run without kept
      // latencies, per recorded quantile p50, p95, p99, max); once alone.
      if (high && job["kind"] == "inference") {
        for (const char* which : {"shared", "solo"}) {
          const Json& lat = job[std::string(which) + "_latency"];
          if (!Number(lat, "count") || lat["count"].get<double>() <= 0)
            continue;
          if (std::string(which) == "solo" && !solo_done.insert(name).second)
            continue;
          int64_t n = -1;
          for (const Json& kept : (*r)["latencies"])
            if (kept["job"] == job["name"] && kept["run"] == which)
              n = std::min<int64_t>(kept["ns"].size(),
                                    webreport::kMaxCdfPoints);
          if (n < 0) {
            n = 0;
            for (const char* q : {"p50_ms", "p95_ms", "p99_ms", "max_ms"})
              n += Number(lat, q);
          }
          want["g1-cdf-" + name] += static_cast<int>(n);
        }
      }
      // Trade-off: (system throughput, p99 overhead) per high-priority job.
      if (high && Number(job, "p99_overhead") &&
          Number(res, "system_throughput"))
        want["g1-tradeoff"] += 1;
      if (Number(job, "normalized")) want["g1-normalized"] += 1;
    }
    for (const Json& gpu : res["gpus"]) {
      for (const Json& s : gpu["timeline"]) {
        want["g1-sm-occupancy"] += Number(s, "sm_occupancy");
        want["g1-sm-active"] += Number(s, "sm_active");
        want["g1-dram"] += Number(s, "dram_util");
      }
    }
    if (Number(res, "preemption_bound_us")) {
      bounds.insert(res["preemption_bound_us"].get<double>());
      swept_points += Number(res, "system_throughput");
      for (const Json& job : res["jobs"])
        swept_points += job["class"] == "high" && Number(job, "p99_overhead");
    }
  }
  if (bounds.size() >= 2) want["g1-bound-sweep"] = swept_points;
  // The job-queue runs (one scenario: the group after the sim group, j2): a
  // bar per run and job with a JCT, and with a queueing figure.
  for (const Json& r : runs) {
    if (r["kind"] != "jobs") continue;
    for (const Json& job : r["result"]["jobs"]) {
      want["j2-jct"] += Number(job, "jct_s");
      want["j2-queue"] += Number(job, "queue_s");
    }
  }
  for (const Json& r : runs) {
    const std::string id = std::to_string(r["id"].get<int64_t>());
    if (r["kind"] == "predict-eval") {
      int n = 0;
      for (const Json& m : r["result"]["methods"])
        for (const Json& ratio : m["ratio"]) n += Number(ratio, "value");
      want["eval-" + id] = n;
    } else if (r["kind"] == "plan") {
      // One box per GPU and per job placed on one.
      int n = 0;
      for (const Json& g : r["result"]["gpus"]) n += 1 + g["jobs"].size();
      want["plan-" + id + "-svg"] = n;
    }
  }
  return want;
}

class ReportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::path(::testing::TempDir()) /
                        ("colo_webreport_" + std::to_string(::getpid())));
    fs::remove_all(*dir_);
    fs::create_directories(*dir_);
    db_ = new std::string((*dir_ / "runs.db").string());
  }
  static void TearDownTestSuite() {
    if (std::getenv("COLO_KEEP_REPORT_TEST") == nullptr) fs::remove_all(*dir_);
    delete dir_;
    delete db_;
  }
  static ProcessResult Colo(const std::vector<std::string>& args) {
    return RunColo(args, *dir_);
  }
  // Every run of the database, oldest first, as `colo runs export --json`.
  static std::vector<Json> ExportAll() {
    std::vector<Json> runs;
    ProcessResult list = Colo({"runs", "list", "--json", "--runs-db", *db_});
    EXPECT_EQ(list.exit_code, 0) << list.err;
    for (const Json& r : Json::parse(list.out)) {
      ProcessResult e =
          Colo({"runs", "export", std::to_string(r["id"].get<int64_t>()),
                "--json", "--runs-db", *db_});
      EXPECT_EQ(e.exit_code, 0) << e.err;
      runs.insert(runs.begin(), Json::parse(e.out));
    }
    return runs;
  }
  static fs::path* dir_;
  static std::string* db_;
};
fs::path* ReportTest::dir_ = nullptr;
std::string* ReportTest::db_ = nullptr;

TEST_F(ReportTest, ThePageLoadsInChromiumWithEveryPointOfItsRuns) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium is not installed (Debian's `chromium` package; "
                    "scripts/setup.sh and CI install it)";
  }
  // Every policy of the example, then a preemption-bound sweep of it, a
  // plan and a prediction evaluation.
  for (std::vector<std::string> args :
       {std::vector<std::string>{"sim", kScenario, "--policies", "all",
                                 "--duration-s", "4"},
        {"sim", kScenario, "--policies", "priority", "--bound-us", "25,100,400",
         "--duration-s", "4"},
        {"plan", std::string(COLO_SOURCE_DIR) + "/examples/plan/jobs.yaml",
         "--gpus", "5"},
        {"predict", "eval", "--kace", std::string(COLO_DATA_DIR) + "/kace",
         "--repeats", "1", "--no-lowo"},
        {"sim", std::string(COLO_SOURCE_DIR) + "/examples/jobs/salus-100.yaml",
         "--policies", "fifo,pack"}}) {
    args.push_back("--runs-db");
    args.push_back(*db_);
    ProcessResult r = Colo(args);
    ASSERT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
  }
  const std::vector<Json> runs = ExportAll();
  // Every policy of `all` and the 3 bounds (sim), a plan, an evaluation,
  // and the job-queue comparison's 2 policies.
  std::map<std::string, int> kinds;
  for (const Json& r : runs) ++kinds[r["kind"].get<std::string>()];
  EXPECT_GE(kinds["sim"], 3 + 3);
  EXPECT_EQ(kinds["plan"], 1);
  EXPECT_EQ(kinds["predict-eval"], 1);
  EXPECT_EQ(kinds["jobs"], 2);
  const std::string page = (*dir_ / "report.html").string();
  ProcessResult rep = Colo({"report", "--last", std::to_string(runs.size()),
                            "-o", page, "--runs-db", *db_});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  const std::string html = ReadWholeFile(page);
  ASSERT_FALSE(html.empty());
  // Self-contained: nothing is fetched (no src= or <link>), and Chromium is
  // given no network (every host name fails to resolve).
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);

  const fs::path profile = *dir_ / "chromium-profile";
  const std::vector<std::string> common = {
      chromium,
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--user-data-dir=" + profile.string(),
      "--host-resolver-rules=MAP * ~NOTFOUND",
      "--virtual-time-budget=15000"};
  std::vector<std::string> dump = common;
  dump.push_back("--dump-dom");
  dump.push_back("file://" + page);
  ProcessResult dom = RunProgram(dump, *dir_);
  ASSERT_EQ(dom.exit_code, 0) << dom.err;

  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      dom.out, m,
      std::regex("<div id=\"colo-errors\" data-count=\"([0-9]+)\">([^<]*)<")))
      << dom.out.substr(0, 2000);
  EXPECT_EQ(m[1].str(), "0") << "errors in the page: " << m[2].str();
  EXPECT_EQ(m[2].str(), "no errors");
  ASSERT_TRUE(std::regex_search(
      dom.out, m,
      std::regex("<pre id=\"colo-selfcheck\" ([^>]*)>([^<]*)</pre>")));
  EXPECT_NE(m[1].str().find("data-status=\"done\""), std::string::npos)
      << m[1].str();
  std::map<std::string, int> got;
  {
    std::stringstream lines(m[2].str());
    std::string id;
    int n = 0;
    while (lines >> id >> n) got[id] = n;
  }
  const std::map<std::string, int> want = ExpectedPoints(runs);
  // Each kind of plot is there and has points (else the check below would
  // pass on an empty page).
  for (const char* id : {"g1-cdf-bert-inference", "g1-tradeoff",
                         "g1-normalized", "g1-sm-occupancy", "g1-sm-active",
                         "g1-dram", "g1-bound-sweep", "j2-jct", "j2-queue"}) {
    ASSERT_TRUE(want.count(id)) << id;
    EXPECT_GT(want.at(id), 0) << id;
  }
  // The sim runs kept their services' latencies, so the CDFs are drawn from
  // them: more points than the 4 quantiles of each curve.
  int kept = 0;
  for (const Json& r : runs)
    if (r["kind"] == "sim") kept += static_cast<int>(r["latencies"].size());
  EXPECT_GT(kept, 0);
  EXPECT_GT(want.at("g1-cdf-bert-inference"), 4 * kept);
  EXPECT_EQ(got, want);

  // A screenshot of the page as a browser shows it.
  const fs::path png = *dir_ / "report.png";
  std::vector<std::string> shot = common;
  shot.push_back("--screenshot=" + png.string());
  shot.push_back("--window-size=1400,3000");
  shot.push_back("file://" + page);
  ProcessResult s = RunProgram(shot, *dir_);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const std::string bytes = ReadWholeFile(png);
  ASSERT_GT(bytes.size(), 24u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  // IHDR: width and height, big-endian, at bytes 16 and 20: the window's.
  auto be32 = [&](size_t at) {
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i)
      v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
    return v;
  };
  EXPECT_EQ(be32(16), 1400u);
  EXPECT_EQ(be32(20), 3000u);
}

// Bad input fails before any work, with status 2 and a message naming what
// is wrong; no page is left behind.
TEST_F(ReportTest, BadInputIsAnErrorBeforeWork) {
  ProcessResult sim = Colo({"sim", kScenario, "--policies", "mps",
                            "--duration-s", "1", "--runs-db", *db_ + ".bad"});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  const std::string db = *db_ + ".bad";
  const std::string page = (*dir_ / "bad.html").string();
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"report", "4242", "-o", page, "--runs-db", db}, "no run 4242"},
      {{"report", "x1", "-o", page, "--runs-db", db}, "positive integer"},
      {{"report", "1", "--runs-db", db}, "-o FILE.html is required"},
      {{"report", "-o", page, "--runs-db", db}, "name the runs"},
      {{"report", "1", "-o", (*dir_ / "no-such-dir" / "r.html").string(),
        "--runs-db", db},
       "does not exist"},
      {{"report", "1", "-o", dir_->string(), "--runs-db", db},
       "is a directory"},
      // /proc takes no new files, not even from root.
      {{"report", "1", "-o", "/proc/colo-report-test.html", "--runs-db", db},
       "cannot write there"},
      {{"report", "1", "-o", page, "--runs-db",
        (*dir_ / "missing.db").string()},
       "missing.db"},
      {{"report", "--batch", "99", "-o", page, "--runs-db", db}, "--batch 99"},
  };
  for (const Case& c : cases) {
    ProcessResult r = Colo(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.says << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(page)) << c.says;
  }
  // The same command with a run that exists writes the page.
  ProcessResult ok = Colo({"report", "1", "-o", page, "--runs-db", db});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(fs::exists(page));
}

}  // namespace
}  // namespace colo::test
