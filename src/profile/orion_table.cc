#include "profile/orion_table.h"

#include <filesystem>
#include <string_view>
#include <utility>
#include <vector>

#include "colo/gpu_spec.h"
#include "colo/kernel.h"
#include "io/csv.h"

namespace colo::profile {
namespace {

constexpr const char* kColumns[] = {"Name", "Profile", "Memory_footprint",
                                    "SM_usage", "Duration"};

Status CheckClass(const char* field, const OrionClassThroughput& t) {
  if (!(t.sm > 0 && t.sm <= 1)) {
    return InvalidArgumentError(std::string("OrionImportOptions.") + field +
                                ".sm must be in (0, 1], got " +
                                std::to_string(t.sm));
  }
  if (!(t.dram >= 0 && t.dram <= 1)) {
    return InvalidArgumentError(std::string("OrionImportOptions.") + field +
                                ".dram must be in [0, 1], got " +
                                std::to_string(t.dram));
  }
  return OkStatus();
}

// The reconstructed launch shape without grid and profile: what decides the
// blocks per SM.
KernelDesc ShapeOf(const OrionImportOptions& options) {
  KernelDesc k;
  k.name = "orion-shape";
  k.block = {options.threads_per_block, 1, 1};
  k.registers_per_thread = options.registers_per_thread;
  k.shared_mem_per_block = 0;
  return k;
}

// The 1-based line of the header: the first line that is not blank, as
// ParseCsv skips blank lines. (CsvTable does not record it.)
int HeaderLine(std::string_view text) {
  int line = 1;
  for (char c : text) {
    if (c == '\n') {
      ++line;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      return line;
    }
  }
  return line;
}

bool IsBlank(std::string_view text) {
  for (char c : text) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  }
  return true;
}

}  // namespace

Status OrionImportOptions::Validate() const {
  if (threads_per_block < 1) {
    return InvalidArgumentError(
        "OrionImportOptions.threads_per_block must be >= 1, got " +
        std::to_string(threads_per_block));
  }
  if (registers_per_thread < 1) {
    return InvalidArgumentError(
        "OrionImportOptions.registers_per_thread must be >= 1, got " +
        std::to_string(registers_per_thread));
  }
  COLO_RETURN_IF_ERROR(CheckClass("compute_bound", compute_bound));
  COLO_RETURN_IF_ERROR(CheckClass("memory_bound", memory_bound));
  COLO_RETURN_IF_ERROR(CheckClass("unclassified", unclassified));
  COLO_ASSIGN_OR_RETURN(GpuSpec v100, GpuPreset(kOrionProfiledOn));
  Result<Occupancy> occ = ComputeOccupancy(v100, ShapeOf(*this));
  if (!occ.ok()) {
    return InvalidArgumentError(
        "OrionImportOptions: threads_per_block " +
        std::to_string(threads_per_block) + " with registers_per_thread " +
        std::to_string(registers_per_thread) +
        " does not fit on a V100 SM: " + occ.status().message());
  }
  return OkStatus();
}

Result<Workload> LoadOrionKernelTable(const std::string& path,
                                      const OrionImportOptions& options) {
  COLO_RETURN_IF_ERROR(options.Validate());
  COLO_ASSIGN_OR_RETURN(GpuSpec v100, GpuPreset(kOrionProfiledOn));
  COLO_ASSIGN_OR_RETURN(Occupancy occ,
                        ComputeOccupancy(v100, ShapeOf(options)));
  const int64_t blocks_per_sm = occ.blocks_per_sm;

  COLO_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(path));
  std::string expected_header;
  for (const char* c : kColumns) {
    expected_header += (expected_header.empty() ? "" : ",") + std::string(c);
  }
  if (IsBlank(text)) {
    return InvalidArgumentError(path + ":1: empty file, expected the header '" +
                                expected_header + "'");
  }
  COLO_ASSIGN_OR_RETURN(io::CsvTable table, io::ParseCsv(text, path));
  const int header_line = HeaderLine(text);

  // Column indices in kColumns order; the file may order them differently.
  int col[5];
  for (int i = 0; i < 5; ++i) {
    col[i] = -1;
    for (size_t h = 0; h < table.header.size(); ++h) {
      if (table.header[h] == kColumns[i]) col[i] = static_cast<int>(h);
    }
    if (col[i] < 0) {
      std::string have;
      for (const auto& h : table.header) have += (have.empty() ? "" : ", ") + h;
      return InvalidArgumentError(path + ":" + std::to_string(header_line) +
                                  ": missing column '" + kColumns[i] +
                                  "' (have: " + have + "; expected '" +
                                  expected_header + "')");
    }
  }
  if (table.rows.empty()) {
    return InvalidArgumentError(path + ":" + std::to_string(header_line + 1) +
                                ": no kernel rows after the header");
  }

  Workload w;
  w.name = std::filesystem::path(path).filename().string();
  if (options.kind) {
    w.kind = *options.kind;
  } else {
    w.kind = w.name.find("_fb") != std::string::npos ? WorkloadKind::kTraining
                                                     : WorkloadKind::kInference;
  }
  w.profiled_on = v100.name;
  w.kernels.reserve(table.rows.size());

  for (const io::CsvRow& row :
       table.rows) {  // as wide as the header (ParseCsv)
    auto bad = [&](int c, const std::string& what) {
      return InvalidArgumentError(table.Where(row) + ": column '" +
                                  kColumns[c] + "': " + what);
    };
    COLO_ASSIGN_OR_RETURN(std::string_view name, table.Cell(row, col[0]));
    COLO_ASSIGN_OR_RETURN(int64_t profile_class, table.Integer(row, col[1]));
    COLO_ASSIGN_OR_RETURN(int64_t footprint, table.Integer(row, col[2]));
    COLO_ASSIGN_OR_RETURN(int64_t sm_usage, table.Integer(row, col[3]));
    COLO_ASSIGN_OR_RETURN(int64_t duration_ns, table.Integer(row, col[4]));
    if (name.empty()) return bad(0, "empty kernel name");
    if (profile_class < -1 || profile_class > 1) {
      return bad(1,
                 "expected -1, 0 or 1, got " + std::to_string(profile_class));
    }
    if (footprint < 0) {
      return bad(2, "must be >= 0, got " + std::to_string(footprint));
    }
    if (sm_usage < 1) {
      return bad(3, "SMs needed must be >= 1, got " + std::to_string(sm_usage));
    }
    if (duration_ns <= 0) {
      return bad(4,
                 "duration must be > 0 ns, got " + std::to_string(duration_ns));
    }

    KernelDesc k = ShapeOf(options);
    k.name = std::string(name);
    // ceil(grid / b) == SM_usage exactly when grid is a multiple of b.
    k.grid = {sm_usage * blocks_per_sm, 1, 1};
    k.solo_duration = Nanoseconds(duration_ns);
    const OrionClassThroughput& t = profile_class == 1   ? options.compute_bound
                                    : profile_class == 0 ? options.memory_bound
                                                         : options.unclassified;
    k.sm_throughput = t.sm;
    k.dram_throughput = t.dram;
    COLO_RETURN_IF_ERROR(k.Validate().WithContext(table.Where(row)));
    w.kernels.push_back(std::move(k));
  }
  return w;
}

}  // namespace colo::profile
