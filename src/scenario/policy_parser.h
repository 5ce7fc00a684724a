// scenario/policy_parser.h — a scenario's top-level `policy:` key: the
// kernel-level scheduling policy (sched/policy.h) the jobs run under.
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
// Every option read sets its sched::PolicyOptions field and appends its YAML
// name to PolicyOptions::explicitly_set; an option that does not belong to
// the named policy is an error at its own line.
//
// Thread-compatible; never throws.
#pragma once

#include "colo/status.h"
#include "sched/policy.h"
#include "io/yaml_value.h"

namespace colo::scenario {

struct ParsedPolicy {
  sched::PolicyKind kind = sched::PolicyKind::kMps;
  sched::PolicyOptions options;  // passes options.Validate(kind).
};

// Parses `value` (the `policy:` entry). InvalidArgument "file:line: path:
// ..." at the offending line: not a string or mapping, an unknown policy
// name (the message lists the valid ones), an unknown key, a value out of
// range, or an option of another policy (the message names the option, the
// policy and the options it takes).
Result<ParsedPolicy> ParsePolicy(const io::YamlValue& value);

}  // namespace colo::scenario
