#include "profile/smi_log.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "io/csv.h"

namespace colo::profile {
namespace {

struct Line {
  int number;
  std::string_view text;
};

std::vector<Line> Lines(std::string_view text) {
  std::vector<Line> out;
  size_t pos = 0;
  int n = 1;
  while (pos <= text.size()) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    out.push_back({n++, text.substr(pos, end - pos)});
    if (end == text.size()) break;
    pos = end + 1;
  }
  return out;
}

// Accumulates one GPU's samples (a sample without an SM figure is skipped).
struct Series {
  std::vector<std::optional<double>> sm;
  std::vector<std::optional<double>> mem, fb;
};

Result<SmiSummary> Summarize(Series s, const std::string& path,
                             const SmiLogOptions& o, std::string format) {
  SmiSummary out;
  out.format = std::move(format);
  double sm = 0, mem = 0, fb = -1;
  int64_t n = 0, n_mem = 0;
  int64_t n_without_sm = 0;
  for (size_t i = 0; i < s.sm.size(); ++i) {
    if (static_cast<int64_t>(i) < o.skip_first) continue;
    if (!s.sm[i]) {
      ++n_without_sm;
      continue;
    }
    if (o.skip_idle && *s.sm[i] == 0) continue;
    sm += *s.sm[i];
    ++n;
    if (s.mem[i]) {
      mem += *s.mem[i];
      ++n_mem;
    }
    if (s.fb[i]) fb = std::max(fb, *s.fb[i]);
  }
  if (n == 0) {
    return io::NoSampleLeftError(
        path, o.gpu, s.sm.size(), o.skip_first, o.skip_idle,
        n_without_sm > 0
            ? std::to_string(n_without_sm) + " without an 'sm' figure ('-')"
            : "");
  }
  out.samples = n;
  out.sm_util_pct = sm / static_cast<double>(n);
  if (n_mem > 0) out.mem_util_pct = mem / static_cast<double>(n_mem);
  if (fb >= 0) out.memory_used_mib = fb;
  return out;
}

// A cell of a whitespace table: a number in [0, max], or "-" (not
// available).
Result<std::optional<double>> Cell(const std::string& tok,
                                   const std::string& where,
                                   const std::string& column, double max) {
  if (tok == "-" || tok == "N/A") return std::optional<double>();
  double v = 0;
  if (!io::ParseFiniteDouble(tok, &v)) {
    return InvalidArgumentError(where + ": column '" + column +
                                "': expected a number or '-', got '" + tok +
                                "'");
  }
  if (v < 0 || v > max) {
    return InvalidArgumentError(where + ": column '" + column + "': " + tok +
                                " is out of range, expected a number in [0, " +
                                std::to_string(static_cast<long long>(max)) +
                                "]");
  }
  return std::optional<double>(v);
}

Result<SmiSummary> ParseMonitor(const std::vector<Line>& lines,
                                const std::string& path,
                                const SmiLogOptions& o) {
  std::vector<std::string> header;
  bool pmon = false;
  Series s;
  std::set<std::string> pids, all_pids;
  for (const Line& l : lines) {
    std::string_view t = l.text;
    while (!t.empty() && (t.front() == ' ' || t.front() == '\t'))
      t.remove_prefix(1);
    if (t.empty() || t.front() == '\r') continue;
    const std::string where = path + ":" + std::to_string(l.number);
    if (t.front() == '#') {
      std::vector<std::string> tok = io::SplitWhitespace(t.substr(1));
      if (std::find(tok.begin(), tok.end(), "gpu") != tok.end()) {
        // "# gpu sm mem sm" would let the last 'sm' win silently.
        COLO_RETURN_IF_ERROR(io::CheckUniqueColumns(tok, where));
        header = tok;
        pmon = std::find(tok.begin(), tok.end(), "pid") != tok.end();
      }
      continue;  // the units line ("# Idx ...") and comments
    }
    if (header.empty()) {
      return InvalidArgumentError(where +
                                  ": data before the '# gpu ...' header line "
                                  "(expected nvidia-smi dmon or pmon output)");
    }
    std::vector<std::string> tok = io::SplitWhitespace(t);
    // pmon's command (its last column) may be blank, or a name with spaces.
    // Any other row wider than the header is two rows run together or a
    // column the header lacks: which figure is which would be a guess.
    const bool command_last = pmon && header.back() == "command";
    if (tok.size() < header.size() - (pmon ? 1 : 0) ||
        (tok.size() > header.size() && !command_last)) {
      return InvalidArgumentError(
          where + ": expected " + std::to_string(header.size()) +
          " fields like the header, found " + std::to_string(tok.size()));
    }
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size() && i < tok.size(); ++i)
      row[header[i]] = tok[i];
    int gpu = -1;
    if (!io::ParseIndex(row["gpu"], &gpu)) {
      return InvalidArgumentError(
          where +
          ": column 'gpu': expected a GPU index (a whole number >= 0), got '" +
          row["gpu"] + "'");
    }
    if (gpu != o.gpu) continue;
    if (pmon) {
      const std::string& pid = row["pid"];
      if (pid == "-") continue;  // no process on the GPU in this sample
      all_pids.insert(pid);
      if (o.pid != 0 && pid != std::to_string(o.pid)) continue;
      pids.insert(pid);
    }
    if (!row.count("sm")) {
      return InvalidArgumentError(
          where + ": no 'sm' column (run nvidia-smi dmon/pmon with -s u)");
    }
    COLO_ASSIGN_OR_RETURN(std::optional<double> sm,
                          Cell(row["sm"], where, "sm", 100));
    std::optional<double> mem, fb;
    if (row.count("mem")) {
      COLO_ASSIGN_OR_RETURN(mem, Cell(row["mem"], where, "mem", 100));
    }
    if (row.count("fb")) {
      COLO_ASSIGN_OR_RETURN(fb, Cell(row["fb"], where, "fb", 1e9));
    }
    // pmon prints "-" for a process that used no SM or memory bandwidth in
    // the sample (0%); dmon prints it for a figure it could not read, which
    // is left out of the mean.
    if (pmon) {
      if (!sm) sm = 0;
      if (row.count("mem") && !mem) mem = 0;
    }
    s.sm.push_back(sm);
    s.mem.push_back(mem);
    s.fb.push_back(fb);
  }
  if (header.empty()) {
    return InvalidArgumentError(
        path +
        ": no '# gpu ...' header line (expected nvidia-smi dmon or "
        "pmon output, or a --query-gpu CSV)");
  }
  if (pmon && o.pid != 0 && pids.empty()) {
    std::string list;
    for (const auto& p : all_pids) list += (list.empty() ? "" : ", ") + p;
    return InvalidArgumentError(
        path + ": no sample of pid " + std::to_string(o.pid) + " on GPU " +
        std::to_string(o.gpu) +
        " (pids there: " + (list.empty() ? "none" : list) + ")");
  }
  if (pmon && pids.size() > 1) {
    std::string list;
    for (const auto& p : pids) list += (list.empty() ? "" : ", ") + p;
    return InvalidArgumentError(path + ": processes " + list + " share GPU " +
                                std::to_string(o.gpu) +
                                "; choose one with --pid");
  }
  return Summarize(std::move(s), path, o, pmon ? "pmon" : "dmon");
}

