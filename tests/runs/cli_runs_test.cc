// `colo sim` recording its runs and `colo runs` reading them back, as a user
// runs them (the built binary, one process per command, so every read is of
// the file as another process left it).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/colo_process.h"
#include "runs/runs_schema.h"

namespace colo::test {
namespace {

using Json = nlohmann::json;
const std::string kExample =
    std::string(COLO_SOURCE_DIR) + "/examples/inference-vs-training/mps.yaml";

class CliRunsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("colo_cli_runs_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    db_ = (dir_ / "runs.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // `colo args...`, with XDG_DATA_HOME `xdg` when given (else RunColo's, a
  // directory of the scratch folder).
  ProcessResult Run(const std::vector<std::string>& args,
                    const std::string& xdg = "") {
    return RunColo(args, dir_, 0,
                   xdg.empty()
                       ? std::vector<std::string>{}
                       : std::vector<std::string>{"XDG_DATA_HOME=" + xdg});
  }
  // The ids of the runs in the database, oldest first.
  std::vector<int64_t> Ids() {
    ProcessResult r = Run({"runs", "list", "--json", "--runs-db", db_});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<int64_t> ids;
    for (const Json& run : Json::parse(r.out))
      ids.insert(ids.begin(), run["id"].get<int64_t>());
    return ids;
  }

  std::filesystem::path dir_;
  std::string db_;
};

// The must-show: a comparison recorded, reopened and compared later gives
// the figures the original printed. Each job's numbers and the system
// throughput of every policy's run, as `colo sim --json` printed them, are
// the values `colo runs compare` reads back; `colo runs export --json`
// gives the run's printed object whole; and `colo runs show` reprints the
// table exactly.
TEST_F(CliRunsTest, ACompareOfARecordedComparisonGivesThePrintedFigures) {
  ProcessResult sim =
      Run({"sim", kExample, "--policies", "mps,priority,time-slice",
           "--duration-s", "2", "--json", "--runs-db", db_});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  const Json printed = Json::parse(sim.out);
  ASSERT_EQ(printed.size(), 3u);
  const std::vector<int64_t> ids = Ids();
  ASSERT_EQ(ids.size(), 3u);

  std::vector<std::string> args = {"runs", "compare", "--json", "--runs-db",
                                   db_};
  for (int64_t id : ids) args.push_back(std::to_string(id));
  ProcessResult cmp = Run(args);
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  const Json c = Json::parse(cmp.out);
  auto value = [&](const std::string& name, size_t run) -> Json {
    for (const Json& f : c["figures"])
      if (f["name"] == name) return f["values"][run];
    ADD_FAILURE() << "no figure " << name;
    return nullptr;
  };
  int checked = 0;
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(c["runs"][i]["policy"].get<std::string>().rfind(
                  printed[i]["policy"].get<std::string>(), 0),
              0u);
    EXPECT_EQ(value("system_throughput", i), printed[i]["system_throughput"]);
    for (const Json& job : printed[i]["jobs"]) {
      const std::string prefix =
          "jobs[" + job["name"].get<std::string>() + "].";
      for (const auto& [key, v] : job.items()) {
        if (!v.is_number() || key.ends_with("_ns")) continue;
        EXPECT_EQ(value(prefix + key, i), v) << prefix + key;
        ++checked;
      }
      if (job["shared_latency"].is_object()) {
        EXPECT_EQ(value(prefix + "shared_latency.p99_ms", i),
                  job["shared_latency"]["p99_ms"]);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 3 * 2 * 4);  // a real check: many figures per run.

  for (size_t i = 0; i < 3; ++i) {
    ProcessResult exp = Run(
        {"runs", "export", std::to_string(ids[i]), "--json", "--runs-db", db_});
    ASSERT_EQ(exp.exit_code, 0) << exp.err;
    const Json record = Json::parse(exp.out);
    EXPECT_EQ(record["result"], printed[i]);
    EXPECT_EQ(record["seed"], printed[i]["seed"]);
    EXPECT_EQ(record["printed"], sim.out);
  }

  ProcessResult table = Run({"sim", kExample, "--policies", "mps,priority",
                             "--duration-s", "2", "--runs-db", db_});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const int64_t last = Ids().back();
  ProcessResult show =
      Run({"runs", "show", std::to_string(last), "--runs-db", db_});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const std::string tail = "printed:\n" + table.out;
  ASSERT_GE(show.out.size(), tail.size());
  EXPECT_EQ(show.out.substr(show.out.size() - tail.size()), tail) << show.out;
}

// Each high-priority service's per-request latencies are kept with the run
// (shared and solo), under the cap, so the run's own summary is computable
// from them: the nearest-rank p99 and the maximum of the kept latencies
// (rank ceil(0.99 n) of n sorted) equal the p99_ns / max_ns the run
// printed, and their count its count. A best-effort job keeps none.
TEST_F(CliRunsTest, KeptLatenciesGiveTheRunsPrintedPercentiles) {
  ProcessResult sim = Run({"sim", kExample, "--policies", "priority",
                           "--duration-s", "2", "--json", "--runs-db", db_});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  const Json printed = Json::parse(sim.out)[0];
  const std::vector<int64_t> ids = Ids();
  ASSERT_EQ(ids.size(), 1u);
  ProcessResult exp = Run(
      {"runs", "export", std::to_string(ids[0]), "--json", "--runs-db", db_});
  ASSERT_EQ(exp.exit_code, 0) << exp.err;
  const Json record = Json::parse(exp.out);
  int compared = 0;
  for (const Json& job : printed["jobs"]) {
    const bool kept = job["class"] == "high" && job["kind"] == "inference";
    for (const char* which : {"shared", "solo"}) {
      const Json* entry = nullptr;
      for (const Json& l : record["latencies"])
        if (l["job"] == job["name"] && l["run"] == which) entry = &l;
      if (!kept) {
        EXPECT_EQ(entry, nullptr) << job["name"];
        continue;
      }
      ASSERT_NE(entry, nullptr) << job["name"] << " " << which;
      const Json& summary = job[std::string(which) + "_latency"];
      ASSERT_TRUE(summary.is_object());
      std::vector<int64_t> ns = (*entry)["ns"].get<std::vector<int64_t>>();
      ASSERT_FALSE(ns.empty());
      EXPECT_EQ((*entry)["total"], summary["count"]);
      EXPECT_EQ((*entry)["sampled"], false);  // a 2 s run is under the cap.
      EXPECT_EQ(static_cast<int64_t>(ns.size()),
                summary["count"].get<int64_t>());
      std::sort(ns.begin(), ns.end());
      const size_t rank = (99 * ns.size() + 99) / 100;
      EXPECT_EQ(ns[rank - 1], summary["p99_ns"].get<int64_t>()) << which;
      EXPECT_EQ(ns.back(), summary["max_ns"].get<int64_t>()) << which;
      ++compared;
    }
  }
  EXPECT_GE(compared, 2);  // the example's service, shared and alone.
  // `show` says what it kept.
  ProcessResult show =
      Run({"runs", "show", std::to_string(ids[0]), "--runs-db", db_});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("requests kept"), std::string::npos) << show.out;
}

TEST_F(CliRunsTest, RepeatsGiveASpreadAndCompareMarksMoves) {
  for (const char* seed : {"1", "2", "3"}) {
    ProcessResult r =
        Run({"sim", kExample, "--policies", "mps,priority", "--duration-s", "2",
             "--seed", seed, "--runs-db", db_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const std::vector<int64_t> ids = Ids();
  ASSERT_EQ(ids.size(), 6u);
  // ids[0] mps seed 1, ids[1] priority seed 1: each has 3 repeats.
  ProcessResult cmp = Run({"runs", "compare", std::to_string(ids[0]),
                           std::to_string(ids[1]), "--runs-db", db_});
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  EXPECT_NE(cmp.out.find("(3 repeats)"), std::string::npos) << cmp.out;
  EXPECT_NE(cmp.out.find(" *\n"), std::string::npos) << cmp.out;
  ProcessResult list = Run({"runs", "list", "--filter", "policy=mps",
                            "--filter", "seed=2", "--runs-db", db_});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(std::count(list.out.begin(), list.out.end(), '\n'), 2) << list.out;
}

TEST_F(CliRunsTest, ABadRunIdIsAClearErrorWithStatus2) {
  ASSERT_EQ(
      Run({"sim", kExample, "--duration-s", "1", "--runs-db", db_}).exit_code,
      0);
  ProcessResult r = Run({"runs", "show", "4242", "--runs-db", db_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("colo: error: no run 4242 in " + db_), std::string::npos)
      << r.err;
  r = Run({"runs", "compare", "1", "x1", "--runs-db", db_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("run id 'x1'"), std::string::npos) << r.err;
  r = Run({"runs", "export", "1", "--runs-db", db_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--csv or --json"), std::string::npos) << r.err;
  r = Run({"runs", "list", "--filter", "colour=red", "--runs-db", db_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown key 'colour'"), std::string::npos) << r.err;
}

TEST_F(CliRunsTest, ANewerSchemaFailsBeforeTheRunNamingFileAndVersions) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  // The full 20 s example: failing before the run, it prints no report.
  ProcessResult r = Run({"sim", kExample, "--runs-db", db_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(db_ + ": runs database schema version 99 is newer"),
            std::string::npos)
      << r.err;
  EXPECT_NE(
      r.err.find("(version " + std::to_string(runs::kRunsSchemaVersion) + ")"),
      std::string::npos)
      << r.err;
  r = Run({"runs", "list", "--runs-db", db_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("version 99"), std::string::npos) << r.err;
}

TEST_F(CliRunsTest, AGarbageFileOrMissingDirectoryIsAnErrorNamingIt) {
  std::ofstream(db_, std::ios::binary) << std::string(4096, '\x5a');
  ProcessResult r = Run({"runs", "list", "--runs-db", db_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("colo: error: " + db_), std::string::npos) << r.err;
  EXPECT_EQ(r.signal, 0);
  const std::string missing = (dir_ / "no-such-dir" / "runs.db").string();
  r = Run({"sim", kExample, "--runs-db", missing});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("--runs-db: " + missing), std::string::npos) << r.err;
}

TEST_F(CliRunsTest, TheDefaultDatabaseIsUnderXdgDataHome) {
  const std::string xdg = dir_.string();
  ProcessResult r =
      Run({"sim", kExample, "--duration-s", "1", "--no-record"}, xdg);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "colo" / "runs.db"));
  r = Run({"sim", kExample, "--duration-s", "1"}, xdg);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  ASSERT_TRUE(std::filesystem::exists(dir_ / "colo" / "runs.db"));
  r = Run({"runs", "list", "--json"}, xdg);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Json::parse(r.out).size(), 1u);
}

// RunColo (tests/cli/colo_process.h) points XDG_DATA_HOME into the test's
// scratch folder, so the command-line tests that run colo sim without
// --runs-db record there, never in the home of whoever runs them.
TEST_F(CliRunsTest, TheTestHarnessRecordsInItsScratchFolder) {
  ProcessResult r = Run({"sim", kExample, "--duration-s", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "xdg-data" / "colo" / "runs.db"));
}

TEST_F(CliRunsTest, AnUnwritableDataDirectoryWarnsOnceAndTheRunSucceeds) {
  // A data directory under a regular file can be created by nobody, root
  // included.
  const std::string file = (dir_ / "a-file").string();
  std::ofstream(file) << "x";
  ProcessResult plain =
      Run({"sim", kExample, "--duration-s", "1", "--no-record"});
  ProcessResult r = Run({"sim", kExample, "--duration-s", "1"}, file + "/data");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, plain.out);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("colo: warning: not recording this run"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace colo::test
