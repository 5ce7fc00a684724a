// runtime/measured_kernels.h — kernel durations measured by Nsight Compute,
// for colod's simulated GPU (config `kernels_from_ncu:`).
//
// An ncu export (`ncu --csv --page details|raw`, read by profile/ncu_csv.h)
// lists each profiled launch with its name, grid, block, duration and SM /
// DRAM throughput. The table groups launches by (kernel, grid, block): the
// median duration and the mean throughputs of each shape.
//
// Names. ncu writes a kernel's name as its function ("ampere_sgemm_128x64_tn",
// "at::native::vectorized_elementwise_kernel"), demangled with templates and
// parameters ("void at::native::vectorized_elementwise_kernel<4, ...>(int,
// ...)") or mangled ("_Z...", --print-kernel-base mangled). colod knows a
// launched kernel by its mangled device name. The key of an exported name is
// its function identifier (after the last "::", before any "<" or "("); a
// mangled export is its own key. A launched name matches a key when it equals
// it, or, for a mangled launched name, contains it as a mangled identifier
// (its length then the identifier: "29vectorized_elementwise_kernel"). Of
// several matching keys the longest wins.
//
// Shapes. A launch with a measured shape takes that shape's figures; another
// shape of the same kernel takes those of the measured shape with the
// nearest thread count, the duration scaled by the ratio of threads (a
// kernel's work usually grows with its grid; a tiny grid may then be
// predicted too short or a huge one too long).
//
// Durations are used as measured: export from the GPU model colod simulates.
// Thread safety: const methods are safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "colo/kernel.h"
#include "colo/status.h"
#include "colo/time.h"

namespace colo::runtime {

// A modelled kernel time of `ns` nanoseconds, rounded, within [1 ns, 10^6 s]
// (io::kMaxTime): a scaled or per-thread model of CUDA's largest grid
// would overflow int64 nanoseconds.
Duration ClampedKernelTime(double ns);

// The key of a kernel name as ncu exports it (see above).
std::string NcuKernelKey(std::string_view exported_name);

// The identifiers of a mangled name: each "<length><identifier>" piece whose
// length is not the tail of a longer number ("_ZN2at6native4addE" -> "at",
// "native", "add"; digits inside identifiers give extra pieces, harmless).
std::vector<std::string_view> MangledIdentifiers(std::string_view mangled);

// Whether a launched kernel name matches a key (see above).
bool LaunchedNameMatches(std::string_view launched, std::string_view key);

struct MeasuredShape {
  std::string key;
  Dim3 grid;
  Dim3 block;
  int launches = 0;                 // profiled launches of this shape.
  Duration duration{0};             // median.
  double sm_throughput = 0;         // fraction of peak, mean.
  double dram_throughput = 0;       // fraction of peak, mean.
  int registers_per_thread = 0;     // as ncu reports it (first launch).
  int64_t static_shared_bytes = 0;  // per block (first launch).
};

struct MeasuredEstimate {
  Duration duration{0};
  double sm_throughput = 0.5;
  double dram_throughput = 0.3;
  int registers_per_thread = 0;     // 0: not reported.
  int64_t static_shared_bytes = 0;  // per block.
  bool exact_shape = false;         // the launch's own shape was measured.
};

class MeasuredKernelTable {
 public:
  // Reads one export; only kernels inside `nvtx_range` if it is not empty.
  // Errors from the reader (file:line, kernel, metric) pass through.
  Status AddNcuExport(const std::string& path, const std::string& nvtx_range);

  // The estimate for a launch, or nullopt if no measured kernel matches.
  std::optional<MeasuredEstimate> Lookup(std::string_view launched_name,
                                         Dim3 grid, Dim3 block) const;

  const std::vector<MeasuredShape>& shapes() const { return shapes_; }
  bool empty() const { return shapes_.empty(); }
  // Launches left out because no function name could be taken from their
  // exported name (nothing to match launches by).
  int unnamed_launches() const { return unnamed_; }

 private:
  std::vector<MeasuredShape> shapes_;  // sorted by key, then shape.
  std::unordered_map<std::string, std::vector<size_t>> by_key_;  // -> shapes_
  int unnamed_ = 0;
};

}  // namespace colo::runtime
