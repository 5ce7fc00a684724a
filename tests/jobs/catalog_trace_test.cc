// Salus's catalog, the P/E split, trace CSVs and the generator, read from
// the copy in data/salus/.
#include <gtest/gtest.h>

#include <cmath>

#include "jobs/catalog.h"
#include "jobs/job_trace.h"

namespace colo::jobs {
namespace {

const std::string kCatalog =
    std::string(COLO_DATA_DIR) + "/salus/workloads.csv";

TEST(Catalog, ReadsSalusFileWithTheTenMinuteVggRenamed) {
  Result<Catalog> c = ReadSalusCatalog(kCatalog);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->entries.size(), 99u);
  // Row 18 repeats vgg16_100_1min with jct 617.567 s and 912 iterations:
  // the 10-minute variant.
  const CatalogEntry* ten = c->Find("vgg16_100_10min");
  ASSERT_NE(ten, nullptr);
  EXPECT_EQ(ten->line, 18);
  EXPECT_EQ(ten->iterations, 912);
  EXPECT_EQ(ten->length_min, 10);
  const CatalogEntry* one = c->Find("vgg16_100_1min");
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(one->iterations, 90);
  // Per-iteration time = jct / iterations: 67.059 s / 565 = 118.69 ms.
  const CatalogEntry* v = c->Find("vgg11_25_1min");
  ASSERT_NE(v, nullptr);
  EXPECT_NEAR(ToMillis(v->iteration_time), 67059.0 / 565, 1e-3);
}

TEST(Catalog, SplitsPeakMemoryByTheBatchSizeLine) {
  Result<Catalog> c = ReadSalusCatalog(kCatalog);
  ASSERT_TRUE(c.ok());
  // resnet50 peaks 2116, 4008.2, 5914.6 MiB at batch 25, 50, 75. The
  // least-squares line through (25, 2116), (50, 4008.2), (75, 5914.6) has
  // slope (5914.6 - 2116) / 50 = 75.972 MiB per sample and intercept
  // mean(y) - slope x 50 = 4012.93 - 3798.6 = 214.33 MiB: that is P, E the
  // rest (within the [10%, 90%] clamp: 214 MiB >= 211.6 MiB).
  const double sy = 2116 + 4008.2 + 5914.6;
  const double slope = (5914.6 - 2116) / 50;
  const double p_mib = sy / 3 - slope * 50;
  const CatalogEntry* r = c->Find("resnet50_25_5min");
  ASSERT_NE(r, nullptr);
  EXPECT_NEAR(r->persistent_bytes / double(kMiB), p_mib, 0.01);
  EXPECT_EQ(r->persistent_bytes + r->ephemeral_bytes, r->peak_bytes);
  // Every entry: P in [10%, 90%] of the peak, E = peak - P, u in (0, 1].
  for (const CatalogEntry& e : c->entries) {
    EXPECT_GE(e.persistent_bytes, e.peak_bytes / 10 - 1) << e.name;
    EXPECT_LE(e.persistent_bytes, e.peak_bytes * 9 / 10 + 1) << e.name;
    EXPECT_GT(e.busy_fraction, 0) << e.name;
    EXPECT_LE(e.busy_fraction, 1) << e.name;
  }
}

TEST(Catalog, BadRowsNameTheLine) {
  Result<Catalog> c = ParseSalusCatalog(
      "a_25_1min,10,100,5,cmd\r\nb_25_1min,-3,100,5,cmd\r\n", "w.csv");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "w.csv:2: jct: expected seconds in (0, 1e6], got -3");
  c = ParseSalusCatalog("nounderscore,10,100,5,cmd\n", "w.csv");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("w.csv:1: name 'nounderscore'"),
            std::string::npos);
}

TEST(JobTrace, ReadsSalusLayoutAndRefusesBadRows) {
  Result<Catalog> c = ReadSalusCatalog(kCatalog);
  ASSERT_TRUE(c.ok());
  Result<std::vector<TraceJob>> t = ParseJobTrace(
      "job_id,model_name,iterations,submit_time,duration\n"
      "1,resnet50_25_1min,478,12.5,79\n"
      "0,alexnet_25_1min,100,0,10,high\n",
      "t.csv", *c);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[0].id, 0);  // sorted by submit time
  EXPECT_TRUE((*t)[0].high_priority);
  EXPECT_EQ((*t)[1].submit, Milliseconds(12500));
  t = ParseJobTrace("0,resnet50_25_1min,478,-3,79\n", "t.csv", *c);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            "t.csv:1: submit_time: expected seconds >= 0 (and at most 1e9), "
            "got -3");
  t = ParseJobTrace("0,resnet50_25_1min,478,0,79\n1,bert_9_1min,5,0,1\n",
                    "t.csv", *c);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(
      t.status().message().rfind("t.csv:2: unknown model 'bert_9_1min'", 0), 0u)
      << t.status().message();
}

TEST(JobTrace, GeneratorFollowsTheMixAndTheSeed) {
  Result<Catalog> c = ReadSalusCatalog(kCatalog);
  ASSERT_TRUE(c.ok());
  JobMix mix;  // 0.6 / 0.3 / 0.1
  const std::vector<Duration> at = PoissonArrivals(2000, Seconds(10), 5);
  Result<std::vector<TraceJob>> a = GenerateJobs(*c, mix, at, 5);
  Result<std::vector<TraceJob>> b = GenerateJobs(*c, mix, at, 5);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(FormatJobTrace(*a), FormatJobTrace(*b));  // same seed, same jobs
  int one = 0;
  for (const TraceJob& j : *a) one += c->Find(j.model)->length_min == 1;
  // 2000 draws at p = 0.6: mean 1200, sd sqrt(2000 x 0.24) = 21.9; 5 sd.
  EXPECT_NEAR(one, 1200, 110);
  // Poisson gaps of mean 10 s: 1999 gaps, mean within 5 sd (10/sqrt(1999)).
  EXPECT_NEAR(ToSeconds(at.back()) / 1999, 10.0, 5 * 10.0 / std::sqrt(1999.0));
  // The CSV it writes reads back as the same jobs.
  Result<std::vector<TraceJob>> back =
      ParseJobTrace(FormatJobTrace(*a), "g", *c);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(FormatJobTrace(*back), FormatJobTrace(*a));
}

}  // namespace
}  // namespace colo::jobs
