// RunsStore: a run recorded comes back field for field; the schema is
// versioned (a newer one is refused, naming the file and both versions); a
// damaged or foreign file is an error naming it; two processes writing at
// once lose nothing.
#include "runs/runs_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "runs/run_context.h"
#include "runs/runs_schema.h"

namespace colo::runs {
namespace {

class RunsStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("colo_runs_store_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "runs.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static RunRecord Sample(int64_t seed, const std::string& policy) {
    RunRecord r;
    r.kind = kKindSim;
    r.created_unix_ns = 1'800'000'000'000'000'000 + seed;
    r.colo_version = ColoVersion();
    r.command = "colo sim s.yaml --seed " + std::to_string(seed);
    r.input = "s.yaml";
    r.input_text = "gpu: A100\n";
    r.input_hash = ContentHash(r.input_text);
    r.options_json = R"({"policy":")" + policy + R"("})";
    r.seed = seed;
    r.policy = policy;
    r.gpu = "A100-SXM4-40GB";
    r.host = "h";
    r.cpu = "c";
    r.result_json = R"({"system_throughput": )" + std::to_string(seed) + "}";
    return r;
  }

  // Sets the file's user_version by hand, as another colo would have.
  void SetUserVersion(int v) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    const std::string sql = "PRAGMA user_version = " + std::to_string(v);
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }

  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(RunsStoreTest, ARecordedBatchComesBackFieldForField) {
  auto store = RunsStore::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status().message();
  std::vector<RunRecord> runs = {Sample(1, "mps"), Sample(1, "priority")};
  auto ids = (*store)->Record(runs, "the table\n");
  ASSERT_TRUE(ids.ok()) << ids.status().message();
  ASSERT_EQ(ids->size(), 2u);
  // Both share the batch of the first.
  EXPECT_EQ(runs[0].batch, runs[0].id);
  EXPECT_EQ(runs[1].batch, runs[0].id);
  EXPECT_EQ(runs[1].id, runs[0].id + 1);

  store->reset();  // reopened: nothing lives only in memory.
  auto again = RunsStore::Open(path_, {.create = false});
  ASSERT_TRUE(again.ok()) << again.status().message();
  auto got = (*again)->Get(runs[1].id);
  ASSERT_TRUE(got.ok()) << got.status().message();
  const RunRecord& want = runs[1];
  EXPECT_EQ(got->kind, want.kind);
  EXPECT_EQ(got->created_unix_ns, want.created_unix_ns);
  EXPECT_EQ(got->colo_version, want.colo_version);
  EXPECT_EQ(got->command, want.command);
  EXPECT_EQ(got->input, want.input);
  EXPECT_EQ(got->input_text, want.input_text);
  EXPECT_EQ(got->input_hash, want.input_hash);
  EXPECT_EQ(got->options_json, want.options_json);
  EXPECT_EQ(got->seed, want.seed);
  EXPECT_EQ(got->policy, want.policy);
  EXPECT_EQ(got->gpu, want.gpu);
  EXPECT_EQ(got->host, want.host);
  EXPECT_EQ(got->cpu, want.cpu);
  EXPECT_EQ(got->result_json, want.result_json);
  EXPECT_EQ(got->printed, "the table\n");
}

TEST_F(RunsStoreTest, ListFiltersAndRepeatsAreSameInputAndOptions) {
  auto store = RunsStore::Open(path_);
  ASSERT_TRUE(store.ok());
  // Three seeds of mps and one of priority, one command each.
  for (int64_t seed : {1, 2, 3}) {
    std::vector<RunRecord> one = {Sample(seed, "mps")};
    ASSERT_TRUE((*store)->Record(one, "").ok());
  }
  std::vector<RunRecord> prio = {Sample(1, "priority")};
  ASSERT_TRUE((*store)->Record(prio, "").ok());

  auto all = (*store)->List({});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ(all->front().policy, "priority");  // newest first
  auto mps = (*store)->List({.policy = "mps"});
  ASSERT_TRUE(mps.ok());
  EXPECT_EQ(mps->size(), 3u);
  auto seed2 = (*store)->List({.policy = "mps", .seed = 2});
  ASSERT_TRUE(seed2.ok());
  ASSERT_EQ(seed2->size(), 1u);
  EXPECT_EQ(seed2->front().seed, 2);
  auto limited = (*store)->List({.limit = 2});
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(limited->size(), 2u);
  auto by_hash =
      (*store)->List({.input_hash = ContentHash("gpu: A100\n").substr(0, 6)});
  ASSERT_TRUE(by_hash.ok());
  EXPECT_EQ(by_hash->size(), 4u);

  // The repeats of an mps run: the three mps seeds, not the priority run
  // (other options).
  auto repeats = (*store)->Repeats(mps->front());
  ASSERT_TRUE(repeats.ok());
  ASSERT_EQ(repeats->size(), 3u);
  for (const RunRecord& r : *repeats) EXPECT_EQ(r.policy, "mps");
  auto prio_repeats = (*store)->Repeats(prio.front());
  ASSERT_TRUE(prio_repeats.ok());
  EXPECT_EQ(prio_repeats->size(), 1u);
}

TEST_F(RunsStoreTest, AMissingRunIsNotFoundNamingItAndTheFile) {
  auto store = RunsStore::Open(path_);
  ASSERT_TRUE(store.ok());
  std::vector<RunRecord> one = {Sample(1, "mps")};
  ASSERT_TRUE((*store)->Record(one, "").ok());
  auto got = (*store)->Get(999);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kNotFound);
  EXPECT_NE(got.status().message().find("no run 999 in " + path_),
            std::string::npos)
      << got.status().message();
  EXPECT_NE(got.status().message().find("holds 1 runs"), std::string::npos);
}

TEST_F(RunsStoreTest, AMissingFileIsNotCreatedForReading) {
  auto store = RunsStore::Open(path_, {.create = false});
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kNotFound);
  EXPECT_NE(store.status().message().find(path_), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path_));
}

