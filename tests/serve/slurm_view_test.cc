// Slurm's own view in colo serve: `squeue --json` as Debian's Slurm 22.05
// writes it (testdata/squeue_22.05.json, recorded on this machine: two fake
// nodes of 4 GPUs typed g0..g3, 4 shards a GPU), and the jobs it shows
// entering PlacementService's state.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "serve/placement_service.h"
#include "serve/serve_config.h"
#include "serve/slurm_jobs.h"

namespace colo::serve {
namespace {

const std::string kPlanDir = std::string(COLO_SOURCE_DIR) + "/examples/plan";
const std::string kRecorded =
    std::string(COLO_SOURCE_DIR) + "/tests/serve/testdata/squeue_22.05.json";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// n1 and n2 with 4 GPUs each, as in the recording.
ServeConfig Config(bool default_profile) {
  const std::string dir =
      ::testing::TempDir() + "slurm_view_" +
      ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/serve.yaml";
  std::ofstream(path)
      << "gpu: V100-SXM2-32GB\nmodel: " << kPlanDir
      << "/model.json\nprofiles: " << kPlanDir << "/profiles\n"
      << (default_profile ? "default_profile: bert-base-cased_batch8-train\n"
                          : "")
      << "shards_per_gpu: 4\ngres_types: true\nnodes:\n"
         "  - {name: n1, gpus: 4}\n  - {name: n2, gpus: 4}\n";
  Result<ServeConfig> c = LoadServeConfig(path);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return std::move(c).value();
}

PlaceRequest Request(int gpus, int shards) {
  PlaceRequest r;
  r.name = "probe";
  r.user = "alice";
  r.gpus = gpus;
  r.shards = shards;
  r.profile = "bert-base-cased_batch8-inf";
  r.dry_run = true;
  return r;
}

TEST(GresDetailTest, ReadsTypedUntypedAndZeroCounts) {
  std::vector<int> gpus;
  int shards = -1;
  ASSERT_TRUE(ParseGresDetail("gpu:g2:1(IDX:2)", &gpus, &shards));
  EXPECT_EQ(gpus, (std::vector<int>{2}));
  EXPECT_EQ(shards, 0);
  // An untyped request matched to typed GPUs: only the counts above 0.
  ASSERT_TRUE(ParseGresDetail(
      "gpu:g0:1(IDX:0),gpu:g1:0(IDX:),gpu:g2:0(IDX:),gpu:g3:1(IDX:3)", &gpus,
      &shards));
  EXPECT_EQ(gpus, (std::vector<int>{0, 3}));
  ASSERT_TRUE(
      ParseGresDetail("shard:g0:0(IDX:),shard:g1:2(IDX:1)", &gpus, &shards));
  EXPECT_EQ(gpus, (std::vector<int>{1}));
  EXPECT_EQ(shards, 2);
  // Untyped GPUs, an index range.
  ASSERT_TRUE(ParseGresDetail("gpu:2(IDX:0-1)", &gpus, &shards));
  EXPECT_EQ(gpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(shards, 0);
  // Another resource before the GPUs is skipped.
  ASSERT_TRUE(
      ParseGresDetail("nic:1(IDX:0),gpu:tesla:1(IDX:3)", &gpus, &shards));
  EXPECT_EQ(gpus, (std::vector<int>{3}));
  EXPECT_FALSE(ParseGresDetail("nic:1(IDX:0)", &gpus, &shards));
  EXPECT_FALSE(ParseGresDetail("gpu:1(IDX:x)", &gpus, &shards));
  EXPECT_FALSE(ParseGresDetail("gpu:g0:0(IDX:)", &gpus, &shards));
}

TEST(SqueueJsonTest, TheRecordingGivesTheRunningGpuJobs) {
  // The recording: a gpu:g2:1, b shard:g1:2 (comment colo[c1]), c gpu:2
  // (Slurm gave g0 and g3), d shard:1 (Slurm gave g1) on n1; e gpu:4 on n2;
  // f gpu:4 and a CPU job pending.
  Result<SlurmView> v = ParseSqueueJson(ReadAll(kRecorded), "squeue --json");
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->running.size(), 5u);
  std::map<std::string, SlurmJob> by_name;
  for (const SlurmJob& j : v->running) by_name[j.name] = j;
  EXPECT_EQ(by_name["a"].gpus, (std::vector<int>{2}));
  EXPECT_EQ(by_name["a"].node, "n1");
  EXPECT_EQ(by_name["b"].placement, "c1");
  EXPECT_EQ(by_name["b"].shards, 2);
  EXPECT_EQ(by_name["b"].gpus, (std::vector<int>{1}));
  EXPECT_EQ(by_name["c"].gpus, (std::vector<int>{0, 3}));
  EXPECT_EQ(by_name["d"].shards, 1);
  EXPECT_EQ(by_name["e"].node, "n2");
  EXPECT_EQ(by_name["e"].gpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(by_name["e"].job_id, "5");
  EXPECT_EQ(v->placements, (std::vector<std::string>{"c1"}));

  Result<SlurmView> bad = ParseSqueueJson("squeue: error: x", "squeue --json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("squeue --json: expected"),
            std::string::npos)
      << bad.status().message();
}

TEST(ObserveTest, SlurmsOwnJobsHoldTheirGpusUntilTheyEnd) {
  PlacementService s(Config(true));
  // Before: an idle cluster takes a whole GPU.
  Result<PlaceAnswer> before = s.Place(Request(1, 0), TimePoint{});
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->node, "n1");
  // c1: colo's placement of one shard job (where colo put it).
  PlaceRequest c1 = Request(0, 2);
  c1.dry_run = false;
  ASSERT_TRUE(s.Place(c1, TimePoint{}).ok());
  ASSERT_EQ(s.jobs().size(), 1u);
  const std::vector<int> chosen = s.jobs()[0].gpus;

  Result<SlurmView> v = ParseSqueueJson(ReadAll(kRecorded), "recorded");
  ASSERT_TRUE(v.ok());
  const ObserveCounts n = s.Observe(*v, TimePoint{} + Seconds(1), Seconds(30));
  // a, c, d and e are Slurm's; b is c1, which Slurm ran on n1 GPU 1
  // (global 1): moved unless colo had chosen that GPU.
  EXPECT_EQ(n.from_slurm, 4);
  EXPECT_EQ(n.moved, chosen == std::vector<int>{1} ? 0 : 1);
  EXPECT_EQ(n.dropped, 0);
  EXPECT_EQ(n.unknown_nodes, 0);
  ASSERT_EQ(s.jobs().size(), 5u);
  EXPECT_EQ(s.jobs()[0].gpus, (std::vector<int>{1}));
  // Whole GPUs held: n1 0, 2, 3 (a, c) and all of n2 (e): no idle GPU left.
  Result<PlaceAnswer> whole = s.Place(Request(1, 0), TimePoint{});
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->node, "") << whole->reason;
  // Shards: only n1 GPU 1 is shareable, and it holds 2 + 1 of 4 shards, so
  // a 2-shard job cannot go anywhere and a 1-shard one only there.
  Result<PlaceAnswer> two = s.Place(Request(0, 2), TimePoint{});
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->node, "") << two->reason;
  Result<PlaceAnswer> one = s.Place(Request(0, 1), TimePoint{});
  ASSERT_TRUE(one.ok());
  if (!one->node.empty()) {
    EXPECT_EQ(one->node, "n1");
    EXPECT_EQ(one->gpus, (std::vector<int>{1}));
    EXPECT_EQ(one->gres, "gres:shard:g1:1");
  }

