// colo serve's placement service: its rules, its agreement with `colo plan`,
// its protocol and its socket.
#include "serve/placement_service.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "place/jobs_file.h"
#include "place/planner.h"
#include "serve/line_server.h"
#include "serve/serve_config.h"

namespace colo::serve {
namespace {

const std::string kPlanDir = std::string(COLO_SOURCE_DIR) + "/examples/plan";

std::string TempDir() {
  const std::string d =
      ::testing::TempDir() + "serve_" +
      ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::create_directories(d);
  return d;
}

std::string Write(const std::string& dir, const std::string& text) {
  const std::string path = dir + "/serve.yaml";
  std::ofstream(path) << text;
  return path;
}

// Three nodes of two GPUs, four shards a GPU; account "inference" may run
// high priority.
std::string ConfigText() {
  return "gpu: V100-SXM2-32GB\nmodel: " + kPlanDir +
         "/model.json\nprofiles: " + kPlanDir +
         "/profiles\ndefault_profile: bert-base-cased_batch8-train\n"
         "shards_per_gpu: 4\nnodes:\n  - {name: n1, gpus: 2}\n"
         "  - {name: n2, gpus: 2}\n  - {name: n3, gpus: 2}\n"
         "grants:\n  - account: inference\n";
}

PlacementService MakeService() {
  Result<ServeConfig> c = LoadServeConfig(Write(TempDir(), ConfigText()));
  EXPECT_TRUE(c.ok()) << c.status().message();
  return PlacementService(std::move(c).value());
}

PlaceRequest Shard(const std::string& profile, int shards,
                   PriorityClass cls = PriorityClass::kBestEffort,
                   const std::string& account = "") {
  PlaceRequest r;
  r.name = profile;
  r.user = "alice";
  r.account = account;
  r.requested = cls;
  r.shards = shards;
  r.profile = profile;
  return r;
}

TEST(ServeConfigTest, ErrorsNameFileAndLine) {
  const std::string dir = TempDir();
  Result<ServeConfig> bad =
      LoadServeConfig(Write(dir, ConfigText() + "shards_per_gpus: 4\n"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("serve.yaml:"), std::string::npos)
      << bad.status().message();
  EXPECT_NE(bad.status().message().find("shards_per_gpu"), std::string::npos);
  std::string dup = ConfigText();
  // The node list's "name: n2" (the paths above may hold "n2" too).
  dup.replace(dup.find("name: n2"), 8, "name: n1");
  bad = LoadServeConfig(Write(dir, dup));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("duplicate node name 'n1'"),
            std::string::npos)
      << bad.status().message();
  std::string nodefault = ConfigText();
  nodefault.replace(nodefault.find("bert-base-cased_batch8-train"), 28,
                    "no-such-profile");
  bad = LoadServeConfig(Write(dir, nodefault));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("no profile named 'no-such-profile'"),
            std::string::npos);
}

TEST(PlacementServiceTest, RejectsWhatCannotRun) {
  PlacementService s = MakeService();
  PlaceRequest high_cpu =
      Shard("bert-base-cased_batch8-inf", 0, PriorityClass::kHigh, "inference");
  Result<PlaceAnswer> a = s.Place(high_cpu, TimePoint{});
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->rejected);
  EXPECT_NE(a->reason.find("high priority"), std::string::npos);
  // 5 shards > the 4 one GPU has: Slurm would leave it pending forever.
  a = s.Place(Shard("bert-base-cased_batch8-inf", 5), TimePoint{});
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->rejected);
  EXPECT_NE(a->reason.find("more shards than one GPU has (4)"),
            std::string::npos);
  PlaceRequest three = Shard("bert-base-cased_batch8-train", 0);
  three.gpus = 3;  // nodes have 2
  a = s.Place(three, TimePoint{});
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->rejected);
  EXPECT_TRUE(s.jobs().empty());
}

TEST(PlacementServiceTest, HighIsGrantedOnlyByTheConfig) {
  PlacementService s = MakeService();
  Result<PlaceAnswer> granted = s.Place(
      Shard("bert-base-cased_batch8-inf", 1, PriorityClass::kHigh, "inference"),
      TimePoint{});
  ASSERT_TRUE(granted.ok());
  EXPECT_EQ(granted->granted, PriorityClass::kHigh);
  EXPECT_EQ(granted->grant_reason, "granted to account 'inference'");
  Result<PlaceAnswer> asked = s.Place(
      Shard("bert-base-cased_batch8-inf", 1, PriorityClass::kHigh, "research"),
      TimePoint{});
  ASSERT_TRUE(asked.ok());
  EXPECT_EQ(asked->granted, PriorityClass::kBestEffort);
  EXPECT_NE(asked->grant_reason.find("no grant in"), std::string::npos);
  EXPECT_NE(asked->grant_reason.find("'research'"), std::string::npos);
  // The record holds the granted class, which the planner's floors use.
  ASSERT_EQ(s.jobs().size(), 2u);
  EXPECT_EQ(s.jobs()[0].request.priority, PriorityClass::kHigh);
  EXPECT_EQ(s.jobs()[1].request.priority, PriorityClass::kBestEffort);
}

