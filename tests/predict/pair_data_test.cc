// Pair measurements -> normalized labels; bad rows name file and line.
#include "predict/pair_data.h"

#include <gtest/gtest.h>

#include "../profile/temp_dir.h"
#include "predict/oracle_ratio.h"

namespace colo::predict {
namespace {

using profile::testing::TempDir;

std::vector<profile::WorkloadProfile> Profiles() {
  std::vector<profile::WorkloadProfile> out;
  for (auto [name, solo] : {std::pair{"a", 10.0}, {"b", 20.0}, {"c", 40.0}}) {
    profile::WorkloadProfile p;
    p.name = name;
    p.solo_throughput = solo;
    out.push_back(p);
  }
  return out;
}

const char* kHeader = "workload1,workload2,w1throughput,w2throughput\n";

TEST(PairDataTest, NormalizesBySoloThroughput) {
  TempDir dir;
  const std::string path =
      dir.Write("p.csv", std::string(kHeader) + "a,b,5,15\nc,a,20,10\n");
  auto m = ReadPairMeasurements(path);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto d = BuildPairDataset(*m, Profiles());
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->pairs.size(), 2u);
  // a next to b: 5 / 10 = 0.5; b next to a: 15 / 20 = 0.75; outcome 1.25.
  EXPECT_DOUBLE_EQ(d->pairs[0].norm_a, 0.5);
  EXPECT_DOUBLE_EQ(d->pairs[0].norm_b, 0.75);
  EXPECT_DOUBLE_EQ(PairOutcome(d->pairs[0]), 1.25);
  // Held as (a, c), the workloads in name order: a next to c: 10 / 10;
  // c next to a: 20 / 40.
  EXPECT_EQ(d->profiles[d->pairs[1].a].name, "a");
  EXPECT_EQ(d->profiles[d->pairs[1].b].name, "c");
  EXPECT_DOUBLE_EQ(d->pairs[1].norm_a, 1.0);
  EXPECT_DOUBLE_EQ(d->pairs[1].norm_b, 0.5);
  EXPECT_EQ(d->pairs[1].where, path + ":3");
}

TEST(PairDataTest, TheOrderOfTheRowsDoesNotMatter) {
  // Cross-validation folds go by position in `pairs`: the same pairs in
  // another order, or with their columns swapped, give the same dataset.
  TempDir dir;
  auto d1 = BuildPairDataset(
      *ReadPairMeasurements(dir.Write(
          "p1.csv", std::string(kHeader) + "b,c,1,2\na,b,5,15\nc,a,20,10\n")),
      Profiles());
  auto d2 = BuildPairDataset(
      *ReadPairMeasurements(dir.Write(
          "p2.csv", std::string(kHeader) + "a,c,10,20\nc,b,2,1\nb,a,15,5\n")),
      Profiles());
  ASSERT_TRUE(d1.ok() && d2.ok());
  ASSERT_EQ(d1->pairs.size(), 3u);
  ASSERT_EQ(d2->pairs.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(d1->pairs[i].a, d2->pairs[i].a) << i;
    EXPECT_EQ(d1->pairs[i].b, d2->pairs[i].b) << i;
    EXPECT_LT(d1->pairs[i].a, d1->pairs[i].b) << i;
    EXPECT_DOUBLE_EQ(d1->pairs[i].norm_a, d2->pairs[i].norm_a) << i;
    EXPECT_DOUBLE_EQ(d1->pairs[i].norm_b, d2->pairs[i].norm_b) << i;
  }
}

TEST(PairDataTest, WorkloadWithoutProfileNamesFileAndLine) {
  TempDir dir;
  const std::string path =
      dir.Write("p.csv", std::string(kHeader) + "a,b,5,15\na,zz,1,1\n");
  auto d = BuildPairDataset(*ReadPairMeasurements(path), Profiles());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kNotFound);
  EXPECT_NE(
      d.status().message().find(path + ":3: workload 'zz' has no profile"),
      std::string::npos)
      << d.status().message();
}

TEST(PairDataTest, BadCellsAndLayouts) {
  TempDir dir;
  auto m = ReadPairMeasurements(
      dir.Write("p.csv", std::string(kHeader) + "a,b,5,\n"));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find(
                ":2: column 'w2throughput': expected a finite number, got ''"),
            std::string::npos)
      << m.status().message();
  m = ReadPairMeasurements(
      dir.Write("q.csv", std::string(kHeader) + "a,b,nan,1\n"));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("got 'nan'"), std::string::npos);
  m = ReadPairMeasurements(
      dir.Write("r.csv", "workload1,workload2,w1throughput\na,b,1\n"));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("missing column 'w2throughput'"),
            std::string::npos);
  m = ReadPairMeasurements(
      dir.Write("s.csv", std::string(kHeader) + "a,a,1,1\n"));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("paired with itself"), std::string::npos);
}

TEST(PairDataTest, MissingSoloDuplicateAndExclusion) {
  TempDir dir;
  auto profiles = Profiles();
  profiles[1].solo_throughput.reset();
  auto d = BuildPairDataset(*ReadPairMeasurements(dir.Write(
                                "p.csv", std::string(kHeader) + "a,b,5,15\n")),
                            profiles);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("workload 'b' has no solo throughput"),
            std::string::npos);
  d = BuildPairDataset(
      *ReadPairMeasurements(
          dir.Write("q.csv", std::string(kHeader) + "a,b,5,15\nb,a,1,1\n")),
      Profiles());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("measured twice"), std::string::npos);
  PairDataOptions o;
  o.exclude = {"b"};
  d = BuildPairDataset(
      *ReadPairMeasurements(
          dir.Write("r.csv", std::string(kHeader) + "a,b,5,15\nc,a,20,10\n")),
      Profiles(), o);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->pairs.size(), 1u);
  EXPECT_EQ(d->dropped_pairs, 1);
  EXPECT_EQ(d->excluded, std::vector<std::string>{"b"});
  EXPECT_EQ(d->profiles.size(), 2u);  // a and c
}

}  // namespace
}  // namespace colo::predict