TEST_F(RunsStoreTest, ANewFileGetsTheCurrentSchemaVersion) {
  ASSERT_TRUE(RunsStore::Open(path_).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(s, 0), kRunsSchemaVersion);
  sqlite3_finalize(s);
  sqlite3_close(db);
}

TEST_F(RunsStoreTest, ANewerSchemaIsRefusedNamingFileAndVersions) {
  ASSERT_TRUE(RunsStore::Open(path_).ok());
  SetUserVersion(kRunsSchemaVersion + 1);
  auto store = RunsStore::Open(path_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition);
  const std::string& m = store.status().message();
  EXPECT_NE(m.find(path_), std::string::npos) << m;
  EXPECT_NE(m.find("version " + std::to_string(kRunsSchemaVersion + 1)),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("(version " + std::to_string(kRunsSchemaVersion) + ")"),
            std::string::npos)
      << m;
}

TEST_F(RunsStoreTest, AnEmptyVersionZeroFileIsMigratedAndKeepsWorking) {
  // An empty file is an SQLite database of version 0 with no tables: the
  // migrations from version 0 make it current.
  std::ofstream(path_).close();
  auto store = RunsStore::Open(path_, {.create = false});
  ASSERT_TRUE(store.ok()) << store.status().message();
  std::vector<RunRecord> one = {Sample(1, "mps")};
  ASSERT_TRUE((*store)->Record(one, "").ok());
  EXPECT_EQ((*store)->Count().value(), 1);
}

TEST_F(RunsStoreTest, AFileOfGarbageIsAnErrorNamingIt) {
  std::string garbage;
  for (int i = 0; i < 8192; ++i) garbage += static_cast<char>((i * 131) % 251);
  std::ofstream(path_, std::ios::binary) << garbage;
  auto store = RunsStore::Open(path_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(store.status().message().find(path_), std::string::npos)
      << store.status().message();
  EXPECT_NE(store.status().message().find("damaged or not a colo runs"),
            std::string::npos)
      << store.status().message();
}

TEST_F(RunsStoreTest, SomeoneElsesSqliteDatabaseIsNotTouched) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "CREATE TABLE photos(x)", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  auto store = RunsStore::Open(path_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(store.status().message().find("not a colo runs database"),
            std::string::npos)
      << store.status().message();
}

TEST_F(RunsStoreTest, AFileInAMissingDirectoryIsUnavailable) {
  auto store = RunsStore::Open((dir_ / "no" / "such" / "runs.db").string());
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(store.status().message().find("no/such/runs.db"),
            std::string::npos);
}

// Two processes, each opening the same new file and, once both have it
// open, recording kPerWriter batches of two runs as fast as it can: every
// run is there afterwards, 2 * kPerWriter * 2, and the ids are distinct.
// How their writes interleave is the scheduler's (on a loaded machine one
// may finish before the other gets the CPU), so it is not asserted.
TEST_F(RunsStoreTest, TwoProcessesWritingAtOnceLoseNothing) {
  constexpr int kPerWriter = 150;
  int opened[2], go[2];  // children -> parent, parent -> children
  ASSERT_EQ(pipe(opened), 0);
  ASSERT_EQ(pipe(go), 0);
  std::vector<pid_t> children;
  for (int w = 0; w < 2; ++w) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto store = RunsStore::Open(path_);
      // Said whether or not it opened, so that the parent never waits on a
      // child that is gone; then both open before either writes.
      char byte = 1;
      if (write(opened[1], &byte, 1) != 1) _exit(12);
      if (!store.ok()) _exit(10);
      if (read(go[0], &byte, 1) != 1) _exit(12);
      for (int i = 0; i < kPerWriter; ++i) {
        std::vector<RunRecord> batch = {Sample(w * 1000 + i, "mps"),
                                        Sample(w * 1000 + i, "priority")};
        if (!(*store)->Record(batch, "w" + std::to_string(w)).ok()) _exit(11);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  close(opened[1]);  // a child gone early reads as end of file, not a hang
  char bytes[2];
  const bool both =
      read(opened[0], bytes, 1) == 1 && read(opened[0], bytes + 1, 1) == 1;
  EXPECT_TRUE(both) << "a writer ended before it opened the store";
  EXPECT_EQ(write(go[1], "gg", 2), 2);
  for (int fd : {opened[0], go[0], go[1]}) close(fd);
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0)
        << "10: open failed, 11: record failed, 12: no start signal";
  }
  auto store = RunsStore::Open(path_, {.create = false});
  ASSERT_TRUE(store.ok()) << store.status().message();
  EXPECT_EQ((*store)->Count().value(), 2 * kPerWriter * 2);
  auto all = (*store)->List({});
  ASSERT_TRUE(all.ok());
  std::set<int64_t> ids;
  for (const RunRecord& r : *all) ids.insert(r.id);
  EXPECT_EQ(ids.size(), static_cast<size_t>(2 * kPerWriter * 2));
  // Each writer's seeds 0..kPerWriter-1 all arrived, both policies each.
  for (int w = 0; w < 2; ++w) {
    auto mine = (*store)->List({.policy = "mps"});
    ASSERT_TRUE(mine.ok());
    int64_t count = 0;
    for (const RunRecord& r : *mine) count += (*r.seed / 1000 == w) ? 1 : 0;
    EXPECT_EQ(count, kPerWriter) << "writer " << w;
  }
}

}  // namespace
}  // namespace colo::runs
