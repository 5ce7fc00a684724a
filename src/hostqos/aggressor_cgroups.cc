#include "hostqos/aggressor_cgroups.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>

namespace colo::hostqos {
namespace {

constexpr char kAdoptedRoot[] = "colo-hostqos";

std::string Dir(const LinuxHost& host, const std::string& cgroup) {
  return cgroup.empty() ? host.parts().cpu_root
                        : host.parts().cpu_root + "/" + cgroup;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Status MoveProcess(SysFs* fs, const std::string& dir, int pid) {
  return fs->Write(dir + "/cgroup.procs", std::to_string(pid) + "\n");
}

bool Alive(SysFs* fs, int pid) {
  return fs->Exists("/proc/" + std::to_string(pid));
}

}  // namespace

Result<std::string> UnitCgroup(SysFs* fs, const LinuxHost& host,
                               const std::string& unit) {
  if (unit.find('/') != std::string::npos ||
      unit.find("..") != std::string::npos ||
      !(EndsWith(unit, ".service") || EndsWith(unit, ".scope") ||
        EndsWith(unit, ".slice"))) {
    return InvalidArgumentError(
        "aggressor unit '" + EscapeControlCharacters(unit) +
        "': expected a systemd unit name ending in .service, .scope or "
        ".slice");
  }
  if (host.parts().cgroups == CgroupVersion::kNone) {
    return FailedPreconditionError("cannot find unit '" + unit +
                                   "': the host has no CPU cgroup controller");
  }
  std::string looked;
  for (const std::string parent : {"system.slice/", "user.slice/", ""}) {
    const std::string cgroup = parent + unit;
    if (fs->Exists(Dir(host, cgroup))) return cgroup;
    looked += (looked.empty() ? "" : ", ") + Dir(host, cgroup);
  }
  return NotFoundError("aggressor unit '" + unit +
                       "' has no cgroup (looked for " + looked +
                       "): is it running under systemd?");
}

Result<std::string> ProcessCgroup(SysFs* fs, const LinuxHost& host, int pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/cgroup";
  Result<std::string> text = fs->Read(path);
  if (!text.ok()) {
    return NotFoundError("process " + std::to_string(pid) +
                         " does not exist (" + path + ")");
  }
  std::stringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    // "<id>:<controllers>:<path>"
    const size_t a = line.find(':');
    const size_t b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    bool ours = false;
    if (host.parts().cgroups == CgroupVersion::kV2) {
      ours = line.compare(0, 3, "0::") == 0;
    } else {
      std::stringstream names(controllers);
      std::string name;
      while (std::getline(names, name, ',')) ours = ours || name == "cpu";
    }
    if (!ours) continue;
    std::string cgroup = line.substr(b + 1);
    while (!cgroup.empty() && cgroup.front() == '/') cgroup.erase(0, 1);
    return cgroup;
  }
  return NotFoundError(path + " names no cgroup of the CPU hierarchy");
}

Result<std::vector<int>> ParsePidList(const std::string& text) {
  std::vector<int> pids;
  // Split on every comma, so "12," has an empty last item.
  std::vector<std::string> items(1);
  for (char c : text) {
    if (c == ',') {
      items.emplace_back();
    } else {
      items.back() += c;
    }
  }
  for (const std::string& item : items) {
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v <= 0 || v > (1L << 22)) {
      return InvalidArgumentError(
          "aggressor processes '" + EscapeControlCharacters(text) +
          "': expected process ids separated by commas ('123,456')");
    }
    pids.push_back(static_cast<int>(v));
  }
  if (pids.empty()) {
    return InvalidArgumentError(
        "aggressor processes: expected at least one "
        "process id");
  }
  return pids;
}

Result<std::string> AdoptProcesses(
    SysFs* fs, const LinuxHost& host, const std::vector<int>& pids,
    const std::function<Status(const std::string&)>& record) {
  if (host.parts().cgroups == CgroupVersion::kNone) {
    return FailedPreconditionError(
        "cannot adopt processes: the host has no CPU cgroup controller");
  }
  // Every process must exist before anything changes.
  std::vector<std::string> original;
  for (int pid : pids) {
    COLO_ASSIGN_OR_RETURN(std::string cgroup, ProcessCgroup(fs, host, pid));
    original.push_back(cgroup);
  }
  const std::string parent = kAdoptedRoot;
  const std::string cgroup = parent + "/pid-" + std::to_string(pids.front());
  for (const std::string& made : {parent, cgroup}) {
    if (fs->Exists(Dir(host, made))) continue;
    COLO_RETURN_IF_ERROR(
        record(std::string(kMadeCgroup) + "\t" + Dir(host, made)));
    COLO_RETURN_IF_ERROR(fs->MakeDir(Dir(host, made)));
  }
  for (size_t i = 0; i < pids.size(); ++i) {
    COLO_RETURN_IF_ERROR(record(std::string(kMovedProcess) + "\t" +
                                std::to_string(pids[i]) + "\t" +
                                Dir(host, original[i])));
    Status moved = MoveProcess(fs, Dir(host, cgroup), pids[i]);
    if (!moved.ok()) {
      return moved.WithContext("moving process " + std::to_string(pids[i]) +
                               " into " + Dir(host, cgroup));
    }
  }
  return cgroup;
}

Status UndoAdoption(SysFs* fs, const LinuxHost& host,
                    const std::vector<std::vector<std::string>>& lines) {
  Status first;
  auto keep = [&first](Status s) {
    if (!s.ok() && first.ok()) first = std::move(s);
  };
  std::vector<std::string> made;
  std::string fallback = host.parts().cpu_root;  // where strays go.
  for (const std::vector<std::string>& f : lines) {
    if (f.size() == 2 && f[0] == kMadeCgroup) made.push_back(f[1]);
    if (f.size() != 3 || f[0] != kMovedProcess) continue;
    const int pid = std::atoi(f[1].c_str());
    std::string to = fs->Exists(f[2]) ? f[2] : host.parts().cpu_root;
    if (fallback == host.parts().cpu_root) fallback = to;
    if (pid <= 0 || !Alive(fs, pid)) continue;  // exited meanwhile.
    Status s = MoveProcess(fs, to, pid);
    if (s.code() != StatusCode::kNotFound) keep(s);
  }
  // Deepest first. Processes the adopted ones started meanwhile are still
  // in the cgroup; they go where the first adopted process came from.
  std::sort(made.begin(), made.end(),
            [](const std::string& a, const std::string& b) {
              return a.size() > b.size();
            });
  for (const std::string& dir : made) {
    if (!fs->Exists(dir)) continue;
    if (Result<std::string> procs = fs->Read(dir + "/cgroup.procs");
        procs.ok()) {
      std::stringstream in(*procs);
      int pid = 0;
      while (in >> pid) {
        Status s = MoveProcess(fs, fallback, pid);
        if (s.code() != StatusCode::kNotFound) keep(s);
      }
    }
    keep(fs->RemoveDir(dir));
  }
  return first;
}

}  // namespace colo::hostqos
