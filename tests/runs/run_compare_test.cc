// Figures read from a run's JSON, and CompareRuns' differences and
// seed-to-seed spread, on runs whose figures the test chooses.
#include "runs/run_compare.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "runs/run_context.h"
#include "runs/run_export.h"
#include "runs/run_figures.h"

namespace colo::runs {
namespace {

TEST(RunFiguresTest, NamesArePathsAndNamedElementsAndNanosHideBehindCopies) {
  const std::string json = R"({
    "format": "colo.sim.run/1", "seed": 7, "duration_ns": 5, "duration_s": 5e-9,
    "busy_ns": 12, "wave_by_wave": false, "policy": null,
    "jobs": [{"name": "a", "normalized": 0.5,
              "lat": {"p99_ns": 3000000, "p99_ms": 3}},
             {"name": "b", "normalized": 0.75}],
    "gpus": [{"name": "g", "mean_sm_active": 0.25,
              "timeline": [{"start_ms": 0, "sm_active": 0.5},
                           {"start_ms": 1, "sm_active": 0.125}]}],
    "list": [4, 5]})";
  auto figures = ExtractFigures(json);
  ASSERT_TRUE(figures.ok());
  std::vector<std::string> names;
  for (const Figure& f : *figures) names.push_back(f.name);
  // duration_ns and p99_ns have printed copies (_s, _ms) and are left out;
  // busy_ns has none and stays; strings, booleans, nulls and the timeline
  // are not figures.
  const std::vector<std::string> want = {"seed",
                                         "duration_s",
                                         "busy_ns",
                                         "jobs[a].normalized",
                                         "jobs[a].lat.p99_ms",
                                         "jobs[b].normalized",
                                         "gpus[g].mean_sm_active",
                                         "list[0]",
                                         "list[1]"};
  EXPECT_EQ(names, want);
  EXPECT_EQ(figures->at(4).value, 3);

  auto series = ExtractFigures(json, {.time_series = true});
  ASSERT_TRUE(series.ok());
  // 2 samples x 2 numbers more.
  EXPECT_EQ(series->size(), want.size() + 4);
  bool found = false;
  for (const Figure& f : *series) {
    if (f.name == "gpus[g].timeline[1].sm_active") {
      found = true;
      EXPECT_EQ(f.value, 0.125);
    }
  }
  EXPECT_TRUE(found);
  EXPECT_FALSE(ExtractFigures("{not json").ok());
}

class RunCompareTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("colo_run_compare_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    auto s = RunsStore::Open((dir_ / "runs.db").string());
    ASSERT_TRUE(s.ok());
    store_ = std::move(*s);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A run of `policy` and `seed` whose figures are tput and p99.
  int64_t Add(const std::string& policy, int64_t seed, double tput,
              double p99) {
    RunRecord r;
    r.kind = kKindSim;
    r.input = "s.yaml";
    r.input_hash = ContentHash("s");
    r.options_json = R"({"policy":")" + policy + R"("})";
    r.seed = seed;
    r.policy = policy;
    r.result_json = "{\"tput\": " + std::to_string(tput) +
                    ", \"p99_ms\": " + std::to_string(p99) + "}";
    std::vector<RunRecord> one = {r};
    auto ids = store_->Record(one, "");
    EXPECT_TRUE(ids.ok());
    return one.front().id;
  }
  const ComparedFigure& Row(const RunComparison& c, const std::string& name) {
    for (const ComparedFigure& f : c.figures)
      if (f.name == name) return f;
    ADD_FAILURE() << "no figure " << name;
    return c.figures.front();
  }

  std::filesystem::path dir_;
  std::unique_ptr<RunsStore> store_;
};

TEST_F(RunCompareTest, WithoutRepeatsNothingIsMarked) {
  const int64_t a = Add("mps", 1, 1.0, 10);
  const int64_t b = Add("priority", 1, 0.5, 2);
  auto c = CompareRuns(*store_, {a, b});
  ASSERT_TRUE(c.ok()) << c.status().message();
  const ComparedFigure& tput = Row(*c, "tput");
  EXPECT_EQ(tput.values[0], 1.0);
  EXPECT_EQ(tput.values[1], 0.5);
  EXPECT_FALSE(tput.spreads[0].has_value());
  EXPECT_FALSE(tput.moved[1]);
  const std::string text = FormatComparison(*c, false);
  EXPECT_NE(text.find("-0.5 (-50.0%)"), std::string::npos) << text;
  EXPECT_NE(text.find("spread is unknown"), std::string::npos) << text;
}

TEST_F(RunCompareTest, AMoveIsMarkedOnlyBeyondTheRangeOverSeeds) {
  // mps over seeds 1..3: tput 1.00, 1.02, 0.98 -> spread 0.04;
  // p99_ms 10, 14, 12 -> spread 4.
  const int64_t a = Add("mps", 1, 1.00, 10);
  Add("mps", 2, 1.02, 14);
  Add("mps", 3, 0.98, 12);
  // priority, one seed: tput 0.90 (|0.90 - 1.00| = 0.10 > 0.04: moved);
  // p99_ms 13 (|13 - 10| = 3 <= 4: within the spread).
  const int64_t b = Add("priority", 1, 0.90, 13);
  auto c = CompareRuns(*store_, {a, b});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->repeats, (std::vector<int64_t>{3, 1}));
  const ComparedFigure& tput = Row(*c, "tput");
  ASSERT_TRUE(tput.spreads[0].has_value());
  EXPECT_NEAR(*tput.spreads[0], 0.04, 1e-12);
  EXPECT_FALSE(tput.spreads[1].has_value());
  EXPECT_TRUE(tput.moved[1]);
  const ComparedFigure& p99 = Row(*c, "p99_ms");
  EXPECT_NEAR(*p99.spreads[0], 4, 1e-12);
  EXPECT_FALSE(p99.moved[1]);
  const std::string text = FormatComparison(*c, false);
  EXPECT_NE(text.find("moved beyond the seed-to-seed spread"),
            std::string::npos);
  // --changed keeps both (both differ); an identical run shows "=".
  const int64_t same = Add("mps", 1, 1.00, 10);
  auto c2 = CompareRuns(*store_, {a, same});
  ASSERT_TRUE(c2.ok());
  EXPECT_NE(FormatComparison(*c2, false).find("  =\n"), std::string::npos);
  EXPECT_EQ(FormatComparison(*c2, true).find("tput"), std::string::npos);
}

TEST_F(RunCompareTest, AMissingIdIsNotFound) {
  const int64_t a = Add("mps", 1, 1.0, 10);
  auto c = CompareRuns(*store_, {a, a + 41});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kNotFound);
}

TEST_F(RunCompareTest, CsvExportHasEveryFigureAsStored) {
  const int64_t a = Add("mps", 1, 0.25, 10);
  auto run = store_->Get(a);
  ASSERT_TRUE(run.ok());
  auto csv = FormatRunExportCsv(*run);
  ASSERT_TRUE(csv.ok());
  const std::string id = std::to_string(a);
  EXPECT_EQ(*csv, "run_id,figure,value\n" + id + ",tput,0.25\n" + id +
                      ",p99_ms,10\n");
  auto json = FormatRunExportJson(*run);
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("\"tput\": 0.25"), std::string::npos) << *json;
}

}  // namespace
}  // namespace colo::runs
