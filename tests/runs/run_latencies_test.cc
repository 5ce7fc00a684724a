// Per-request latencies in the runs store: kept whole under the cap, else a
// systematic sample; stored as a BLOB and read back value for value; a
// database of schema version 1 (before latencies) is migrated, its runs
// kept, and takes latencies afterwards.
#include "runs/run_latencies.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "runs/run_context.h"
#include "runs/runs_schema.h"
#include "runs/runs_store.h"

namespace colo::runs {
namespace {

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(i);
  return v;
}

TEST(KeepLatenciesTest, AllOfThemUpToTheCap) {
  const JobLatencies l = KeepLatencies("svc", kLatenciesShared, Iota(100), 100);
  EXPECT_EQ(l.total, 100);
  EXPECT_EQ(l.cap, 100);
  EXPECT_EQ(l.ns, Iota(100));
  EXPECT_FALSE(l.sampled());
}

// 1000 latencies 0..999 under a cap of 100: the sample is ns[floor(i * 1000
// / 100)] = 10 i, every tenth request; its nearest-rank p50 is rank 50 of
// 100, 490, and the whole's is rank 500 of 1000, 499: within the spacing.
TEST(KeepLatenciesTest, OverTheCapAUniformSampleOfCap) {
  const JobLatencies l = KeepLatencies("svc", kLatenciesSolo, Iota(1000), 100);
  EXPECT_EQ(l.total, 1000);
  ASSERT_EQ(l.ns.size(), 100u);
  EXPECT_TRUE(l.sampled());
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(l.ns[i], 10 * i);
  EXPECT_EQ(NearestRankPercentile(l.ns, 50), 490);
  EXPECT_EQ(NearestRankPercentile(Iota(1000), 50), 499);
  // 7 of 3 (n / cap not whole): floor(i * 7 / 3) = 0, 2, 4.
  const JobLatencies odd = KeepLatencies("svc", kLatenciesShared, Iota(7), 3);
  EXPECT_EQ(odd.ns, (std::vector<int64_t>{0, 2, 4}));
}

TEST(KeepLatenciesTest, NearestRankIsCeilOfPercentTimesN) {
  // n = 10: p99 is rank ceil(9.9) = 10, p50 rank 5, p95 rank ceil(9.5) = 10.
  const std::vector<int64_t> v = {9, 1, 8, 2, 7, 3, 6, 4, 5, 10};
  EXPECT_EQ(NearestRankPercentile(v, 50), 5);
  EXPECT_EQ(NearestRankPercentile(v, 95), 10);
  EXPECT_EQ(NearestRankPercentile(v, 99), 10);
  EXPECT_EQ(NearestRankPercentile({}, 99), 0);
}

TEST(LatencyBlobTest, RoundTripsEveryValueAndRejectsAPartialOne) {
  const std::vector<int64_t> v = {0,
                                  1,
                                  -1,
                                  255,
                                  256,
                                  std::numeric_limits<int64_t>::max(),
                                  std::numeric_limits<int64_t>::min()};
  const std::string blob = EncodeLatencies(v);
  ASSERT_EQ(blob.size(), 8 * v.size());
  EXPECT_EQ(static_cast<unsigned char>(blob[8 * 4 + 1]), 1u);  // 256 LE.
  auto back = DecodeLatencies(blob.data(), blob.size());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, v);
  auto bad = DecodeLatencies(blob.data(), 12);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("12 bytes"), std::string::npos);
}

class LatencyStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("colo_run_latencies_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "runs.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  static RunRecord Sample(const std::string& policy) {
    RunRecord r;
    r.kind = kKindSim;
    r.created_unix_ns = 1'800'000'000'000'000'000;
    r.colo_version = ColoVersion();
    r.command = "colo sim s.yaml";
    r.input = "s.yaml";
    r.input_text = "gpu: A100\n";
    r.input_hash = ContentHash(r.input_text);
    r.options_json = R"({"policy":")" + policy + R"("})";
    r.seed = 1;
    r.policy = policy;
    r.result_json = "{}";
    return r;
  }
  // Runs `sql` on the file directly, as an older colo would have.
  void Sql(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    const std::string message = err ? err : "";
    sqlite3_free(err);
    sqlite3_close(db);
    ASSERT_EQ(rc, SQLITE_OK) << message;
  }
  int UserVersion() {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, nullptr);
    const int v = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int(s, 0) : -1;
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
  }
  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(LatencyStoreTest, KeptLatenciesComeBackValueForValue) {
  auto store = RunsStore::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status().message();
  std::vector<RunRecord> runs = {Sample("mps"), Sample("priority")};
  runs[0].latencies = {KeepLatencies("svc", kLatenciesShared, {5, 3, 9}),
                       KeepLatencies("svc", kLatenciesSolo, {2, 2})};
  runs[1].latencies = {KeepLatencies("svc", kLatenciesShared, Iota(50), 10)};
  ASSERT_TRUE((*store)->Record(runs, "").ok());
  store->reset();
  auto again = RunsStore::Open(path_, {.create = false});
  ASSERT_TRUE(again.ok());
  for (const RunRecord& want : runs) {
    auto got = (*again)->Get(want.id);
    ASSERT_TRUE(got.ok()) << got.status().message();
    ASSERT_EQ(got->latencies.size(), want.latencies.size());
    for (size_t i = 0; i < want.latencies.size(); ++i) {
      EXPECT_EQ(got->latencies[i].job, want.latencies[i].job);
      EXPECT_EQ(got->latencies[i].run, want.latencies[i].run);
      EXPECT_EQ(got->latencies[i].total, want.latencies[i].total);
      EXPECT_EQ(got->latencies[i].cap, want.latencies[i].cap);
      EXPECT_EQ(got->latencies[i].ns, want.latencies[i].ns);
    }
  }
  EXPECT_TRUE((*again)->Get(runs[1].id)->latencies[0].sampled());
  // List leaves them out (Get has them).
  auto list = (*again)->List({});
  ASSERT_TRUE(list.ok());
  for (const RunRecord& r : *list) EXPECT_TRUE(r.latencies.empty());
}

// A file that an older colo made (schema version 1, with a run in it) is
// brought to the current version on open: its run reads back as it was,
// with no latencies, and new runs keep theirs.
TEST_F(LatencyStoreTest, AVersionOneDatabaseIsMigratedKeepingItsRuns) {
  Sql(std::string(kRunsMigrations[0]) + "PRAGMA user_version = 1;");
  Sql("INSERT INTO batches VALUES (1, 7, 'colo sim old.yaml', 'old table');"
      "INSERT INTO runs(batch, kind, created_unix_ns, colo_version, input, "
      "input_hash, options_json, options_hash, seed, policy, gpu, host, cpu, "
      "result_json) VALUES (1, 'sim', 7, '0.1', 'old.yaml', '', '{}', 'h', "
      "3, 'mps', 'A100', 'host', 'cpu', '{\"system_throughput\": 1.5}');");
  ASSERT_EQ(UserVersion(), 1);
  auto store = RunsStore::Open(path_, {.create = false});
  ASSERT_TRUE(store.ok()) << store.status().message();
  EXPECT_EQ(UserVersion(), kRunsSchemaVersion);
  auto old = (*store)->Get(1);
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_EQ(old->input, "old.yaml");
  EXPECT_EQ(old->result_json, R"({"system_throughput": 1.5})");
  EXPECT_EQ(old->printed, "old table");
  EXPECT_TRUE(old->latencies.empty());
  std::vector<RunRecord> one = {Sample("priority")};
  one[0].latencies = {KeepLatencies("svc", kLatenciesShared, {4, 1})};
  ASSERT_TRUE((*store)->Record(one, "").ok());
  EXPECT_EQ(one[0].id, 2);
  auto got = (*store)->Get(2);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->latencies.size(), 1u);
  EXPECT_EQ(got->latencies[0].ns, (std::vector<int64_t>{4, 1}));
  EXPECT_EQ((*store)->Count().value(), 2);
}

// A latencies BLOB that is not whole 8-byte values is damage: Get names the
// file, the run and the job, and does not crash.
TEST_F(LatencyStoreTest, ADamagedLatencyBlobIsAnErrorNamingIt) {
  {
    auto store = RunsStore::Open(path_);
    ASSERT_TRUE(store.ok());
    std::vector<RunRecord> one = {Sample("mps")};
    one[0].latencies = {KeepLatencies("svc", kLatenciesShared, {1, 2})};
    ASSERT_TRUE((*store)->Record(one, "").ok());
  }
  Sql("UPDATE latencies SET ns = x'0102030405'");
  auto store = RunsStore::Open(path_);
  ASSERT_TRUE(store.ok());
  auto got = (*store)->Get(1);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  const std::string& m = got.status().message();
  EXPECT_NE(m.find(path_), std::string::npos) << m;
  EXPECT_NE(m.find("job svc"), std::string::npos) << m;
}

}  // namespace
}  // namespace colo::runs
