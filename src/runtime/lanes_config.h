// runtime/lanes_config.h — colod's `jobs:` section: memory lanes and the
// job policy that takes turns among live clients (after Salus), and the
// memory declared for clients that do not declare their own.
//
//   jobs:
//     policy: fair            # fifo | pack | fair | srtf | colo
//     max_lanes: 2            # pack, colo (policies with lanes); 0: no limit
//     reserve_mib: 300        # kept back from admission. Default: 300
//     persistent_pad: 0.10    # P counted as P x (1 + pad). Default: 0.10
//     declare:                # P and E for clients that declare none
//       - {program: train, persistent: 2GiB, ephemeral: 512MiB,
//          iterations: 5000}
//       - {uid: 1000, persistent: 1GiB, ephemeral: 1GiB}
//
// A client declares P and E in its hello (`colo run --memory-persistent
// --memory-ephemeral`), and its iterations (`colo run --iterations N`);
// one that declares no memory gets the first `declare` rule matching its
// program name (argv[0]'s basename) and uid, if any, and otherwise runs
// outside the lanes (as without a `jobs:` section). Its iterations are its
// own declaration, else the rule's, else none (srtf and colo then take it
// as endless: it goes after every client that declared some).
//
// srtf and colo order by remaining time, which colod measures (live_lanes.h);
// colo's speed model sees every live client as busy the whole time
// (busy_fraction 1), so it runs side by side only what its model predicts
// to gain from that. pack-unsafe (which exists to show out-of-memory) and
// mps (no lane policy) are simulation policies, refused here.
//
// Thread safety: value types and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "colo/status.h"
#include "io/yaml_value.h"
#include "jobs/job_policy.h"
#include "jobs/memory_lanes.h"

namespace colo::runtime {

// The memory a `declare:` rule gives the clients it matches.
struct DeclaredMemoryRule {
  std::string program;          // argv[0]'s basename; "" matches any.
  std::optional<uint32_t> uid;  // SO_PEERCRED uid; none matches any.
  jobs::JobMemory memory;       // P and E, bytes.
  int64_t iterations = 0;       // declared iterations; 0: none.
  std::string where;            // "file:line", for the log.
};

struct LanesConfig {
  // A `jobs:` section was given: colod admits declaring clients to lanes.
  // Default: false.
  bool enabled = false;
  // fifo, pack, fair, srtf or colo. Default: fifo.
  jobs::JobPolicyKind policy = jobs::JobPolicyKind::kFifo;
  // capacity_bytes is the GPU's (set by colod); max_lanes (pack, colo),
  // reserve_bytes and persistent_pad from the section. Default:
  // LaneOptions's.
  jobs::LaneOptions lanes;
  std::vector<DeclaredMemoryRule> declare;

  // The first rule that matches, or nullopt.
  std::optional<DeclaredMemoryRule> DeclaredFor(const std::string& program,
                                                uint32_t uid) const;
};

// Whether colod runs `kind` live (fifo, pack, fair, srtf, colo).
bool LivePolicy(jobs::JobPolicyKind kind);

// Reads the `jobs:` section into `out` (enabled = true). InvalidArgument
// "file:line: jobs.<key>: ..." for an unknown key, a policy colod does not
// run live (with what it would need), a lane option (max_lanes) with a
// policy that has no lanes, a size that is not one ("2GiB"), a rule without
// a program or uid, or values out of range (iterations: >= 1).
Status ParseLanesConfig(const io::YamlValue& v, LanesConfig* out);

}  // namespace colo::runtime