TEST(PlacementServiceTest, WholeGpusAreTakenIdleAndNotShared) {
  PlacementService s = MakeService();
  PlaceRequest two = Shard("vit_h_14_batch8-train", 0);
  two.gpus = 2;
  // Three nodes of two GPUs: three gpu:2 jobs fill the cluster, n1 first.
  for (const char* node : {"n1", "n2", "n3"}) {
    Result<PlaceAnswer> a = s.Place(two, TimePoint{});
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(a->node, node);
    EXPECT_EQ(a->gpus, (std::vector<int>{0, 1}));
    EXPECT_EQ(a->source, "whole");
  }
  Result<PlaceAnswer> full = s.Place(two, TimePoint{});
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->node, "");  // Slurm queues it
  Result<PlaceAnswer> shard =
      s.Place(Shard("bert-base-cased_batch8-inf", 1), TimePoint{});
  ASSERT_TRUE(shard.ok());
  EXPECT_EQ(shard->node, "");
  EXPECT_NE(shard->reason.find("held whole"), std::string::npos);
}

// The GPUs (global index) that shard jobs occupy and who is on each.
std::map<int, std::set<std::string>> Occupants(const PlacementService& s) {
  std::map<int, std::set<std::string>> on;
  for (const PlacedJob& j : s.jobs()) {
    if (j.shards > 0) on[j.gpus[0]].insert(j.id);
  }
  return on;
}

// For each arrival: colo serve explains its state as a jobs file; `colo
// plan`'s library on that file must put the candidate beside exactly the
// jobs on the GPU colo serve picks (when colo serve's answer comes from the
// plan, which the first arrivals on an empty cluster always do).
TEST(PlacementServiceTest, AnswerEqualsColoPlanOnTheSameState) {
  PlacementService s = MakeService();
  const std::vector<PlaceRequest> arrivals = {
      Shard("bert-base-cased_batch8-inf", 1, PriorityClass::kHigh, "inference"),
      Shard("albert-base-v2_batch16-train", 1),
      Shard("vit-base-patch16-224_batch16-inf", 2, PriorityClass::kHigh,
            "inference"),
      Shard("vit_h_14_batch2-train", 1),
      Shard("bert-base-cased_batch16-inf", 1),
      Shard("whisper-large-v2_batch16-inf", 1),
      Shard("albert-base-v2_batch16-train", 1),
      Shard("wav2vec2-base-960h_batch8-inf", 1),
  };
  int from_plan = 0;
  const std::string dir = TempDir();
  for (size_t i = 0; i < arrivals.size(); ++i) {
    PlaceRequest dry = arrivals[i];
    dry.dry_run = true;
    Result<PlaceAnswer> answer = s.Place(dry, TimePoint{});
    ASSERT_TRUE(answer.ok()) << answer.status().message();
    Result<std::string> yaml = s.Explain(arrivals[i]);
    ASSERT_TRUE(yaml.ok());
    const std::string file = dir + "/state.yaml";
    std::ofstream(file) << *yaml;
    Result<place::JobsFile> jobs = place::LoadJobsFile(file);
    ASSERT_TRUE(jobs.ok()) << jobs.status().message() << "\n" << *yaml;
    place::PlanOptions o = s.config().plan;
    o.gpus = s.config().TotalGpus();  // no whole-GPU jobs here
    Result<place::Plan> plan =
        place::PlanPlacement(jobs->jobs, s.config().model, s.config().gpu, o);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    const place::PlannedJob& cand = plan->jobs.back();
    ASSERT_EQ(cand.name, "candidate");
    if (answer->source == "plan" && answer->node.empty()) {
      EXPECT_LT(cand.gpu, 0) << "arrival " << i;
    } else if (answer->source == "plan") {
      ++from_plan;
      std::set<std::string> beside;
      for (int k : plan->gpus[cand.gpu].jobs) {
        if (plan->jobs[k].name != "candidate")
          beside.insert(plan->jobs[k].name);
      }
      // Global index of the answer's GPU.
      int g = answer->gpus[0];
      for (const NodeSpec& n : s.config().nodes) {
        if (n.name == answer->node) break;
        g += n.gpus;
      }
      EXPECT_EQ(Occupants(s)[g], beside) << "arrival " << i;
    }
    // The dry run recorded nothing; the real one does.
    const size_t before = s.jobs().size();
    ASSERT_TRUE(s.Place(arrivals[i], TimePoint{}).ok());
    EXPECT_EQ(s.jobs().size(), before + (answer->node.empty() ? 0 : 1));
  }
  // Six GPUs for eight jobs: the first six arrivals find an empty GPU
  // that the plan also leaves them alone on, or partners it names.
  EXPECT_GE(from_plan, 6);
}

