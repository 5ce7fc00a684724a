#include "runtime/measured_kernels.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <tuple>

#include "io/yaml_value.h"
#include "profile/ncu_csv.h"

namespace colo::runtime {

Duration ClampedKernelTime(double ns) {
  if (!(ns >= 1)) return Nanoseconds(1);  // NaN too.
  return Nanoseconds(
      std::llround(std::min(ns, static_cast<double>(io::kMaxTime.count()))));
}
namespace {

bool SameDim(Dim3 a, Dim3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

double Threads(Dim3 grid, Dim3 block) {
  return static_cast<double>(grid.Count()) * static_cast<double>(block.Count());
}

}  // namespace

std::string NcuKernelKey(std::string_view name) {
  while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
  if (name.substr(0, 2) == "_Z") return std::string(name);
  if (name.substr(0, 5) == "void ") name.remove_prefix(5);
  // "(anonymous namespace)::" is a scope, not the parameter list.
  std::string scoped(name);
  for (size_t at;
       (at = scoped.find("(anonymous namespace)::")) != std::string::npos;) {
    scoped.erase(at, 23);
  }
  name = scoped;
  // Cut at the first '<' or '(' (templates, parameters), then keep what
  // follows the last "::" of what is left.
  name = name.substr(0, std::min(name.find('<'), name.find('(')));
  if (size_t c = name.rfind("::"); c != std::string_view::npos)
    name.remove_prefix(c + 2);
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  return std::string(name);
}

std::vector<std::string_view> MangledIdentifiers(std::string_view mangled) {
  std::vector<std::string_view> out;
  auto digit = [&](size_t i) {
    return std::isdigit(static_cast<unsigned char>(mangled[i])) != 0;
  };
  for (size_t i = 0; i < mangled.size(); ++i) {
    if (!digit(i) || (i > 0 && digit(i - 1))) continue;  // a length starts
    size_t n = 0, j = i;
    while (j < mangled.size() && digit(j) && n <= mangled.size()) {
      n = n * 10 + static_cast<size_t>(mangled[j] - '0');
      ++j;
    }
    if (n > 0 && j + n <= mangled.size()) out.push_back(mangled.substr(j, n));
  }
  return out;
}

bool LaunchedNameMatches(std::string_view launched, std::string_view key) {
  if (key.empty()) return false;
  if (launched == key) return true;
  if (launched.substr(0, 2) != "_Z" || key.substr(0, 2) == "_Z") return false;
  for (std::string_view id : MangledIdentifiers(launched)) {
    if (id == key) return true;
  }
  return false;
}

Status MeasuredKernelTable::AddNcuExport(const std::string& path,
                                         const std::string& nvtx_range) {
  profile::NcuImportOptions o;
  o.nvtx_range = nvtx_range;
  COLO_ASSIGN_OR_RETURN(std::vector<profile::NcuKernel> kernels,
                        profile::ReadNcuCsv(path, o));
  using ShapeKey = std::tuple<std::string, int64_t, int64_t, int64_t, int64_t,
                              int64_t, int64_t>;
  std::map<ShapeKey, std::vector<const profile::NcuKernel*>> groups;
  for (const profile::NcuKernel& k : kernels) {
    groups[{NcuKernelKey(k.name), k.grid.x, k.grid.y, k.grid.z, k.block.x,
            k.block.y, k.block.z}]
        .push_back(&k);
  }
  for (auto& [key, launches] : groups) {
    MeasuredShape s;
    s.key = std::get<0>(key);
    s.grid = launches.front()->grid;
    s.block = launches.front()->block;
    s.launches = static_cast<int>(launches.size());
    s.registers_per_thread = launches.front()->registers_per_thread;
    s.static_shared_bytes = launches.front()->static_shared_bytes;
    std::vector<Duration> d;
    for (const profile::NcuKernel* k : launches) {
      d.push_back(k->duration);
      s.sm_throughput += k->sm_throughput_pct / 100.0 / launches.size();
      s.dram_throughput += k->dram_throughput_pct / 100.0 / launches.size();
    }
    std::sort(d.begin(), d.end());
    s.duration = d.size() % 2 ? d[d.size() / 2]
                              : (d[d.size() / 2 - 1] + d[d.size() / 2]) / 2;
    if (s.duration <= Duration(0)) s.duration = Nanoseconds(1);
    s.sm_throughput = std::clamp(s.sm_throughput, 0.01, 1.0);
    s.dram_throughput = std::clamp(s.dram_throughput, 0.0, 1.0);
    if (s.key.empty()) {  // no function name to match launches by
      unnamed_ += s.launches;
      continue;
    }
    shapes_.push_back(std::move(s));
  }
  std::stable_sort(shapes_.begin(), shapes_.end(),
                   [](const MeasuredShape& a, const MeasuredShape& b) {
                     return a.key < b.key;
                   });
  by_key_.clear();
  for (size_t i = 0; i < shapes_.size(); ++i)
    by_key_[shapes_[i].key].push_back(i);
  return OkStatus();
}

std::optional<MeasuredEstimate> MeasuredKernelTable::Lookup(
    std::string_view launched, Dim3 grid, Dim3 block) const {
  // By hash lookups, not a scan of the table: this runs for every launch.
  const std::vector<size_t>* shapes = nullptr;
  auto find = [&](std::string_view key) -> const std::vector<size_t>* {
    auto it = by_key_.find(std::string(key));
    return it == by_key_.end() ? nullptr : &it->second;
  };
  shapes = find(launched);
  if (shapes == nullptr && launched.substr(0, 2) == "_Z") {
    size_t best = 0;
    for (std::string_view id : MangledIdentifiers(launched)) {
      if (id.size() <= best) continue;
      if (const std::vector<size_t>* s = find(id)) {
        shapes = s;
        best = id.size();
      }
    }
  }
  if (shapes == nullptr) return std::nullopt;
  const double threads = Threads(grid, block);
  const MeasuredShape* nearest = nullptr;
  double nearest_gap = 0;
  for (size_t i : *shapes) {
    const MeasuredShape& s = shapes_[i];
    if (SameDim(s.grid, grid) && SameDim(s.block, block)) {
      return MeasuredEstimate{s.duration,
                              s.sm_throughput,
                              s.dram_throughput,
                              s.registers_per_thread,
                              s.static_shared_bytes,
                              true};
    }
    const double gap = std::fabs(std::log(
        std::max(threads, 1.0) / std::max(Threads(s.grid, s.block), 1.0)));
    if (!nearest || gap < nearest_gap) {
      nearest = &s;
      nearest_gap = gap;
    }
  }
  const double ratio = std::max(threads, 1.0) /
                       std::max(Threads(nearest->grid, nearest->block), 1.0);
  const Duration d =
      ClampedKernelTime(static_cast<double>(nearest->duration.count()) * ratio);
  return MeasuredEstimate{d,
                          nearest->sm_throughput,
                          nearest->dram_throughput,
                          nearest->registers_per_thread,
                          nearest->static_shared_bytes,
                          false};
}

}  // namespace colo::runtime
