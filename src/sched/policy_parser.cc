#include "sched/policy_parser.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace colo::sched {
namespace {

constexpr const char* kExpected =
    "a policy name or a mapping {name, <options of that policy>}";

// One option key: its YAML name, the field it sets, the unit of the number,
// whether 0 is allowed, and for a period the policy wakes up at whether or
// not there is work, its smallest value and why (a period of 1 ns would make
// a run take hours).
struct OptionKey {
  const char* name;
  Duration PolicyOptions::*field;
  Duration unit;
  bool zero_ok;
  Duration min{0};
  const char* min_why = nullptr;
};

const OptionKey kOptionKeys[] = {
    {"preemption_bound_us", &PolicyOptions::preemption_bound, Microseconds(1),
     false},
    {"min_idle_us", &PolicyOptions::min_idle, Microseconds(1), true},
    {"long_idle_us", &PolicyOptions::long_idle, Microseconds(1), true},
    {"slice_launch_gap_us", &PolicyOptions::slice_launch_gap, Microseconds(1),
     true},
    {"harvest_block_us", &PolicyOptions::harvest_block_bound, Microseconds(1),
     true},
    {"orion_be_cap_us", &PolicyOptions::orion_be_cap, Microseconds(1), false},
    {"tgs_period_ms", &PolicyOptions::tgs_period, Milliseconds(1), false,
     PolicyOptions::kMinTgsPeriod,
     "a controller period below 1 ms observes too few kernels, and the run "
     "would mostly run the controller"},
};

std::string ValidNames() {
  std::vector<std::string> names;
  for (PolicyKind k : AllPolicies()) {
    names.push_back(PolicyName(k));
  }
  return io::JoinComma(names);
}

Result<PolicyKind> ParseName(const io::YamlValue& value) {
  COLO_ASSIGN_OR_RETURN(std::string name,
                        value.String("a policy name (" + ValidNames() + ")"));
  for (PolicyKind k : AllPolicies()) {
    if (name == PolicyName(k)) return k;
  }
  return value.Error("unknown policy '" + name + "'; expected one of " +
                     ValidNames());
}

// Reads one option's number into `options` (in its unit, rounded to ns).
Status ParseOption(const OptionKey& key, const io::YamlValue& value,
                   PolicyOptions* options) {
  const io::YamlValue::TimeUnit unit =
      key.unit == Microseconds(1) ? io::YamlValue::TimeUnit::kMicroseconds
                                  : io::YamlValue::TimeUnit::kMilliseconds;
  if (key.min > Duration(0)) {
    COLO_ASSIGN_OR_RETURN(options->*key.field,
                          value.TimeAtLeast(unit, key.min, key.min_why));
  } else {
    COLO_ASSIGN_OR_RETURN(options->*key.field, value.Time(unit, key.zero_ok));
  }
  options->explicitly_set.push_back(key.name);
  return OkStatus();
}

// `d` (>= 0) in `unit` (a power of ten of nanoseconds) as a decimal
// number, exactly: "50", "0.5", "1.001".
std::string InUnit(Duration d, Duration unit) {
  const std::string whole = std::to_string(d / unit);
  const int64_t rest = (d % unit).count();
  if (rest == 0) return whole;
  std::string digits = std::to_string(rest);
  const size_t width = std::to_string(unit.count()).size() - 1;
  digits.insert(0, width - digits.size(), '0');
  while (digits.back() == '0') digits.pop_back();
  return whole + "." + digits;
}

}  // namespace

std::string DescribePolicy(PolicyKind kind, const PolicyOptions& options) {
  std::string out;
  for (const OptionKey& key : kOptionKeys) {
    const auto& set = options.explicitly_set;
    if (std::find(set.begin(), set.end(), key.name) == set.end()) continue;
    out += std::string(", ") + key.name + ": " +
           InUnit(options.*key.field, key.unit);
  }
  if (out.empty()) return PolicyName(kind);
  return std::string("{name: ") + PolicyName(kind) + out + "}";
}

Result<ParsedPolicy> ParsePolicy(const io::YamlValue& value) {
  ParsedPolicy out;
  if (!value.node().IsMap()) {
    if (!value.node().IsScalar()) return value.Expected(kExpected);
    COLO_ASSIGN_OR_RETURN(out.kind, ParseName(value));
    return out;
  }
  std::vector<std::string> allowed = {"name"};
  for (const OptionKey& key : kOptionKeys) allowed.push_back(key.name);
  COLO_ASSIGN_OR_RETURN(io::YamlMap map, value.Map(kExpected, allowed));
  COLO_ASSIGN_OR_RETURN(io::YamlValue name,
                        map.Require("name", "the policy's name"));
  COLO_ASSIGN_OR_RETURN(out.kind, ParseName(name));
  const std::vector<std::string> valid = PolicyOptionNames(out.kind);
  for (const OptionKey& key : kOptionKeys) {
    std::optional<io::YamlValue> v = map.Get(key.name);
    if (!v) continue;
    if (std::find(valid.begin(), valid.end(), key.name) == valid.end()) {
      // PolicyOptions::Validate words the message (option, policy, the
      // options it takes); the option's line is added here.
      PolicyOptions alone;
      alone.explicitly_set = {key.name};
      return v->Error(alone.Validate(out.kind).message());
    }
    COLO_RETURN_IF_ERROR(ParseOption(key, *v, &out.options));
  }
  // Relations between options (long_idle_us >= min_idle_us).
  if (Status s = out.options.Validate(out.kind); !s.ok()) {
    return value.Error(s.message());
  }
  return out;
}

}  // namespace colo::sched
