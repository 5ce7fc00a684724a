// runtime/daemon_config.h — colod's configuration: where it listens, who may
// connect, which priority class each client gets, the device and policy it
// runs, memory limits, and the kernel profile table.
//
// Priority classes come only from here. A client's Hello may *ask* for a
// class (e.g. `colo run --class high`), but colod grants it only when a rule
// below matches the client's kernel-verified identity (SO_PEERCRED uid, the
// cgroup of its pid) or an operator-issued token; otherwise the client runs
// best-effort and colod logs why.
//
// File format (YAML, every key optional):
//   socket: /run/colo/colod.sock
//   socket_mode: "0600"          # octal; 0600 or 0660 (group: socket_group)
//   socket_group: gpuusers
//   allowed_uids: [1000, 1001]   # besides root and colod's own uid
//   device: sim                  # sim | cuda (CudaGpu gate mode: GPU 0;
//                                # "gpu" is accepted for cuda)
//   gpu: A100                    # SimGpu preset (sim only)
//   policy: priority             # sched/ policy: a name (default options)
//                                # or, as in a scenario, a mapping of the
//                                # name and that policy's options:
//                                #   {name: priority, preemption_bound_us: 50}
//                                # (sched/policy_parser.h)
//   memory_limit_mib: 4096       # per client; 0 = the device's memory
//   grants:
//     - {uid: 1000, class: high}
//     - {user: alice, class: high}
//     - {cgroup: /system.slice/infer.service, class: high}  # or below it
//     - {token: "s3cret", class: high}
//                                # one of uid, user, cgroup, token a grant
//   kernels:                     # profile table, by substring of the name
//     - {name: sgemm, duration_us: 250, sm_throughput: 0.9,
//        dram_throughput: 0.2}
//   kernels_from_ncu: [run.csv]  # Nsight Compute exports (measured_kernels.h);
//                                # relative paths: from the config's folder
//   kernels_ncu_nvtx: train_step # only kernels in this NVTX range
//   model_base_us: 5             # modelled duration of an unknown kernel:
//   model_ns_per_thread: 0.05    #   base + threads x this
//   ring_spin_us: 0              # keep polling rings this long after the last
//                                # launch (no doorbell system calls in bursts;
//                                # costs colod a core while it spins)
//   sync_spin_us: 100            # while a client waits in a sync: wake this
//                                # early for the next event and spin to it;
//                                # poll rings this long after a reply
//   gate_depth: 8                # gate mode: launches of one stream with
//                                # the policy at once (1..64); the policy
//                                # grants best effort ahead within its bound
//   gate_forms: all              # gate mode: the forms colod may grant a
//                                # best-effort kernel in: all | slices |
//                                # persistent | none (whole only)
//   execute: false               # sim mode: clients also run their kernels
//                                # on colo's PTX interpreter, so that they
//                                # compute (slow; for tests and small
//                                # inputs; shim/sim_execute.h)
//   limits: {...}                # what one client may take of colod
//                                # (client_limits.h)
//   mps: managed                 # gate mode: off | external | managed
//                                # (mps_control.h); clients over MPS
//   mps_control: nvidia-cuda-mps-control  # a name on PATH or an absolute
//                                # path
//   mps_pipe_dir: /run/colo/mps  # absolute; default: managed
//                                # <socket>.mps/pipe, external
//                                # /tmp/nvidia-mps (CUDA's)
//   mps_log_dir: /var/log/colo-mps  # managed only; default
//                                # <socket>.mps/log
//   metrics: {listen: 127.0.0.1:9464}  # Prometheus endpoint, off without
//                                # it; or {socket: PATH} (metrics_http.h)
//   jobs: {policy: fair, ...}    # memory lanes and job turns for clients
//                                # that declare memory (lanes_config.h)
//
// Thread safety: value types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "colo/status.h"
#include "colo/time.h"
#include "colo/workload.h"
#include "runtime/client_limits.h"
#include "runtime/lanes_config.h"
#include "runtime/measured_kernels.h"
#include "runtime/metrics_http.h"
#include "runtime/mps_control.h"
#include "sched/policy.h"