TEST(PlacementServiceTest, ShardsOfOneGpuNeverExceedItsCount) {
  PlacementService s = MakeService();
  // 3 x 2 shards: at most two of them fit on a 4-shard GPU.
  std::map<int, int> shards;
  for (int i = 0; i < 9; ++i) {
    Result<PlaceAnswer> a =
        s.Place(Shard("vit_h_14_batch2-train", 2), TimePoint{});
    ASSERT_TRUE(a.ok());
  }
  for (const PlacedJob& j : s.jobs()) shards[j.gpus[0]] += j.shards;
  for (const auto& [g, k] : shards) EXPECT_LE(k, 4) << "GPU " << g;
}

TEST(PlacementServiceTest, RetainForgetsWhatSlurmNoLongerLists) {
  PlacementService s = MakeService();
  const TimePoint t0{};
  ASSERT_TRUE(s.Place(Shard("vit_h_14_batch2-train", 1), t0).ok());
  ASSERT_TRUE(s.Place(Shard("vit_h_14_batch2-train", 1), t0).ok());
  ASSERT_EQ(s.jobs().size(), 2u);
  // c1 listed, c2 not yet but young: both kept.
  EXPECT_EQ(s.Retain({"c1"}, t0 + Seconds(1), Seconds(30)), 0);
  // c1 seen before and now gone; c2 never listed and past the grace.
  EXPECT_EQ(s.Retain({}, t0 + Seconds(31), Seconds(30)), 2);
  EXPECT_TRUE(s.jobs().empty());
}

TEST(PlacementServiceTest, ProtocolAnswersEveryLine) {
  PlacementService s = MakeService();
  using nlohmann::json;
  json a = json::parse(s.Handle(
      R"({"op":"place","name":"x","user":"u","shards":1,"profile":"vit_h_14_batch2-train"})",
      TimePoint{}));
  EXPECT_TRUE(a["ok"].get<bool>());
  EXPECT_EQ(a["node"], "n1");
  EXPECT_EQ(a["id"], "c1");
  // Without gres_types Slurm picks the GPU on the node: no gres request.
  EXPECT_EQ(a["gres"], "");
  // "reason" comes last: job_submit.lua reads it with a pattern.
  const std::string text =
      s.Handle(R"({"op":"place","shards":1,"profile":"vit_h_14_batch2-train"})",
               TimePoint{});
  EXPECT_NE(text.rfind("\"reason\":"), std::string::npos);
  EXPECT_GT(text.rfind("\"reason\":"), text.rfind("\"granted\":"));
  for (
      const std::string bad :
      {"not json", "[1]", R"({"op":"fly"})", R"({"op":"place","shards":"2"})",
       R"({"op":"place","shards":1,"profile":"nope"})",
       R"({"op":"place","shards":1,"class":"urgent"})",
       R"({"op":"forget","id":"c99"})",
       // A profile the model cannot read (no MPS scaling curve).
       R"({"op":"place","shards":1,"profile":"albert-base-v2_batch4-train"})"}) {
    json e = json::parse(s.Handle(bad, TimePoint{}));
    EXPECT_FALSE(e["ok"].get<bool>()) << bad;
    EXPECT_TRUE(e.contains("error")) << bad;
  }
  json st = json::parse(s.Handle(R"({"op":"state"})", TimePoint{}));
  EXPECT_EQ(st["jobs"].size(), 2u);
}

TEST(LineServerTest, AnswersLinesOverTheSocket) {
  const std::string path = TempDir() + "/s.sock";
  Result<std::unique_ptr<LineServer>> server = LineServer::Listen(path);
  ASSERT_TRUE(server.ok()) << server.status().message();
  std::thread t([&] {
    Status s =
        (*server)->Run([](const std::string& line) { return "echo:" + line; },
                       nullptr, Milliseconds(50));
    EXPECT_TRUE(s.ok());
  });
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path.c_str());
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  const std::string two = "a\nb\n";
  ASSERT_EQ(write(fd, two.data(), two.size()),
            static_cast<ssize_t>(two.size()));
  std::string got;
  char buf[64];
  for (int i = 0; i < 100 && got.size() < 14; ++i) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  EXPECT_EQ(got, "echo:a\necho:b\n");
  close(fd);
  (*server)->RequestStop();
  t.join();
}

}  // namespace
}  // namespace colo::serve
