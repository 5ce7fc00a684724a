// jobs/catalog.cc — Salus's workloads.csv, and the P/E split and busy
// fraction derived from it (rules in catalog.h).
#include "jobs/catalog.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "io/csv.h"

namespace colo::jobs {
namespace {

// Splits "resnet50_25_10min" into its three parts.
bool SplitName(const std::string& name, std::string* model, int* batch,
               int* length_min) {
  const size_t last = name.rfind('_');
  if (last == std::string::npos || last == 0) return false;
  const size_t mid = name.rfind('_', last - 1);
  if (mid == std::string::npos || mid == 0) return false;
  *model = name.substr(0, mid);
  const std::string b = name.substr(mid + 1, last - mid - 1);
  std::string len = name.substr(last + 1);
  if (len.size() < 4 || len.substr(len.size() - 3) != "min") return false;
  len.resize(len.size() - 3);
  const auto [p1, e1] = std::from_chars(b.data(), b.data() + b.size(), *batch);
  const auto [p2, e2] =
      std::from_chars(len.data(), len.data() + len.size(), *length_min);
  return e1 == std::errc() && p1 == b.data() + b.size() && *batch > 0 &&
         e2 == std::errc() && p2 == len.data() + len.size() && *length_min > 0;
}

// The target length (1, 5 or 10 min) closest to a measured jct.
int LengthFromJct(Duration jct) {
  const double minutes = ToSeconds(jct) / 60.0;
  int best = 1;
  for (int m : {1, 5, 10}) {
    if (std::abs(minutes - m) < std::abs(minutes - best)) best = m;
  }
  return best;
}

// P per model: the intercept of the least-squares line peak = P + e * batch
// over the model's distinct batch sizes (each batch's peak is the same in
// its 1/5/10-minute rows, so one point per batch).
void SplitMemory(std::vector<CatalogEntry>& entries) {
  std::map<std::string, std::map<int, double>> points;  // model -> batch->MiB
  for (const CatalogEntry& e : entries) {
    points[e.model][e.batch] = static_cast<double>(e.peak_bytes);
  }
  std::map<std::string, std::pair<double, double>> lines;  // intercept, slope
  for (const auto& [model, by_batch] : points) {
    const double n = static_cast<double>(by_batch.size());
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& [b, y] : by_batch) {
      sx += b;
      sy += y;
      sxx += double(b) * b;
      sxy += b * y;
    }
    const double det = n * sxx - sx * sx;
    // One batch size: no slope to fit; the clamp below then splits 90/10.
    const double slope = det > 0 ? (n * sxy - sx * sy) / det : 0.0;
    lines[model] = {(sy - slope * sx) / n, slope};
  }
  for (CatalogEntry& e : entries) {
    const double peak = static_cast<double>(e.peak_bytes);
    double p = lines[e.model].first;
    p = std::clamp(p, 0.10 * peak, 0.90 * peak);
    e.persistent_bytes = static_cast<int64_t>(std::llround(p));
    e.ephemeral_bytes = e.peak_bytes - e.persistent_bytes;
  }
}

// Busy fraction: throughput at this batch relative to the model's largest
// batch, whose GPU is the busiest; 0.95 at that batch.
void SetBusyFractions(std::vector<CatalogEntry>& entries) {
  std::map<std::string, double> best;  // model -> samples/s at largest batch
  std::map<std::string, int> largest;
  for (const CatalogEntry& e : entries) {
    if (e.batch >= largest[e.model]) largest[e.model] = e.batch;
  }
  auto throughput = [](const CatalogEntry& e) {
    return e.batch / ToSeconds(e.iteration_time);
  };
  for (const CatalogEntry& e : entries) {
    if (e.batch == largest[e.model]) {
      best[e.model] = std::max(best[e.model], throughput(e));
    }
  }
  for (CatalogEntry& e : entries) {
    e.busy_fraction =
        std::clamp(0.95 * throughput(e) / best[e.model], 0.05, 1.0);
  }
}

}  // namespace

const CatalogEntry* Catalog::Find(std::string_view name) const {
  for (const CatalogEntry& e : entries) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

Status Catalog::Unknown(std::string_view name) const {
  return NotFoundError("unknown model '" + std::string(name) +
                       "' (the catalog " + path + " has " +
                       std::to_string(entries.size()) + " entries, e.g. " +
                       (entries.empty() ? "none" : entries.front().name) + ")");
}

Result<Catalog> ParseSalusCatalog(std::string_view text, std::string path) {
  io::CsvOptions options;
  options.has_header = false;
  COLO_ASSIGN_OR_RETURN(io::CsvTable table, io::ParseCsv(text, path, options));
  Catalog catalog;
  catalog.path = path;
  std::set<std::string> names;
  for (const io::CsvRow& row : table.rows) {
    if (row.cells.size() != 5) {
      return InvalidArgumentError(
          table.Where(row) +
          ": expected 5 fields (name, jct, mem, iterations, cmd), found " +
          std::to_string(row.cells.size()));
    }
    CatalogEntry e;
    e.line = row.line;
    e.name = io::TrimmedCopy(row.cells[0]);
    if (!SplitName(e.name, &e.model, &e.batch, &e.length_min)) {
      return InvalidArgumentError(table.Where(row) + ": name '" +
                                  EscapeControlCharacters(e.name) +
                                  "': expected <model>_<batch>_<N>min");
    }
    COLO_ASSIGN_OR_RETURN(double jct_s, table.Number(row, 1));
    COLO_ASSIGN_OR_RETURN(double mem_mib, table.Number(row, 2));
    COLO_ASSIGN_OR_RETURN(int64_t iterations, table.Integer(row, 3));
    if (jct_s <= 0 || jct_s > 1e6) {
      return InvalidArgumentError(table.Where(row) +
                                  ": jct: expected seconds in (0, 1e6], got " +
                                  row.cells[1]);
    }
    if (mem_mib <= 0 || mem_mib > 1e7) {
      return InvalidArgumentError(table.Where(row) +
                                  ": mem: expected MiB in (0, 1e7], got " +
                                  row.cells[2]);
    }
    if (iterations <= 0) {
      return InvalidArgumentError(table.Where(row) +
                                  ": iterations: expected an integer > 0, "
                                  "got " +
                                  row.cells[3]);
    }
    e.solo_jct = DurationFromSeconds(jct_s);
    e.iterations = iterations;
    e.iteration_time = e.solo_jct / iterations;
    e.peak_bytes = static_cast<int64_t>(std::llround(mem_mib * kMiB));
    if (names.count(e.name) > 0) {
      // Salus's file lists vgg16_100_1min twice; the second is the 10-min
      // variant (its jct and iterations say so).
      e.length_min = LengthFromJct(e.solo_jct);
      e.name = e.model + "_" + std::to_string(e.batch) + "_" +
               std::to_string(e.length_min) + "min";
      if (names.count(e.name) > 0) {
        return InvalidArgumentError(
            table.Where(row) + ": name '" + io::TrimmedCopy(row.cells[0]) +
            "' appears twice, and its jct (" + row.cells[1] +
            " s) names the variant " + e.name + ", which is taken too");
      }
    }
    names.insert(e.name);
    catalog.entries.push_back(std::move(e));
  }
  if (catalog.entries.empty()) {
    return InvalidArgumentError(path + ": no jobs in the catalog");
  }
  SplitMemory(catalog.entries);
  SetBusyFractions(catalog.entries);
  return catalog;
}

Result<Catalog> ReadSalusCatalog(const std::string& path) {
  COLO_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(path));
  return ParseSalusCatalog(text, path);
}

}  // namespace colo::jobs