// "91 %" -> 91, "419 MiB" -> 419; "[N/A]" / "[Not Supported]" -> nullopt.
// A unit in the cell must be the one in the header's brackets
// ("memory.used [MiB]"), and the value must lie in [0, max].
Result<std::optional<double>> QueryValue(const io::CsvTable& t,
                                         const io::CsvRow& r, int col,
                                         double max) {
  COLO_ASSIGN_OR_RETURN(std::string_view cell, t.Cell(r, col));
  std::vector<std::string> tok = io::SplitWhitespace(cell);
  if (!tok.empty() && tok[0].front() == '[') return std::optional<double>();
  const std::string& name = t.header[col];
  double v = 0;
  if (tok.empty() || tok.size() > 2 || !io::ParseFiniteDouble(tok[0], &v)) {
    return InvalidArgumentError(
        t.Where(r) + ": column '" + name +
        "': expected a number with an optional unit, got '" +
        std::string(cell) + "'");
  }
  const size_t open = name.find('['), close = name.find(']');
  if (tok.size() == 2 && open != std::string::npos && close > open &&
      tok[1] != name.substr(open + 1, close - open - 1)) {
    return InvalidArgumentError(t.Where(r) + ": column '" + name + "': unit '" +
                                tok[1] + "', expected '" +
                                name.substr(open + 1, close - open - 1) + "'");
  }
  if (v < 0 || v > max) {
    return InvalidArgumentError(
        t.Where(r) + ": column '" + name + "': " + tok[0] +
        " is out of range, expected [0, " +
        std::to_string(static_cast<long long>(max)) + "]");
  }
  return std::optional<double>(v);
}