namespace colo::runtime {

struct ClassGrant {
  std::optional<uint32_t> uid;  // matches SO_PEERCRED uid.
  std::string cgroup;           // the /proc/<pid>/cgroup path or one above it.
  std::string token;            // matches the token the client presents.
  PriorityClass granted = PriorityClass::kHigh;
};

struct KernelProfileEntry {
  std::string name;              // substring of the kernel's (mangled) name.
  Duration duration{0};          // solo duration on the simulated GPU.
  double sm_throughput = 0.5;    // fraction of SM issue peak, (0, 1].
  double dram_throughput = 0.3;  // fraction of DRAM bandwidth, [0, 1].
};

struct DaemonConfig {
  std::string socket_path =
      "/run/colo/colod.sock";  // Default: /run/colo/colod.sock.
  uint32_t socket_mode =
      0600;  // Default: 0600 (owner only). 0660 with socket_group.
  std::string socket_group;  // group owning the socket. Default: colod's group.
  std::vector<uint32_t>
      allowed_uids;  // may connect besides root and colod's uid. Default: none.
  std::string device = "sim";       // "sim" or "cuda". Default: sim.
  std::string gpu = "A100";         // SimGpu preset name. Default: A100.
  std::string policy = "priority";  // sched policy name. Default: priority.
  // The policy's options, as the config's `policy:` block gave them (its
  // explicitly_set names them). Default: the policy's defaults.
  sched::PolicyOptions policy_options;
  int64_t memory_limit_bytes =
      0;  // per client; 0 = the device's memory. Default: 0.
  std::vector<ClassGrant> grants;
  std::vector<KernelProfileEntry> kernels;
  // Nsight Compute exports, as resolved (relative to the config's folder);
  // LoadDaemonConfig reads them into `measured`. The `kernels:` table is
  // consulted first.
  std::vector<std::string> kernels_from_ncu;
  std::string kernels_ncu_nvtx;  // NVTX range filter for them ("" = all).
  MeasuredKernelTable measured;
  Duration model_base =
      Microseconds(5);  // unknown kernel: fixed part. Default: 5 us.
  double model_ns_per_thread =
      0.05;  // unknown kernel: per thread. Default: 0.05 ns.
  // Poll the rings this long after the last entry arrived. Default: 0
  // (sleep at once; producers ring the doorbell).
  Duration ring_spin{0};
  // While a client waits in a synchronizing call, wake this long before the
  // next simulated event and spin to it (so the reply is not late by the
  // machine's wake-up latency), and poll the rings this long after a reply
  // (the client's next launches follow at once). Costs colod a core for at
  // most this long per event a client waits on. 0 turns it off.
  // Default: 100 us.
  Duration sync_spin = Microseconds(100);
  // Gate mode (device: cuda): how many launches of one stream colod hands
  // the policy before the first of them has ended. The real stream runs
  // what is granted in order, back to back, so the program does not wait a
  // grant round trip between its kernels; the policy sees them all in
  // flight until they end. The priority policy grants a high-priority
  // stream's at once, and a best-effort stream's ahead only as far as its
  // preemption bound holds (sched/priority_policy.h, "Work ahead"). 1: one
  // at a time for every client. Default: 8.
  size_t gate_depth = 8;
  static constexpr int64_t kMaxGateDepth = 64;
  // Gate mode: which of the forms a client builds from its kernels' PTX
  // (ptx/kernel_forms.h) colod may grant launches in, as the policy
  // chooses: sliced and persistent ("all"), one of them, or neither
  // ("none": every kernel runs whole). Default: all.
  bool gate_slices = true;
  bool gate_persistent = true;
  // Sim mode: clients run each kernel on colo's PTX interpreter too, so
  // that device memory holds what the kernels compute (WelcomeMsg's
  // execute_kernels). Default: false (kernels take simulated time only).
  bool execute = false;
  ClientLimits limits;  // Default: ClientLimits's.
  // Gate mode: the clients' MPS control daemon (mps_control.h). Default:
  // off; the directories "" (their defaults, from the socket path).
  MpsSettings mps;
  // The Prometheus endpoint (metrics_http.h). Default: off.
  MetricsSettings metrics;
  // Memory lanes and job turns (`jobs:`). Default: off (no section).
  LanesConfig lanes;
  std::string source = "<defaults>";  // file name, for messages.

  // InvalidArgument if a value is out of range (mode with bits for others,
  // unknown policy or GPU, policy options out of range or of another
  // policy, negative limits or durations, MPS outside gate mode or with
  // relative directories).
  Status Validate() const;
};

// Reads and validates a config file, and the Nsight Compute exports it names.
// NotFound if it cannot be read; InvalidArgument "file:line: key: expected
// ..., got ..." on bad content: an unknown or repeated key, a value of the
// wrong type or out of range (spins at most 10000 us, memory_limit_mib at
// most 2^30), a null where a value is needed, a second YAML document, a
// `policy:` block a scenario would refuse (sched::ParsePolicy's errors, word
// for word); for a directory or another non-regular file; an export's own
// error, with its file and line, follows the key.
Result<DaemonConfig> LoadDaemonConfig(const std::string& path);

}  // namespace colo::runtime
