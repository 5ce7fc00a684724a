// sched/policy_parser.h — the `policy:` block of a scenario (`colo sim`) and
// of colod's config, one format for both, so that a policy tuned in
// simulation is deployed as written: the kernel-level scheduling policy
// (policy.h) and its options.
//
//   policy: priority                      # a name alone: default options
//   policy:                               # or a mapping with the options
//     name: priority                      # mps | time-slice | priority-streams
//                                         # | priority | orion | tgs
//     preemption_bound_us: 100            # priority: > 0
//     min_idle_us: 20                     # priority: >= 0
//     long_idle_us: 5000                  # priority: >= min_idle_us
//     slice_launch_gap_us: 10             # priority: >= 0
//     harvest_block_us: 0                 # priority: >= 0 (0: off)
//     orion_be_cap_us: 250                # orion: > 0
//     tgs_period_ms: 10                   # tgs: >= 1
//
// Every option read sets its PolicyOptions field and appends its YAML name
// to PolicyOptions::explicitly_set; an option that does not belong to the
// named policy is an error at its own line.
//
// Thread-compatible; never throws.
#pragma once

#include <string>

#include "colo/status.h"
#include "io/yaml_value.h"
#include "sched/policy.h"

namespace colo::sched {

struct ParsedPolicy {
  PolicyKind kind = PolicyKind::kMps;
  PolicyOptions options;  // passes options.Validate(kind).
};

// Parses `value` (the `policy:` entry). InvalidArgument "file:line: path:
// ..." at the offending line: not a string or mapping, an unknown policy
// name (the message lists the valid ones), an unknown key, a value out of
// range, or an option of another policy (the message names the option, the
// policy and the options it takes).
Result<ParsedPolicy> ParsePolicy(const io::YamlValue& value);

// The policy as the block would write it, for logs: the name alone when no
// option was set explicitly, else a flow mapping of the name and each option
// in options.explicitly_set, in the units above, exact
// ("{name: priority, preemption_bound_us: 50, min_idle_us: 0.5}"), which
// ParsePolicy reads back to the same options.
std::string DescribePolicy(PolicyKind kind, const PolicyOptions& options);

}  // namespace colo::sched