std::optional<int> ColumnStartingWith(const io::CsvTable& t,
                                      std::string_view prefix) {
  for (size_t i = 0; i < t.header.size(); ++i) {
    if (t.header[i].rfind(prefix, 0) == 0) return static_cast<int>(i);
  }
  return std::nullopt;
}

Result<SmiSummary> ParseQueryCsv(std::string_view text, const std::string& path,
                                 const SmiLogOptions& o) {
  COLO_ASSIGN_OR_RETURN(io::CsvTable t, io::ParseCsv(text, path));
  const std::optional<int> c_util = ColumnStartingWith(t, "utilization.gpu");
  if (!c_util) {
    COLO_RETURN_IF_ERROR(t.Column("utilization.gpu [%]").status());
  }
  const std::optional<int> c_mem = ColumnStartingWith(t, "utilization.memory");
  const std::optional<int> c_used = ColumnStartingWith(t, "memory.used");
  const std::optional<int> c_index = ColumnStartingWith(t, "index");
  if (c_used && t.header[*c_used].find("MiB") == std::string::npos &&
      t.header[*c_used].find('[') != std::string::npos) {
    return InvalidArgumentError(path + ": column '" + t.header[*c_used] +
                                "': expected MiB");
  }
  // Without an index column, lines cannot be told apart by device unless the
  // caller says how many lines a sample has; several device names, or
  // several lines with one timestamp, mean several devices, which would
  // silently be averaged together.
  if (!c_index && o.devices_per_sample == 0) {
    if (const std::optional<int> c_time = ColumnStartingWith(t, "timestamp")) {
      for (size_t i = 1; i < t.rows.size(); ++i) {
        const io::CsvRow& a = t.rows[i - 1];
        const io::CsvRow& b = t.rows[i];
        if (a.cells[*c_time] == b.cells[*c_time] &&
            a.cells[*c_time] != t.header[*c_time]) {
          return InvalidArgumentError(
              t.Where(b) + ": a second line with timestamp '" +
              io::TrimmedCopy(b.cells[*c_time]) +
              "' and no 'index' column: several GPUs per sample; give the "
              "number of lines per sample (--smi-devices) or add index to "
              "--query-gpu");
        }
      }
    }
    if (const std::optional<int> c_name = ColumnStartingWith(t, "name")) {
      std::set<std::string> names;
      for (const io::CsvRow& r : t.rows) {
        if (static_cast<size_t>(*c_name) < r.cells.size())
          names.insert(r.cells[*c_name]);
      }
      names.erase(t.header[*c_name]);
      if (names.size() > 1) {
        return InvalidArgumentError(
            path + ": lines from " + std::to_string(names.size()) +
            " different devices and no 'index' column; give the number of "
            "lines per sample (--smi-devices) or add index to --query-gpu");
      }
    }
  }
  Series s;
  // Lines of samples so far: a GPU's place in its sample is its line's
  // position in this count, which repeated headers are not part of.
  int64_t sample_lines = 0;
  for (const io::CsvRow& r : t.rows) {
    if (io::SplitWhitespace(r.cells[0]) == io::SplitWhitespace(t.header[0]) ||
        io::TrimSpaces(r.cells[*c_util]).starts_with("utilization.gpu")) {
      // nvidia-smi repeats the header; one that differs from the first
      // would make the columns below mean something else.
      for (size_t c = 0; c < t.header.size(); ++c) {
        if (io::TrimmedCopy(r.cells[c]) != t.header[c]) {
          return InvalidArgumentError(
              t.Where(r) + ": a repeated header line that differs from the " +
              "first: field " + std::to_string(c + 1) + " is '" +
              io::TrimmedCopy(r.cells[c]) + "', expected '" + t.header[c] +
              "'");
        }
      }
      continue;
    }
    const int64_t position = sample_lines++;
    if (c_index) {
      COLO_ASSIGN_OR_RETURN(std::string_view cell, t.Cell(r, *c_index));
      int idx = 0;
      if (!io::ParseIndex(cell, &idx)) {
        return InvalidArgumentError(
            t.Where(r) + ": column '" + t.header[*c_index] +
            "': expected a GPU index (a whole number >= 0), got '" +
            std::string(cell) + "'");
      }
      if (idx != o.gpu) continue;
    } else if (o.devices_per_sample > 0) {
      if (position % o.devices_per_sample != o.gpu) continue;
    } else if (o.gpu != 0) {
      return InvalidArgumentError(
          path + ": no 'index' column to find GPU " + std::to_string(o.gpu) +
          " (add index to --query-gpu, or give the number of lines per "
          "sample, --smi-devices)");
    }
    COLO_ASSIGN_OR_RETURN(std::optional<double> util,
                          QueryValue(t, r, *c_util, 100));
    if (!util) {
      return InvalidArgumentError(t.Where(r) +
                                  ": utilization.gpu not available ('[N/A]')");
    }
    std::optional<double> mem, used;
    if (c_mem) {
      COLO_ASSIGN_OR_RETURN(mem, QueryValue(t, r, *c_mem, 100));
    }
    if (c_used) {
      COLO_ASSIGN_OR_RETURN(used, QueryValue(t, r, *c_used, 1e9));
    }
    s.sm.push_back(*util);
    s.mem.push_back(mem);
    s.fb.push_back(used);
  }
  COLO_ASSIGN_OR_RETURN(SmiSummary out,
                        Summarize(std::move(s), path, o, "query-gpu"));
  out.assumed_one_gpu = !c_index && o.devices_per_sample == 0;
  return out;
}

}  // namespace

