// Host scenarios (hostqos/host_scenario.h): the examples load, and a bad
// value is named at its line.
#include "hostqos/host_scenario.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace colo::hostqos {
namespace {

// Every host example loads (what a newcomer runs first).
TEST(HostScenario, EveryExampleLoads) {
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::string(COLO_SOURCE_DIR) + "/examples/hostqos")) {
    if (entry.path().extension() != ".yaml") continue;
    Result<HostScenario> s = LoadHostScenarioFile(entry.path().string());
    EXPECT_TRUE(s.ok()) << entry.path() << ": " << s.status().ToString();
    ++loaded;
  }
  EXPECT_GE(loaded, 6);
}

TEST(HostScenario, TheKelpExampleLoads) {
  const std::string path =
      std::string(COLO_SOURCE_DIR) + "/examples/hostqos/kelp-100.yaml";
  EXPECT_TRUE(IsHostScenarioFile(path));
  Result<HostScenario> s = LoadHostScenarioFile(path);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->name, "kelp-100");
  ASSERT_EQ(s->spec.domains.size(), 2u);
  EXPECT_EQ(s->spec.gpu_jobs[0].domain, "snc0");
  EXPECT_DOUBLE_EQ(s->spec.aggressors[0].demand_gbps, 50);
  EXPECT_EQ(s->controllers.size(), 5u);  // controllers: all
  EXPECT_FALSE(IsHostScenarioFile(std::string(COLO_SOURCE_DIR) +
                                  "/examples/inference-vs-training/mps.yaml"));
}

TEST(HostScenario, ErrorsNameTheLine) {
  const std::string text =
      "host:\n"
      "  domains:\n"
      "    - {name: d0, peak_gbps: 50}\n"
      "  aggressors:\n"
      "    - {name: be, domain: d9, demand_gbps: 10}\n";
  Result<HostScenario> s = LoadHostScenarioString(text, "h.yaml", ".");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("h.yaml:5"), std::string::npos)
      << s.status().message();
  EXPECT_NE(s.status().message().find("no domain 'd9' (the host has d0)"),
            std::string::npos)
      << s.status().message();
  const std::string both =
      "host:\n"
      "  domains: [{name: d0}]\n"
      "  gpu_jobs:\n"
      "    - {name: t, domain: d0}\n";
  s = LoadHostScenarioString(both, "h.yaml", ".");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("exactly one of gpu_step_ms"),
            std::string::npos)
      << s.status().message();
  s = LoadHostScenarioString("host: {domains: [{name: d0}]}\ncontrollers: x\n",
                             "h.yaml", ".");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("unknown host controller 'x'"),
            std::string::npos)
      << s.status().message();
}

}  // namespace
}  // namespace colo::hostqos
