#include "profile/ncu_csv.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "io/csv.h"

namespace colo::profile {
namespace {

// Where the table starts: ncu prints "==PROF==" progress lines (and, with
// some options, a report banner) before the CSV header, whose first cell is
// "ID".
struct TableStart {
  size_t offset = 0;
  int line = 1;
};

Result<TableStart> FindTable(std::string_view text, const std::string& path) {
  size_t pos = 0;
  int line = 1;
  while (pos < text.size()) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    const std::string l = io::TrimmedCopy(text.substr(pos, end - pos));
    if (l.rfind("\"ID\"", 0) == 0 || l.rfind("ID,", 0) == 0)
      return TableStart{pos, line};
    pos = end + 1;
    ++line;
  }
  return InvalidArgumentError(
      path +
      ": no Nsight Compute table found (expected a header line "
      "starting with \"ID\"; export with `ncu --csv --page details` or "
      "`ncu --csv --page raw`)");
}

// Whether the commas of `s` are thousands separators: they all sit in the
// integer part ([sign]digits, before any '.' or exponent), which reads as 1-3
// digits followed by groups of exactly 3. "1,02" (a decimal comma) is not.
bool CommasSeparateThousands(std::string_view s) {
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  size_t end = i;
  while (end < s.size() &&
         (std::isdigit(static_cast<unsigned char>(s[end])) || s[end] == ','))
    ++end;
  if (s.find(',', end) != std::string_view::npos) return false;
  const std::string_view integer = s.substr(i, end - i);
  size_t group = 0;
  bool first = true;
  for (char c : integer) {
    if (c != ',') {
      ++group;
      continue;
    }
    if (group == 0 || group > 3 || (!first && group != 3)) return false;
    first = false;
    group = 0;
  }
  return first || group == 3;
}

// A number as ncu prints it: thousands separators allowed, "n/a" not.
bool ParseNcuNumber(std::string_view cell, double* out) {
  std::string s = io::TrimmedCopy(cell);
  if (s.find(',') != std::string::npos) {
    if (!CommasSeparateThousands(s)) return false;
    s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  }
  return io::ParseFiniteDouble(s, out);
}

std::string StripPerBlock(std::string unit) {
  const std::string suffix = "/block";
  if (unit.size() > suffix.size() &&
      unit.compare(unit.size() - suffix.size(), suffix.size(), suffix) == 0) {
    unit.resize(unit.size() - suffix.size());
  }
  return unit;
}

// Nanoseconds per unit; 0 if the unit is not a time unit.
double NanosPer(const std::string& unit) {
  static const std::map<std::string, double> kUnits = {
      {"nsecond", 1},   {"ns", 1},   {"usecond", 1e3}, {"us", 1e3},
      {"msecond", 1e6}, {"ms", 1e6}, {"second", 1e9},  {"s", 1e9}};
  auto it = kUnits.find(unit);
  return it == kUnits.end() ? 0 : it->second;
}

// Bytes per unit (ncu's Kbyte = 1000 bytes); 0 if not a byte unit.
double BytesPer(const std::string& unit_in) {
  static const std::map<std::string, double> kUnits = {
      {"byte", 1},           {"", 1},         {"Kbyte", 1e3},
      {"Mbyte", 1e6},        {"Gbyte", 1e9},  {"KB", 1e3},
      {"MB", 1e6},           {"GB", 1e9},     {"Kibyte", 1024.0},
      {"Mibyte", 1048576.0}, {"KiB", 1024.0}, {"MiB", 1048576.0}};
  auto it = kUnits.find(StripPerBlock(unit_in));
  return it == kUnits.end() ? 0 : it->second;
}

// One metric value as found in the file, before conversion.
struct RawMetric {
  std::string unit;
  std::string value;
  int line = 0;
};

// A kernel's metrics by name, and where it came from.
struct RawKernel {
  std::string id, process_id, name, grid, block;
  std::string nvtx_push_pop, nvtx_start_end;  // the NVTX cells as written
  int line = 0;
  std::map<std::string, std::vector<RawMetric>> metrics;
};

// The metrics colo needs, with the names each page uses for them.
struct MetricSpec {
  const char* what;                  // for messages
  std::vector<std::string> details;  // details-page "Metric Name"s
  std::vector<std::string> raw;      // raw-page column names
  enum Kind { kTime, kPercent, kBytes, kCount } kind;
  double max = 0;            // largest value in colo's unit; 0: kMaxConverted.
  const char* max_why = "";  // where `max` comes from, for messages
};

// Every value ends up a 64-bit integer (ns, bytes, counts); a kernel of more
// than 10^15 of anything is a unit mistake, not a measurement.
constexpr double kMaxConverted = 1e15;

const MetricSpec kDuration{
    "Duration", {"Duration"}, {"gpu__time_duration.sum"}, MetricSpec::kTime};
const MetricSpec kSm{"Compute (SM) Throughput",
                     {"Compute (SM) Throughput", "SM [%]"},
                     {"sm__throughput.avg.pct_of_peak_sustained_elapsed"},
                     MetricSpec::kPercent};
const MetricSpec kDram{
    "DRAM Throughput",
    {"DRAM Throughput", "DRAM [%]"},
    {"dram__throughput.avg.pct_of_peak_sustained_elapsed",
     "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"},
    MetricSpec::kPercent};
const MetricSpec kMem{
    "Memory Throughput",
    {"Memory Throughput", "Memory [%]"},
    {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"},
    MetricSpec::kPercent};
const MetricSpec kRegs{"Registers Per Thread",
                       {"Registers Per Thread"},
                       {"launch__registers_per_thread"},
                       MetricSpec::kCount,
                       255,
                       " (the most a CUDA thread can have)"};
const MetricSpec kSmem{"Static Shared Memory Per Block",
                       {"Static Shared Memory Per Block"},
                       {"launch__shared_mem_per_block_static"},
                       MetricSpec::kBytes};

bool IsCountUnit(const std::string& unit) {
  return unit.empty() || unit == "register/thread" || unit == "thread" ||
         unit == "block";
}

// Whether `unit` is one `spec`'s values can be written in.
bool UnitFits(const MetricSpec& spec, const std::string& unit) {
  switch (spec.kind) {
    case MetricSpec::kTime:
      return NanosPer(unit) != 0;
    case MetricSpec::kPercent:
      return unit == "%";
    case MetricSpec::kBytes:
      return BytesPer(unit) != 0;
    case MetricSpec::kCount:
      return IsCountUnit(unit);
  }
  return false;
}

std::string KernelTag(const std::string& path, const RawKernel& k, int line) {
  return path + ":" + std::to_string(line) + ": kernel ID " + k.id + " '" +
         k.name + "'";
}

constexpr double kMaxPercentOfPeak = 110;

// Converts one metric to colo's unit (ns, %, bytes, count).
Result<double> Convert(const std::string& path, const RawKernel& k,
                       const MetricSpec& spec, const RawMetric& m) {
  const std::string tag =
      KernelTag(path, k, m.line) + ": metric '" + spec.what + "'";
  double v = 0;
  if (!ParseNcuNumber(m.value, &v)) {
    return InvalidArgumentError(tag + ": expected a finite number, got '" +
                                m.value + "'");
  }
  if (v < 0) return InvalidArgumentError(tag + ": negative value " + m.value);
  auto checked = [&](double converted) -> Result<double> {
    if (spec.max > 0 && converted > spec.max) {
      return InvalidArgumentError(
          tag + ": " + io::TrimmedCopy(m.value) + " " + m.unit +
          " is out of range, expected at most " +
          std::to_string(static_cast<long long>(spec.max)) + spec.max_why);
    }
    if (converted > kMaxConverted) {
      return InvalidArgumentError(tag + ": " + io::TrimmedCopy(m.value) + " " +
                                  m.unit + " is out of range");
    }
    return converted;
  };
  switch (spec.kind) {
    case MetricSpec::kTime: {
      const double f = NanosPer(m.unit);
      if (f == 0) {
        return InvalidArgumentError(tag + ": unit '" + m.unit +
                                    "' is not a time unit (expected nsecond, "
                                    "usecond, msecond, second)");
      }
      return checked(v * f);
    }
    case MetricSpec::kPercent:
      if (m.unit != "%") {
        return InvalidArgumentError(tag + ": unit '" + m.unit +
                                    "', expected '%'");
      }
      // A percentage of peak; ncu's rounding can put it a little above 100,
      // nothing real puts it far above.
      if (v > kMaxPercentOfPeak) {
        return InvalidArgumentError(
            tag + ": " + m.value + "% of peak, expected at most " +
            std::to_string(static_cast<int>(kMaxPercentOfPeak)) + "%");
      }
      return v;
    case MetricSpec::kBytes: {
      const double f = BytesPer(m.unit);
      if (f == 0) {
        return InvalidArgumentError(
            tag + ": unit '" + m.unit +
            "' is not a size unit (expected byte, Kbyte, Mbyte, Gbyte)");
      }
      return checked(v * f);
    }
    case MetricSpec::kCount:
      if (!IsCountUnit(m.unit)) {
        return InvalidArgumentError(tag + ": unit '" + m.unit +
                                    "', expected a count (no unit, "
                                    "register/thread, thread or block)");
      }
      return checked(v);
  }
  return v;
}

// Finds `spec` among a details-page kernel's metrics. For percentages the
// row with unit % wins (ncu also reports "Memory Throughput" in Gbyte/second
// in the Memory Workload Analysis section).
Result<double> DetailsMetric(const std::string& path, const RawKernel& k,
                             const MetricSpec& spec) {
  const RawMetric* found = nullptr;
  for (const std::string& name : spec.details) {
    auto it = k.metrics.find(name);
    if (it == k.metrics.end()) continue;
    for (const RawMetric& m : it->second) {
      if (spec.kind != MetricSpec::kPercent || m.unit == "%") {
        found = &m;
        break;
      }
    }
    if (!found && !it->second.empty()) found = &it->second.front();
    if (found) break;
  }
  if (!found) {
    return InvalidArgumentError(
        KernelTag(path, k, k.line) + ": no metric '" + spec.what +
        "' (profile with `--section SpeedOfLight --section LaunchStats`, "
        "or `--set basic` or fuller)");
  }
  COLO_ASSIGN_OR_RETURN(const double value, Convert(path, k, spec, *found));
  // The same metric twice (two exports pasted together, a kernel ID reused)
  // would otherwise be settled silently by file order; "100 usecond" and
  // "5 msecond" differ although neither unit does. Compared in colo's unit,
  // so "1.02 msecond" and "1,020 usecond" agree. A row in a unit of another
  // kind is another metric of that name (Memory Throughput in Gbyte/second).
  for (const std::string& name : spec.details) {
    auto it = k.metrics.find(name);
    if (it == k.metrics.end()) continue;
    for (const RawMetric& m : it->second) {
      if (&m == found || !UnitFits(spec, m.unit)) continue;
      COLO_ASSIGN_OR_RETURN(const double other, Convert(path, k, spec, m));
      if (std::fabs(other - value) > 1e-9 * std::max(std::fabs(value), 1.0)) {
        return InvalidArgumentError(
            KernelTag(path, k, m.line) + ": metric '" + spec.what + "' is " +
            io::TrimmedCopy(m.value) + " " + m.unit + " here but " +
            io::TrimmedCopy(found->value) + " " + found->unit + " at line " +
            std::to_string(found->line) +
            " (one kernel ID per launch expected)");
      }
    }
  }
  return value;
}

// "7  \"<default domain>:train:none:none:none:none:none:none\"  \"...\"" ->
// {"train", ...}. Each quoted part is domain:range followed by six attribute
// fields; a start/end range cell has an extra leading id.
std::vector<std::string> ParseNvtxStack(const std::string& cell,
                                        bool start_end) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    const size_t open = cell.find('"', pos);
    if (open == std::string::npos) break;
    const size_t close = cell.find('"', open + 1);
    if (close == std::string::npos) break;
    std::string part = cell.substr(open + 1, close - open - 1);
    pos = close + 1;
    for (int i = 0; i < 6;
         ++i) {  // drop PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg
      const size_t c = part.rfind(':');
      if (c == std::string::npos) break;
      part.resize(c);
    }
    for (int i = 0; i < (start_end ? 2 : 1); ++i) {  // drop [id:]domain:
      const size_t c = part.find(':');
      if (c == std::string::npos) break;
      part.erase(0, c + 1);
    }
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

// CUDA's launch limits (gridDim.x < 2^31, gridDim.y/z <= 65535, at most 1024
// threads per block, blockDim.z <= 64): a launch past them is a corrupt
// export, and within them grid.Count() fits in int64. The products
// SummarizeKernels forms (threads = grid x block, shared memory = grid x
// bytes per block) must fit too. `grid_total`: the grid is ncu's scalar Grid
// Size (a total in x), not the "(x, y, z)" cell.
Status CheckLaunchShape(const std::string& tag, const NcuKernel& k,
                        bool grid_total) {
  const Dim3& g = k.grid;
  const Dim3& b = k.block;
  if (g.x < 1 || g.y < 1 || g.z < 1 || b.x < 1 || b.y < 1 || b.z < 1)
    return InvalidArgumentError(tag +
                                ": empty launch (grid or block of size 0)");
  if ((!grid_total && g.x > kMaxGridX) || g.y > kMaxGridYZ ||
      g.z > kMaxGridYZ) {
    return InvalidArgumentError(
        tag + ": grid " + FormatDim3(g) +
        " exceeds CUDA's limits (2147483647, 65535, 65535)");
  }
  // Every GPU colo knows allows 1024 threads per block
  // (GpuSpec::max_threads_per_block); the profile names no GPU to ask.
  constexpr int64_t kMaxThreadsPerBlock = kMaxBlockXY;
  if (b.x > kMaxBlockXY || b.y > kMaxBlockXY || b.z > kMaxBlockZ ||
      b.x * b.y * b.z > kMaxThreadsPerBlock) {
    return InvalidArgumentError(
        tag + ": block " + FormatDim3(b) +
        " exceeds CUDA's limits (at most 1024 threads per block, z <= 64)");
  }
  int64_t blocks = 0, product = 0;
  if (__builtin_mul_overflow(g.x, g.y, &blocks) ||
      __builtin_mul_overflow(blocks, g.z, &blocks) ||
      __builtin_mul_overflow(blocks, b.Count(), &product)) {
    return InvalidArgumentError(tag + ": grid " + FormatDim3(g) + " x block " +
                                FormatDim3(b) +
                                " threads overflow a 64-bit count");
  }
  if (__builtin_mul_overflow(blocks, k.static_shared_bytes, &product)) {
    return InvalidArgumentError(
        tag + ": grid " + FormatDim3(g) + " x " +
        std::to_string(k.static_shared_bytes) +
        " bytes of static shared memory per block overflow a 64-bit count");
  }
  return OkStatus();
}

Result<NcuKernel> BuildKernel(const std::string& path, const RawKernel& rk,
                              bool details,
                              const std::map<std::string, int>& raw_cols,
                              const io::CsvRow* raw_row,
                              const std::vector<std::string>& units) {
  NcuKernel k;
  k.id = rk.id;
  k.process_id = rk.process_id;
  k.name = rk.name;
  k.line = rk.line;
  auto get = [&](const MetricSpec& spec) -> Result<double> {
    if (details) return DetailsMetric(path, rk, spec);
    for (const std::string& col : spec.raw) {
      auto it = raw_cols.find(col);
      if (it == raw_cols.end()) continue;
      const int c = it->second;
      RawMetric m{static_cast<size_t>(c) < units.size() ? units[c] : "",
                  static_cast<size_t>(c) < raw_row->cells.size()
                      ? raw_row->cells[c]
                      : "",
                  rk.line};
      if (static_cast<size_t>(c) >= raw_row->cells.size()) {
        return InvalidArgumentError(
            KernelTag(path, rk, rk.line) + ": row has " +
            std::to_string(raw_row->cells.size()) + " fields, column '" + col +
            "' is field " + std::to_string(c + 1));
      }
      return Convert(path, rk, spec, m);
    }
    return InvalidArgumentError(path + ": missing column '" + spec.raw.front() +
                                "' (" + spec.what +
                                "; collect it with --metrics or --section)");
  };
  COLO_ASSIGN_OR_RETURN(double dur_ns, get(kDuration));
  COLO_ASSIGN_OR_RETURN(k.sm_throughput_pct, get(kSm));
  COLO_ASSIGN_OR_RETURN(k.dram_throughput_pct, get(kDram));
  COLO_ASSIGN_OR_RETURN(k.memory_throughput_pct, get(kMem));
  COLO_ASSIGN_OR_RETURN(double regs, get(kRegs));
  COLO_ASSIGN_OR_RETURN(double smem, get(kSmem));
  k.duration = Nanoseconds(std::llround(dur_ns));
  k.registers_per_thread = static_cast<int>(std::lround(regs));
  k.static_shared_bytes = std::llround(smem);

  // Launch shape: the "(x, y, z)" columns when present, else the scalar
  // Launch Statistics metrics / launch__*_size columns (a total count, at
  // most kMaxConverted).
  bool grid_total = false;
  auto shape = [&](const std::string& cell, const char* metric,
                   const char* raw_metric, Dim3* out, bool* total) -> Status {
    if (!io::TrimmedCopy(cell).empty()) {
      if (ParseDim3(cell, out)) return OkStatus();
      return InvalidArgumentError(KernelTag(path, rk, rk.line) + ": '" +
                                  metric + "': expected \"(x, y, z)\", got '" +
                                  cell + "'");
    }
    const MetricSpec spec{metric, {metric}, {raw_metric}, MetricSpec::kCount};
    COLO_ASSIGN_OR_RETURN(double v, get(spec));
    *out = Dim3{static_cast<int64_t>(std::llround(v)), 1, 1};
    if (total) *total = true;
    return OkStatus();
  };
  COLO_RETURN_IF_ERROR(
      shape(rk.grid, "Grid Size", "launch__grid_size", &k.grid, &grid_total));
  COLO_RETURN_IF_ERROR(
      shape(rk.block, "Block Size", "launch__block_size", &k.block, nullptr));
  COLO_RETURN_IF_ERROR(
      CheckLaunchShape(KernelTag(path, rk, rk.line), k, grid_total));
  k.nvtx_ranges = ParseNvtxStack(rk.nvtx_push_pop, false);
  for (std::string& r : ParseNvtxStack(rk.nvtx_start_end, true))
    k.nvtx_ranges.push_back(std::move(r));
  return k;
}

std::optional<int> OptColumn(const io::CsvTable& t, std::string_view name) {
  for (size_t i = 0; i < t.header.size(); ++i) {
    if (t.header[i] == name) return static_cast<int>(i);
  }
  return std::nullopt;
}

}  // namespace

bool ParseDim3(std::string_view s, Dim3* out) {
  std::string t = io::TrimmedCopy(s);
  if (!t.empty() && t.front() == '(' && t.back() == ')')
    t = t.substr(1, t.size() - 2);
  int64_t v[3] = {1, 1, 1};
  int n = 0;
  size_t pos = 0;
  while (pos <= t.size()) {
    const size_t comma = std::min(t.find(',', pos), t.size());
    double d = 0;
    // Below 2^63, so that the cast is defined; CheckLaunchShape applies
    // CUDA's far smaller limits.
    if (n == 3 || !io::ParseFiniteDouble(t.substr(pos, comma - pos), &d) ||
        d < 0 || d != std::floor(d) || d >= 0x1p63) {
      return false;
    }
    v[n++] = static_cast<int64_t>(d);
    pos = comma + 1;
  }
  *out = Dim3{v[0], v[1], v[2]};
  return true;
}

Result<std::vector<NcuKernel>> ParseNcuCsv(std::string_view text,
                                           const std::string& path,
                                           const NcuImportOptions& options) {
  COLO_ASSIGN_OR_RETURN(TableStart start, FindTable(text, path));
  io::CsvOptions csv;
  csv.rows_as_wide_as_header = false;  // checked below, after the trailers
  COLO_ASSIGN_OR_RETURN(io::CsvTable table,
                        io::ParseCsv(text.substr(start.offset), path, csv));
  // ParseCsv numbers lines from the table's start; report file lines.
  for (io::CsvRow& r : table.rows) r.line += start.line - 1;
  // Trailing "==PROF== Disconnected ..." lines are not rows of the table.
  std::erase_if(table.rows, [](const io::CsvRow& r) {
    return r.cells.size() == 1 &&
           io::TrimmedCopy(r.cells[0]).rfind("==", 0) == 0;
  });
  COLO_RETURN_IF_ERROR(io::CheckRowWidths(table));

  COLO_ASSIGN_OR_RETURN(int c_id, table.Column("ID"));
  COLO_ASSIGN_OR_RETURN(int c_name, table.Column("Kernel Name"));
  const std::optional<int> c_pid = OptColumn(table, "Process ID");
  const std::optional<int> c_grid = OptColumn(table, "Grid Size");
  const std::optional<int> c_block = OptColumn(table, "Block Size");
  // `ncu --nvtx` exports have both NVTX columns: the push/pop range stack
  // and the start/end ranges open at the launch. A kernel is in a range
  // named in either.
  std::optional<int> c_push_pop, c_start_end;
  for (size_t i = 0; i < table.header.size(); ++i) {
    if (!c_push_pop &&
        table.header[i].find("Push/Pop_Range") != std::string::npos) {
      c_push_pop = static_cast<int>(i);
    } else if (!c_start_end &&
               table.header[i].find("Start/Stop_Range") != std::string::npos) {
      c_start_end = static_cast<int>(i);
    }
  }
  const bool details = OptColumn(table, "Metric Name").has_value();

  auto cell = [](const io::CsvRow& r, std::optional<int> c) -> std::string {
    return c && static_cast<size_t>(*c) < r.cells.size()
               ? io::TrimmedCopy(r.cells[*c])
               : std::string();
  };

  std::vector<NcuKernel> kernels;
  if (details) {
    COLO_ASSIGN_OR_RETURN(int c_metric, table.Column("Metric Name"));
    COLO_ASSIGN_OR_RETURN(int c_unit, table.Column("Metric Unit"));
    COLO_ASSIGN_OR_RETURN(int c_value, table.Column("Metric Value"));
    std::vector<RawKernel> raw;
    std::map<std::pair<std::string, std::string>, size_t> index;
    for (const io::CsvRow& r : table.rows) {
      COLO_ASSIGN_OR_RETURN(std::string_view id, table.Cell(r, c_id));
      COLO_ASSIGN_OR_RETURN(std::string_view metric, table.Cell(r, c_metric));
      COLO_ASSIGN_OR_RETURN(std::string_view unit, table.Cell(r, c_unit));
      COLO_ASSIGN_OR_RETURN(std::string_view value, table.Cell(r, c_value));
      if (io::TrimmedCopy(id).empty()) {
        return InvalidArgumentError(
            table.Where(r) +
            ": empty 'ID' cell (expected the kernel's launch ID)");
      }
      const auto key = std::make_pair(cell(r, c_pid), io::TrimmedCopy(id));
      auto [it, fresh] = index.emplace(key, raw.size());
      if (fresh) {
        RawKernel k;
        k.id = key.second;
        k.process_id = key.first;
        k.name = cell(r, c_name);
        k.grid = cell(r, c_grid);
        k.block = cell(r, c_block);
        k.nvtx_push_pop = cell(r, c_push_pop);
        k.nvtx_start_end = cell(r, c_start_end);
        k.line = r.line;
        raw.push_back(std::move(k));
      }
      raw[it->second].metrics[io::TrimmedCopy(metric)].push_back(
          RawMetric{io::TrimmedCopy(unit), std::string(value), r.line});
    }
    for (const RawKernel& rk : raw) {
      COLO_ASSIGN_OR_RETURN(NcuKernel k,
                            BuildKernel(path, rk, true, {}, nullptr, {}));
      kernels.push_back(std::move(k));
    }
  } else {
    // Raw page: the first row under the header holds the units.
    if (table.rows.empty() ||
        !io::TrimmedCopy(table.rows[0].cells[0]).empty()) {
      return InvalidArgumentError(
          path + ":" + std::to_string(start.line + 1) +
          ": expected the units row of a `--page raw` export "
          "(first cell empty), or a `--page details` export with "
          "'Metric Name' / 'Metric Value' columns");
    }
    std::vector<std::string> units;
    for (const std::string& u : table.rows[0].cells)
      units.push_back(io::TrimmedCopy(u));
    std::map<std::string, int> cols;
    for (size_t i = 0; i < table.header.size(); ++i)
      cols[table.header[i]] = static_cast<int>(i);
    std::map<std::pair<std::string, std::string>, int> seen_ids;
    for (size_t i = 1; i < table.rows.size(); ++i) {
      const io::CsvRow& r = table.rows[i];
      const auto key = std::make_pair(cell(r, c_pid), cell(r, c_id));
      if (auto [it, fresh] = seen_ids.emplace(key, r.line); !fresh) {
        return InvalidArgumentError(
            table.Where(r) + ": kernel ID " + key.second +
            (key.first.empty() ? "" : " of process " + key.first) +
            " appears again (first at line " + std::to_string(it->second) +
            "; one row per kernel launch expected)");
      }
      RawKernel rk;
      rk.id = cell(r, c_id);
      rk.process_id = cell(r, c_pid);
      rk.name = cell(r, c_name);
      rk.grid = cell(r, c_grid);
      rk.block = cell(r, c_block);
      rk.nvtx_push_pop = cell(r, c_push_pop);
      rk.nvtx_start_end = cell(r, c_start_end);
      rk.line = r.line;
      if (rk.id.empty()) {
        return InvalidArgumentError(
            table.Where(r) +
            ": empty 'ID' cell (expected the kernel's launch ID)");
      }
      COLO_ASSIGN_OR_RETURN(NcuKernel k,
                            BuildKernel(path, rk, false, cols, &r, units));
      kernels.push_back(std::move(k));
    }
  }
  if (kernels.empty())
    return InvalidArgumentError(path + ": the export holds no kernels");

  std::string want = options.nvtx_range;
  while (!want.empty() && want.back() == '/') want.pop_back();
  if (want.empty()) return kernels;
  if (!c_push_pop && !c_start_end) {
    return InvalidArgumentError(
        path + ": an NVTX range ('" + want +
        "') was asked for, but the export has no NVTX column "
        "(profile with `ncu --nvtx`)");
  }
  std::set<std::string> seen;
  std::vector<NcuKernel> kept;
  for (NcuKernel& k : kernels) {
    seen.insert(k.nvtx_ranges.begin(), k.nvtx_ranges.end());
    if (std::find(k.nvtx_ranges.begin(), k.nvtx_ranges.end(), want) !=
        k.nvtx_ranges.end()) {
      kept.push_back(std::move(k));
    }
  }
  if (kept.empty()) {
    std::string have;
    for (const std::string& s : seen) have += (have.empty() ? "" : ", ") + s;
    return NotFoundError(
        path + ": no kernel inside NVTX range '" + want +
        "' (ranges present: " + (have.empty() ? "none" : have) + ")");
  }
  return kept;
}

Result<std::vector<NcuKernel>> ReadNcuCsv(const std::string& path,
                                          const NcuImportOptions& options) {
  COLO_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(path));
  return ParseNcuCsv(text, path, options);
}