Status SmiLogOptions::Validate() const {
  if (gpu < 0) return InvalidArgumentError("gpu index must be >= 0");
  if (skip_first < 0) return InvalidArgumentError("skip_first must be >= 0");
  if (devices_per_sample < 0)
    return InvalidArgumentError("devices_per_sample must be >= 0");
  if (devices_per_sample > 0 && gpu >= devices_per_sample) {
    return InvalidArgumentError("gpu index must be below devices_per_sample");
  }
  return OkStatus();
}

Result<SmiSummary> ParseSmiLog(std::string_view text, const std::string& path,
                               const SmiLogOptions& o) {
  COLO_RETURN_IF_ERROR(o.Validate());
  std::vector<Line> lines = Lines(text);
  for (const Line& l : lines) {
    std::vector<std::string> tok = io::SplitWhitespace(l.text);
    if (tok.empty()) continue;
    if (l.text.find("utilization.gpu") != std::string_view::npos)
      return ParseQueryCsv(text, path, o);
    return ParseMonitor(lines, path, o);
  }
  return InvalidArgumentError(path +
                              ": empty file, expected nvidia-smi output");
}

Result<SmiSummary> ReadSmiLog(const std::string& path,
                              const SmiLogOptions& options) {
  COLO_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(path));
  return ParseSmiLog(text, path, options);
}

void ApplySmiSummary(const SmiSummary& s, SystemMetrics* m) {
  m->sm_util_pct = s.sm_util_pct;
  if (s.mem_util_pct) m->mem_util_pct = s.mem_util_pct;
  if (s.memory_used_mib) m->memory_used_gib = *s.memory_used_mib / 1024.0;
}

}  // namespace colo::profile
