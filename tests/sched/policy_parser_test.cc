// The `policy:` block that scenarios and colod's config share
// (sched/policy_parser.h): what a block sets, and DescribePolicy, which
// writes the block colod logs and reads back to the same options. The
// parser's error messages are checked word for word in
// tests/scenario/scenario_errors_test.cc and, for colod,
// tests/runtime/runtime_units_test.cc and cli_runtime_test.cc.
#include "sched/policy_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/yaml_value.h"

namespace colo::sched {
namespace {

const std::string kFile = "c.yaml";

// `text` as the value of a `policy:` key.
Result<ParsedPolicy> Parse(const std::string& text) {
  COLO_ASSIGN_OR_RETURN(YAML::Node node,
                        io::ParseSingleYamlDocument(text, kFile, "one policy"));
  return ParsePolicy(io::YamlValue(&kFile, node, "policy", 1));
}

TEST(PolicyParserTest, ANameAloneTakesTheDefaults) {
  Result<ParsedPolicy> p = Parse("orion");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->kind, PolicyKind::kOrion);
  EXPECT_TRUE(p->options.explicitly_set.empty());
  EXPECT_EQ(p->options.orion_be_cap, PolicyOptions{}.orion_be_cap);
  EXPECT_EQ(DescribePolicy(p->kind, p->options), "orion");
}

// Microseconds to nanoseconds exactly: 0.5 us is 500 ns, 1500.001 us is
// 1500001 ns; the options not given keep their defaults.
TEST(PolicyParserTest, OptionsSetTheirFieldsInTheirUnits) {
  Result<ParsedPolicy> p = Parse(
      "{name: priority, preemption_bound_us: 50, min_idle_us: 0.5, "
      "long_idle_us: 1500.001}");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->kind, PolicyKind::kPriority);
  EXPECT_EQ(p->options.preemption_bound, Microseconds(50));
  EXPECT_EQ(p->options.min_idle, Nanoseconds(500));
  EXPECT_EQ(p->options.long_idle, Nanoseconds(1'500'001));
  EXPECT_EQ(p->options.slice_launch_gap, PolicyOptions{}.slice_launch_gap);
  EXPECT_EQ(p->options.explicitly_set,
            (std::vector<std::string>{"preemption_bound_us", "min_idle_us",
                                      "long_idle_us"}));
}

// What colod logs is the block, exact, in the parser's order of options;
// read back, it gives the same options.
TEST(PolicyParserTest, DescribePolicyWritesABlockThatReadsBackTheSame) {
  for (const char* block :
       {"{name: priority, preemption_bound_us: 50, min_idle_us: 0.5, "
        "long_idle_us: 1500.001}",
        "{name: priority, harvest_block_us: 0}",
        "{name: tgs, tgs_period_ms: 2.5}",
        "{name: orion, orion_be_cap_us: 0.001}"}) {
    const std::string text = block;
    SCOPED_TRACE(text);
    Result<ParsedPolicy> p = Parse(text);
    ASSERT_TRUE(p.ok()) << p.status().message();
    const std::string described = DescribePolicy(p->kind, p->options);
    EXPECT_EQ(described, text);
    Result<ParsedPolicy> again = Parse(described);
    ASSERT_TRUE(again.ok()) << again.status().message();
    EXPECT_EQ(again->kind, p->kind);
    EXPECT_EQ(again->options.preemption_bound, p->options.preemption_bound);
    EXPECT_EQ(again->options.min_idle, p->options.min_idle);
    EXPECT_EQ(again->options.long_idle, p->options.long_idle);
    EXPECT_EQ(again->options.harvest_block_bound,
              p->options.harvest_block_bound);
    EXPECT_EQ(again->options.orion_be_cap, p->options.orion_be_cap);
    EXPECT_EQ(again->options.tgs_period, p->options.tgs_period);
  }
}

TEST(PolicyParserTest, AnOptionOfAnotherPolicyIsAnErrorAtItsLine) {
  Result<ParsedPolicy> p = Parse("name: orion\npreemption_bound_us: 50\n");
  ASSERT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(p.status().message(),
            "c.yaml:2: policy.preemption_bound_us: policy option "
            "'preemption_bound_us' does not apply to policy 'orion' (its "
            "options: orion_be_cap_us)");
}

}  // namespace
}  // namespace colo::sched
