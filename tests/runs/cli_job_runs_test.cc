// `colo sim` on job-queue, cluster and host scenarios records a run per
// policy / allocation / controller, with its figures (per job: JCT and
// queueing; totals), and `colo runs export / compare / show` read them back
// as printed (the built binary, one process per command).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/colo_process.h"

namespace colo::test {
namespace {

using Json = nlohmann::json;
const std::string kExamples = std::string(COLO_SOURCE_DIR) + "/examples/";

class CliJobRunsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("colo_cli_job_runs_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    db_ = (dir_ / "runs.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  ProcessResult Run(std::vector<std::string> args) {
    args.push_back("--runs-db");
    args.push_back(db_);
    return RunColo(args, dir_);
  }
  // Every run, oldest first, as `colo runs export --json`.
  std::vector<Json> ExportAll() {
    ProcessResult list = Run({"runs", "list", "--json"});
    EXPECT_EQ(list.exit_code, 0) << list.err;
    std::vector<Json> out;
    for (const Json& r : Json::parse(list.out)) {
      ProcessResult e = Run(
          {"runs", "export", std::to_string(r["id"].get<int64_t>()), "--json"});
      EXPECT_EQ(e.exit_code, 0) << e.err;
      out.insert(out.begin(), Json::parse(e.out));
    }
    return out;
  }
  // `colo runs compare --json` of `records`.
  Json Compare(const std::vector<Json>& records) {
    std::vector<std::string> args = {"runs", "compare", "--json"};
    for (const Json& r : records)
      args.push_back(std::to_string(r["id"].get<int64_t>()));
    ProcessResult c = Run(args);
    EXPECT_EQ(c.exit_code, 0) << c.err;
    return Json::parse(c.out);
  }
  // The printed document of `colo sim ARGS --json` (which must succeed) and
  // the runs it recorded, oldest first (ExportAll); both empty on failure.
  struct Recorded {
    Json printed;
    std::vector<Json> runs;
  };
  Recorded SimJson(std::vector<std::string> args) {
    args.push_back("--json");
    ProcessResult sim = Run(args);
    EXPECT_EQ(sim.exit_code, 0) << sim.err;
    if (sim.exit_code != 0) return {};
    return {Json::parse(sim.out), ExportAll()};
  }
  // A recorded run of a comparison: its kind, and its policy the printed
  // run's `policy_key` ("policy", "allocation", "controller").
  static void ExpectRun(const Json& run, const Json& printed_run,
                        const char* kind, const char* policy_key) {
    EXPECT_EQ(run["kind"], kind);
    EXPECT_EQ(run["policy"], printed_run[policy_key]);
  }
  // A recorded job's figures from the printed job `pj`: JCT = finish_s -
  // submit_s and queueing = `start_key` - submit_s.
  static void ExpectJobFigures(const Json& rj, const Json& pj,
                               const char* start_key) {
    EXPECT_DOUBLE_EQ(
        rj["jct_s"].get<double>(),
        pj["finish_s"].get<double>() - pj["submit_s"].get<double>());
    EXPECT_DOUBLE_EQ(
        rj["queue_s"].get<double>(),
        pj[start_key].get<double>() - pj["submit_s"].get<double>());
  }
  static const Json* Figure(const Json& compare, const std::string& name) {
    for (const Json& f : compare["figures"])
      if (f["name"] == name) return &f;
    return nullptr;
  }
  std::filesystem::path dir_;
  std::string db_;
};

// A job-queue comparison of fifo and pack: a `jobs` run each, its result the
// printed run object with each job's JCT = finish_s - submit_s and
// queueing = first_iteration_s - submit_s; compare shows both runs'
// average JCT as printed, and that it moved (pack packs jobs into lanes:
// the example prints a different average JCT for it).
TEST_F(CliJobRunsTest, AJobQueueComparisonIsRecordedAndComparedAsPrinted) {
  const auto [printed, runs] = SimJson(
      {"sim", kExamples + "jobs/salus-100.yaml", "--policies", "fifo,pack"});
  ASSERT_EQ(runs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const Json& p = printed["runs"][i];
    const Json& r = runs[i]["result"];
    ExpectRun(runs[i], p, "jobs", "policy");
    EXPECT_EQ(runs[i]["seed"], printed["seed"]);
    EXPECT_EQ(r["format"], "colo.jobs.run/1");
    EXPECT_EQ(r["avg_jct_s"], p["avg_jct_s"]);
    EXPECT_EQ(r["makespan_s"], p["makespan_s"]);
    ASSERT_EQ(r["jobs"].size(), p["jobs"].size());
    ASSERT_GT(r["jobs"].size(), 0u);
    double jct_sum = 0;
    for (size_t j = 0; j < p["jobs"].size(); ++j) {
      const Json& pj = p["jobs"][j];
      const Json& rj = r["jobs"][j];
      EXPECT_EQ(rj["name"], pj["model"].get<std::string>() + "#" +
                                std::to_string(pj["id"].get<int64_t>()));
      ExpectJobFigures(rj, pj, "first_iteration_s");
      jct_sum += pj["finish_s"].get<double>() - pj["submit_s"].get<double>();
    }
    // The printed average is the mean of the per-job JCTs.
    EXPECT_NEAR(jct_sum / p["jobs"].size(), p["avg_jct_s"].get<double>(),
                1e-6 * p["avg_jct_s"].get<double>());
  }
  const Json c = Compare(runs);
  const Json* avg = Figure(c, "avg_jct_s");
  ASSERT_NE(avg, nullptr);
  EXPECT_EQ(avg->at("values")[0], printed["runs"][0]["avg_jct_s"]);
  EXPECT_EQ(avg->at("values")[1], printed["runs"][1]["avg_jct_s"]);
  EXPECT_NE(avg->at("values")[0], avg->at("values")[1]);  // the moved figure.
  const std::string first_job =
      "jobs[" + runs[0]["result"]["jobs"][0]["name"].get<std::string>() +
      "].jct_s";
  EXPECT_NE(Figure(c, first_job), nullptr) << first_job;
  // Memory by lane is the time series: not a compared figure.
  for (const Json& f : c["figures"])
    EXPECT_EQ(f["name"].get<std::string>().find("timeline"), std::string::npos);
  // `runs show` reprints the table.
  ProcessResult table =
      Run({"sim", kExamples + "jobs/salus-100.yaml", "--policies", "fifo"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  ProcessResult show = Run({"runs", "show", "3"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("printed:\n" + table.out), std::string::npos);
}

// A cluster what-if: a `cluster` run per allocation, its policy the
// allocation, each job's JCT = finish_s - submit_s and queueing = start_s -
// submit_s.
TEST_F(CliJobRunsTest, AClusterWhatIfRecordsARunPerAllocation) {
  const auto [printed, runs] =
      SimJson({"sim", kExamples + "cluster/philly-1000.yaml", "--allocations",
               "whole-gpu,colo"});
  ASSERT_EQ(runs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const Json& p = printed["runs"][i];
    const Json& r = runs[i]["result"];
    ExpectRun(runs[i], p, "cluster", "allocation");
    EXPECT_EQ(r["p95_jct_s"], p["p95_jct_s"]);
    ASSERT_EQ(r["jobs"].size(), p["jobs"].size());
    ExpectJobFigures(r["jobs"].back(), p["jobs"].back(), "start_s");
  }
  const Json c = Compare(runs);
  const Json* makespan = Figure(c, "makespan_s");
  ASSERT_NE(makespan, nullptr);
  EXPECT_EQ(makespan->at("values")[1], printed["runs"][1]["makespan_s"]);
}

// A host scenario: a `host` run per controller, and compare gives each GPU
// job's degradation as printed.
TEST_F(CliJobRunsTest, AHostScenarioRecordsARunPerController) {
  const auto [printed, runs] =
      SimJson({"sim", kExamples + "hostqos/kelp-50.yaml"});
  ASSERT_GE(printed.size(), 2u);
  ASSERT_EQ(runs.size(), printed.size());
  const Json c = Compare(runs);
  for (size_t i = 0; i < runs.size(); ++i) {
    ExpectRun(runs[i], printed[i], "host", "controller");
    for (const Json& g : printed[i]["gpu_jobs"]) {
      const Json* f = Figure(
          c, "gpu_jobs[" + g["name"].get<std::string>() + "].degradation");
      ASSERT_NE(f, nullptr);
      EXPECT_EQ(f->at("values")[i], g["degradation"]);
    }
  }
}

// --no-record records nothing; a --runs-db in a missing directory fails
// before the run, naming it.
TEST_F(CliJobRunsTest, NoRecordAndABadRunsDbBehaveAsForKernelScenarios) {
  // The default database is XDG_DATA_HOME/colo/runs.db: absent after
  // --no-record, there after a plain run.
  const std::string xdg = (dir_ / "xdg").string();
  const std::filesystem::path default_db = dir_ / "xdg" / "colo" / "runs.db";
  ProcessResult quiet =
      RunColo({"sim", kExamples + "jobs/unsafe-pack.yaml", "--no-record"}, dir_,
              0, {"XDG_DATA_HOME=" + xdg});
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_FALSE(std::filesystem::exists(default_db));
  ProcessResult plain = RunColo({"sim", kExamples + "jobs/unsafe-pack.yaml"},
                                dir_, 0, {"XDG_DATA_HOME=" + xdg});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_TRUE(std::filesystem::exists(default_db));
  const std::string bad = (dir_ / "no" / "runs.db").string();
  for (const char* scenario : {"jobs/unsafe-pack.yaml", "hostqos/kelp-50.yaml",
                               "cluster/philly-1000.yaml"}) {
    ProcessResult r =
        RunColo({"sim", kExamples + scenario, "--runs-db", bad}, dir_);
    EXPECT_NE(r.exit_code, 0) << scenario;
    EXPECT_NE(r.err.find(bad), std::string::npos) << scenario << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << scenario << ": " << r.out;
  }
}

}  // namespace
}  // namespace colo::test