Result<KernelSummary> SummarizeKernels(const std::vector<NcuKernel>& kernels) {
  if (kernels.empty()) return InvalidArgumentError("no kernels to summarize");
  KernelSummary s;
  double total = 0;
  for (const NcuKernel& k : kernels)
    total += static_cast<double>(k.duration.count());
  if (!(total > 0)) {
    return InvalidArgumentError(
        "kernels have zero total duration; cannot weight by duration");
  }
  for (const NcuKernel& k : kernels) {
    // ParseNcuCsv's kernels have passed this; a caller's own need not have,
    // and the products below must not overflow.
    COLO_RETURN_IF_ERROR(CheckLaunchShape(
        "kernel ID " + k.id + " (line " + std::to_string(k.line) + ")", k,
        /*grid_total=*/true));
  }
  for (const NcuKernel& k : kernels) {
    const double w = static_cast<double>(k.duration.count()) / total;
    const double threads =
        static_cast<double>(k.grid.Count() * k.block.Count());
    s.threads += w * threads;
    s.registers += w * threads * k.registers_per_thread;
    s.static_shared_memory +=
        w * static_cast<double>(k.grid.Count() * k.static_shared_bytes);
    s.sm_throughput_pct += w * k.sm_throughput_pct;
    s.dram_throughput_pct += w * k.dram_throughput_pct;
    s.memory_throughput_pct += w * k.memory_throughput_pct;
  }
  s.kernel_count = static_cast<int64_t>(kernels.size());
  s.total_duration = Nanoseconds(static_cast<int64_t>(total));
  return s;
}

}  // namespace colo::profile