  // They end: Slurm lists only c1 (pending or running without GPUs here);
  // Slurm's jobs leave, colo's placement stays.
  SlurmView later;
  later.placements = {"c1"};
  const ObserveCounts m =
      s.Observe(later, TimePoint{} + Seconds(2), Seconds(30));
  EXPECT_EQ(m.from_slurm, 0);
  ASSERT_EQ(s.jobs().size(), 1u);
  EXPECT_EQ(s.jobs()[0].id, "c1");
  Result<PlaceAnswer> after = s.Place(Request(1, 0), TimePoint{});
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->node, "n1");
  EXPECT_EQ(after->gres, "gres:gpu:g0:1");
}

TEST(TypedGresTest, TheAnswerNamesTheGpusAsTypedGres) {
  // gres_types: GPU i of a node is type g<i>; the answer's "gres" is what
  // job_submit.lua puts in tres_per_node, before "reason" (Lua patterns).
  PlacementService s(Config(true));
  const std::string shard = s.Handle(
      R"({"op":"place","shards":3,"profile":"bert-base-cased_batch8-inf"})",
      TimePoint{});
  const nlohmann::json a = nlohmann::json::parse(shard);
  ASSERT_TRUE(a["ok"].get<bool>()) << shard;
  ASSERT_EQ(a["gpus"].size(), 1u) << shard;
  EXPECT_EQ(a["gres"],
            "gres:shard:g" + std::to_string(a["gpus"][0].get<int>()) + ":3");
  EXPECT_LT(shard.find("\"gres\":"), shard.find("\"reason\":"));
  // Two whole GPUs: one typed item each, 1 GPU of each type.
  const nlohmann::json w = nlohmann::json::parse(s.Handle(
      R"({"op":"place","gpus":2,"profile":"bert-base-cased_batch8-inf"})",
      TimePoint{}));
  ASSERT_EQ(w["gpus"].size(), 2u);
  EXPECT_EQ(w["gres"], "gres:gpu:g" + std::to_string(w["gpus"][0].get<int>()) +
                           ":1,gres:gpu:g" +
                           std::to_string(w["gpus"][1].get<int>()) + ":1");
  // No node, no gres.
  const nlohmann::json none = nlohmann::json::parse(s.Handle(
      R"({"op":"place","gpus":5,"profile":"bert-base-cased_batch8-inf"})",
      TimePoint{}));
  EXPECT_FALSE(none["ok"].get<bool>());
}

TEST(ObserveTest, UnknownWorkIsHeldWholeAndUnknownNodesAreCounted) {
  // Without a default profile a shard job Slurm placed cannot be predicted:
  // it holds its GPU whole, so nothing is placed beside it.
  PlacementService s(Config(false));
  SlurmView v;
  v.running.push_back({"7", "d", "n1", "", {1}, 1});
  v.running.push_back({"8", "x", "n9", "", {0}, 0});
  v.running.push_back({"9", "y", "n2", "", {4}, 0});  // n2 has GPUs 0..3
  const ObserveCounts n = s.Observe(v, TimePoint{}, Seconds(30));
  EXPECT_EQ(n.from_slurm, 1);
  EXPECT_EQ(n.unknown_nodes, 2);
  ASSERT_EQ(s.jobs().size(), 1u);
  EXPECT_EQ(s.jobs()[0].id, "s7");
  EXPECT_EQ(s.jobs()[0].shards, 0);
  // 7 shareable GPUs remain: a shard job goes to one of them, never GPU 1.
  Result<PlaceAnswer> a = s.Place(Request(0, 1), TimePoint{});
  ASSERT_TRUE(a.ok());
  ASSERT_FALSE(a->node.empty()) << a->reason;
  EXPECT_FALSE(a->node == "n1" && a->gpus == std::vector<int>{1});
}

}  // namespace
}  // namespace colo::serve
