#include "profile/dcgm_log.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "io/csv.h"
#include "io/yaml_value.h"

namespace colo::profile {
namespace {

// Running mean of one metric over the kept samples.
struct Mean {
  double sum = 0;
  int64_t n = 0;
  std::optional<double> Get(double scale) const {
    if (n == 0) return std::nullopt;
    return sum / static_cast<double>(n) * scale;
  }
};

// The largest value a field can hold: DCGM's profiling fields are ratios,
// GPUTL / MCUTL are percentages; other fields are not checked.
double MaxValue(const std::string& field) {
  static const char* kRatios[] = {"GRACT", "SMACT", "SMOCC", "TENSO",
                                  "DRAMA", "FP64A", "FP32A", "FP16A"};
  for (const char* r : kRatios) {
    if (field == r) return 1;
  }
  if (field == "GPUTL" || field == "MCUTL") return 100;
  return std::numeric_limits<double>::infinity();
}

}  // namespace

Status DcgmLogOptions::Validate() const {
  if (gpu < 0) return InvalidArgumentError("gpu index must be >= 0");
  if (skip_first < 0) return InvalidArgumentError("skip_first must be >= 0");
  return OkStatus();
}

Result<DcgmSummary> ParseDcgmLog(std::string_view text, const std::string& path,
                                 const DcgmLogOptions& o) {
  COLO_RETURN_IF_ERROR(o.Validate());
  std::vector<std::string> header;  // metric names, in column order
  // Per sample: the metric values of our GPU (nullopt = "N/A").
  std::vector<std::vector<std::optional<double>>> samples;
  size_t pos = 0;
  int line = 0;
  while (pos <= text.size()) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view l = text.substr(pos, end - pos);
    ++line;
    pos = end + 1;
    const std::vector<std::string> tok = io::SplitWhitespace(l);
    const std::string where = path + ":" + std::to_string(line);
    if (!tok.empty() && tok[0].rfind("#Entity", 0) == 0) {
      std::vector<std::string> names(tok.begin() + 1, tok.end());
      if (tok[0] != "#Entity") names.insert(names.begin(), tok[0].substr(7));
      std::erase_if(
          names, [](const std::string& h) { return h.empty() || h == "ID"; });
      // "SMACT ... SMACT" would let the first win and drop the other's data.
      COLO_RETURN_IF_ERROR(io::CheckUniqueColumns(names, where));
      // dmon repeats its header; other columns would not fit the samples
      // read under the first one.
      if (!header.empty() && names != header) {
        return InvalidArgumentError(
            where + ": a header with other columns than the one before (" +
            io::JoinComma(names) + " after " + io::JoinComma(header) + ")");
      }
      header = std::move(names);
    } else if (!tok.empty() && tok[0] != "ID" && tok[0].front() != '#') {
      if (header.empty()) {
        return InvalidArgumentError(where +
                                    ": data before the '#Entity ...' header "
                                    "(expected `dcgmi dmon` output)");
      }
      if (tok.size() != header.size() + 2) {
        return InvalidArgumentError(
            where + ": expected an entity (\"GPU 0\") and " +
            std::to_string(header.size()) + " values, found " +
            std::to_string(tok.size()) + " fields");
      }
      if (tok[0] != "GPU") continue;  // GPU-I, GPU-CI, ... entities
      int id = 0;
      if (!io::ParseIndex(tok[1], &id)) {
        return InvalidArgumentError(where +
                                    ": expected a GPU index (a whole number "
                                    ">= 0) after 'GPU', got '" +
                                    tok[1] + "'");
      }
      if (id != o.gpu) continue;
      std::vector<std::optional<double>> values;
      for (size_t i = 0; i < header.size(); ++i) {
        const std::string& cell = tok[i + 2];
        if (cell == "N/A") {
          values.emplace_back();
          continue;
        }
        double v = 0;
        if (!io::ParseFiniteDouble(cell, &v)) {
          return InvalidArgumentError(where + ": column '" + header[i] +
                                      "': expected a number or N/A, got '" +
                                      cell + "'");
        }
        const double max = MaxValue(header[i]);
        if (v < 0 || v > max) {
          return InvalidArgumentError(
              where + ": column '" + header[i] + "': " + cell +
              " is out of range, expected " +
              (max == 1 ? "a ratio in [0, 1]" : "a percentage in [0, 100]"));
        }
        values.emplace_back(v);
      }
      samples.push_back(std::move(values));
    }
    if (end == text.size()) break;
  }
  if (header.empty()) {
    return InvalidArgumentError(
        path + ": no '#Entity ...' header line (expected `dcgmi dmon` output)");
  }
  auto col = [&](const char* name) -> int {
    auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? -1 : static_cast<int>(it - header.begin());
  };
  const int c_gputl = col("GPUTL"), c_gract = col("GRACT"),
            c_smact = col("SMACT"), c_smocc = col("SMOCC"),
            c_drama = col("DRAMA");
  if (c_smact < 0 && c_smocc < 0 && c_drama < 0) {
    return InvalidArgumentError(path +
                                ": none of SMACT, SMOCC, DRAMA in the header "
                                "(run dcgmi dmon -e 1002,1003,1005)");
  }
  const int c_idle = c_gract >= 0 ? c_gract : c_smact;
  Mean gputl, smact, smocc, drama;
  DcgmSummary out;
  for (size_t i = 0; i < samples.size(); ++i) {
    if (static_cast<int64_t>(i) < o.skip_first) continue;
    const auto& s = samples[i];
    if (o.skip_idle && c_idle >= 0 && s[c_idle] && *s[c_idle] == 0) continue;
    ++out.samples;
    auto add = [&](int c, Mean& m) {
      if (c >= 0 && s[c]) {
        m.sum += *s[c];
        ++m.n;
      }
    };
    add(c_gputl, gputl);
    add(c_smact, smact);
    add(c_smocc, smocc);
    add(c_drama, drama);
  }
  if (out.samples == 0) {
    return io::NoSampleLeftError(path, o.gpu, samples.size(), o.skip_first,
                                 o.skip_idle);
  }
  if (smact.n == 0 && smocc.n == 0 && drama.n == 0) {
    return InvalidArgumentError(
        path + ": SMACT, SMOCC and DRAMA are N/A in all " +
        std::to_string(out.samples) + " samples of GPU " +
        std::to_string(o.gpu) +
        " (profiling metrics need a datacenter GPU and a DCGM host engine "
        "with profiling enabled)");
  }
  out.gpu_util_pct = gputl.Get(1.0);
  out.sm_active_pct = smact.Get(100.0);
  out.sm_occupancy_pct = smocc.Get(100.0);
  out.dram_active_pct = drama.Get(100.0);
  return out;
}

Result<DcgmSummary> ReadDcgmLog(const std::string& path,
                                const DcgmLogOptions& options) {
  COLO_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(path));
  return ParseDcgmLog(text, path, options);
}

void ApplyDcgmSummary(const DcgmSummary& s, SystemMetrics* m) {
  if (s.sm_active_pct) m->sm_active_pct = s.sm_active_pct;
  if (s.sm_occupancy_pct) m->sm_occupancy_pct = s.sm_occupancy_pct;
  if (s.dram_active_pct) m->dram_active_pct = s.dram_active_pct;
}

}  // namespace colo::profile
