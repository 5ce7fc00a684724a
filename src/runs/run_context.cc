#include "runs/run_context.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>

namespace colo::runs {

std::string ColoVersion() { return COLO_VERSION; }

std::string ContentHash(std::string_view bytes) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a offset basis
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;  // FNV prime
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) out[i] = kHex[h & 0xf];
  return out;
}

MachineInfo DescribeMachine(const std::string& cpuinfo_path) {
  MachineInfo m{"unknown", "unknown"};
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) == 0 && name[0] != '\0')
    m.host = name;
  std::ifstream in(cpuinfo_path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    size_t start = line.find_first_not_of(" \t", colon + 1);
    if (start != std::string::npos) m.cpu = line.substr(start);
    break;
  }
  return m;
}

int64_t UnixNanosNow() {
  // The record's timestamp is a calendar time for people, so the system
  // clock (not the Clock seam, which is monotonic and starts near 0).
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string FormatUtc(int64_t unix_ns) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ns / 1000000000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::optional<std::string> DefaultRunsDbPath(
    const std::function<const char*(const char*)>& getenv) {
  // XDG Base Directory: a relative XDG_DATA_HOME is invalid and ignored.
  const char* xdg = getenv("XDG_DATA_HOME");
  if (xdg != nullptr && xdg[0] == '/')
    return std::string(xdg) + "/colo/runs.db";
  const char* home = getenv("HOME");
  if (home != nullptr && home[0] == '/')
    return std::string(home) + "/.local/share/colo/runs.db";
  return std::nullopt;
}

}  // namespace colo::runs
