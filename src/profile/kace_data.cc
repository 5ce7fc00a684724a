#include "profile/kace_data.h"

#include <algorithm>
#include <set>

#include "io/csv.h"

namespace colo::profile {
namespace {

Result<std::string> Name(const io::CsvTable& t, const io::CsvRow& r, int col) {
  COLO_ASSIGN_OR_RETURN(std::string_view cell, t.Cell(r, col));
  std::string name = io::TrimmedCopy(cell);
  if (name.empty())
    return InvalidArgumentError(t.Where(r) + ": empty workload name");
  return name;
}

}  // namespace

Result<std::vector<std::pair<std::string, KernelSummary>>> ReadKaceKernelTable(
    const std::string& path) {
  COLO_ASSIGN_OR_RETURN(io::CsvTable t, io::ReadCsvFile(path));
  COLO_ASSIGN_OR_RETURN(int c_type, t.Column("Type"));
  COLO_ASSIGN_OR_RETURN(int c_threads, t.Column("Threads"));
  COLO_ASSIGN_OR_RETURN(int c_sm, t.Column("Compute (SM) Throughput"));
  COLO_ASSIGN_OR_RETURN(int c_dram, t.Column("DRAM Throughput"));
  COLO_ASSIGN_OR_RETURN(int c_mem, t.Column("Memory Throughput"));
  COLO_ASSIGN_OR_RETURN(int c_regs, t.Column("Registers"));
  COLO_ASSIGN_OR_RETURN(int c_smem, t.Column("Static Shared Memory"));
  std::vector<std::pair<std::string, KernelSummary>> out;
  std::set<std::string> seen;
  for (const io::CsvRow& r : t.rows) {
    COLO_ASSIGN_OR_RETURN(std::string name, Name(t, r, c_type));
    if (!seen.insert(name).second) {
      return InvalidArgumentError(t.Where(r) + ": workload '" + name +
                                  "' appears twice");
    }
    KernelSummary k;
    COLO_ASSIGN_OR_RETURN(k.threads, t.Number(r, c_threads));
    COLO_ASSIGN_OR_RETURN(k.sm_throughput_pct, t.Number(r, c_sm));
    COLO_ASSIGN_OR_RETURN(k.dram_throughput_pct, t.Number(r, c_dram));
    COLO_ASSIGN_OR_RETURN(k.memory_throughput_pct, t.Number(r, c_mem));
    COLO_ASSIGN_OR_RETURN(k.registers, t.Number(r, c_regs));
    COLO_ASSIGN_OR_RETURN(k.static_shared_memory, t.Number(r, c_smem));
    // Checked here so that a bad value is reported at its own row, not at
    // the baseline row the summary is later merged into.
    WorkloadProfile check;
    check.name = name;
    check.kernels = k;
    Status s = check.Validate();
    if (!s.ok()) return s.WithContext(t.Where(r));
    out.emplace_back(std::move(name), k);
  }
  return out;
}

Result<std::vector<KaceBaseline>> ReadKaceBaselineLabels(
    const std::string& path) {
  COLO_ASSIGN_OR_RETURN(io::CsvTable t, io::ReadCsvFile(path));
  COLO_ASSIGN_OR_RETURN(int c_type, t.Column("Type"));
  COLO_ASSIGN_OR_RETURN(int c_solo, t.Column("Exclusive100"));
  COLO_ASSIGN_OR_RETURN(int c_sm, t.Column("sm%"));
  COLO_ASSIGN_OR_RETURN(int c_mem, t.Column("mem%"));
  COLO_ASSIGN_OR_RETURN(int c_cap, t.Column("memcap"));
  std::vector<KaceBaseline> out;
  std::set<std::string> seen;
  for (const io::CsvRow& r : t.rows) {
    KaceBaseline b;
    b.line = r.line;
    COLO_ASSIGN_OR_RETURN(b.name, Name(t, r, c_type));
    if (!seen.insert(b.name).second) {
      return InvalidArgumentError(t.Where(r) + ": workload '" + b.name +
                                  "' appears twice");
    }
    COLO_ASSIGN_OR_RETURN(b.solo_throughput, t.Number(r, c_solo));
    COLO_ASSIGN_OR_RETURN(b.sm_util_pct, t.Number(r, c_sm));
    COLO_ASSIGN_OR_RETURN(b.mem_util_pct, t.Number(r, c_mem));
    COLO_ASSIGN_OR_RETURN(b.memory_used_gib, t.Number(r, c_cap));
    if (!(b.solo_throughput > 0)) {
      return InvalidArgumentError(
          t.Where(r) +
          ": column 'Exclusive100': expected a positive throughput");
    }
    out.push_back(std::move(b));
  }
  return out;
}

Result<std::map<std::string, std::vector<MpsPoint>>> ReadKaceMpsScaling(
    const std::string& path) {
  // The artifact's sweeps stop early for some workloads: short rows are
  // real, and read as the points they hold.
  io::CsvOptions ragged;
  ragged.rows_as_wide_as_header = false;
  COLO_ASSIGN_OR_RETURN(io::CsvTable t, io::ReadCsvFile(path, ragged));
  if (t.header.size() < 2) {
    return InvalidArgumentError(path +
                                ": expected columns workload,10,20,...,100");
  }
  std::vector<double> pcts;
  for (size_t i = 1; i < t.header.size(); ++i) {
    double p = 0;
    if (!io::ParseFiniteDouble(t.header[i], &p) || p <= 0 || p > 100 ||
        (!pcts.empty() && p <= pcts.back())) {
      return InvalidArgumentError(
          path + ": header column " + std::to_string(i + 1) + " '" +
          t.header[i] + "': expected an ascending MPS percentage in (0, 100]");
    }
    pcts.push_back(p);
  }
  if (pcts.back() != 100)
    return InvalidArgumentError(path + ": the last column must be 100 (%)");
  std::map<std::string, std::vector<MpsPoint>> out;
  for (const io::CsvRow& r : t.rows) {
    COLO_ASSIGN_OR_RETURN(std::string name, Name(t, r, 0));
    if (r.cells.size() > t.header.size()) {
      return InvalidArgumentError(
          t.Where(r) + ": " + std::to_string(r.cells.size()) +
          " fields, more than the header's " + std::to_string(t.header.size()));
    }
    std::vector<int> filled;
    for (size_t i = 1; i < r.cells.size() && i <= pcts.size(); ++i) {
      if (!io::TrimmedCopy(r.cells[i]).empty())
        filled.push_back(static_cast<int>(i));
    }
    std::vector<MpsPoint> points;
    if (filled.size() == 1) {
      // Ragged row: its single value is the 100 % throughput (README, section
      // 4).
      COLO_ASSIGN_OR_RETURN(double v, t.Number(r, filled[0]));
      points.push_back({100.0, v});
    } else if (filled.size() == pcts.size()) {
      for (size_t i = 0; i < pcts.size(); ++i) {
        COLO_ASSIGN_OR_RETURN(double v, t.Number(r, static_cast<int>(i + 1)));
        points.push_back({pcts[i], v});
      }
    } else {
      return InvalidArgumentError(
          t.Where(r) + ": workload '" + name + "': expected " +
          std::to_string(pcts.size()) + " throughputs or a single one, found " +
          std::to_string(filled.size()) + " non-empty cells");
    }
    for (const MpsPoint& p : points) {
      if (!(p.throughput > 0)) {
        return InvalidArgumentError(t.Where(r) + ": workload '" + name +
                                    "': throughput must be > 0");
      }
    }
    if (!out.emplace(name, std::move(points)).second) {
      return InvalidArgumentError(t.Where(r) + ": workload '" + name +
                                  "' appears twice");
    }
  }
  return out;
}

Result<std::vector<WorkloadProfile>> LoadKaceProfiles(const std::string& dir) {
  COLO_ASSIGN_OR_RETURN(auto baselines,
                        ReadKaceBaselineLabels(dir + "/baseline_labels.csv"));
  COLO_ASSIGN_OR_RETURN(
      auto kernels, ReadKaceKernelTable(dir + "/workload_kernel_features.csv"));
  COLO_ASSIGN_OR_RETURN(auto curves,
                        ReadKaceMpsScaling(dir + "/baseline_steps_stage2.csv"));
  std::map<std::string, KernelSummary> by_name(kernels.begin(), kernels.end());
  std::vector<WorkloadProfile> out;
  for (const KaceBaseline& b : baselines) {
    WorkloadProfile p;
    p.name = b.name;
    p.gpu = kKaceGpu;
    p.solo_throughput = b.solo_throughput;
    p.system.sm_util_pct = b.sm_util_pct;
    p.system.mem_util_pct = b.mem_util_pct;
    p.system.memory_used_gib = b.memory_used_gib;
    if (auto it = by_name.find(b.name); it != by_name.end())
      p.kernels = it->second;
    if (auto it = curves.find(b.name); it != curves.end())
      p.mps_scaling = it->second;
    Status s = p.Validate();
    if (!s.ok())
      return s.WithContext(dir +
                           "/baseline_labels.csv:" + std::to_string(b.line));
    out.push_back(std::move(p));
  }
  // Workloads with a kernel table but no baseline row (vit-base batch 32).
  for (const auto& [name, k] : kernels) {
    bool seen = false;
    for (const KaceBaseline& b : baselines) seen = seen || b.name == name;
    if (seen) continue;
    WorkloadProfile p;
    p.name = name;
    p.gpu = kKaceGpu;
    p.kernels = k;
    if (auto it = curves.find(name); it != curves.end())
      p.mps_scaling = it->second;
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(),
            [](const WorkloadProfile& a, const WorkloadProfile& b) {
              return a.name < b.name;
            });
  return out;
}

}  // namespace colo::profile
