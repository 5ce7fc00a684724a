// hostqos/aggressor_cgroups.h — the aggressors an operator names, turned
// into cgroups of the CPU hierarchy the agent can throttle:
//
//  * a cgroup ("batch/hog"): used as it is;
//  * a systemd unit ("hog.service", "batch.slice"): the cgroup systemd made
//    for it, looked for under system.slice/, then user.slice/, then the
//    hierarchy's root (where slices live); NotFound naming every place
//    looked when the unit has none (not running, or not under systemd);
//  * processes ("123,456"): the agent makes the cgroup
//    "colo-hostqos/pid-<first pid>" and moves the processes into it.
//
// Adopting processes changes the host, so every change is recorded through
// `record` *before* it is made: "made\t<dir>" for a cgroup created and
// "moved\t<pid>\t<original dir>" for a process moved. UndoAdoption() reads
// those lines back (from the agent's state file, also after a kill -9):
// each process still alive goes back to its original cgroup, and each
// cgroup made is removed, deepest first.
//
// Thread safety: none; the agent's thread uses it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "colo/status.h"
#include "hostqos/linux_host.h"
#include "hostqos/sys_fs.h"

namespace colo::hostqos {

// State file kinds written here (see the header comment).
inline constexpr char kMadeCgroup[] = "made";
inline constexpr char kMovedProcess[] = "moved";

// The cgroup (relative to the CPU hierarchy's root) of systemd unit `unit`.
// InvalidArgument for a name that is not a unit ("hog" without a suffix
// among .service .scope .slice), NotFound when no cgroup exists for it.
Result<std::string> UnitCgroup(SysFs* fs, const LinuxHost& host,
                               const std::string& unit);

// The cgroup of process `pid` in the CPU hierarchy, relative to its root
// ("" for the root), from /proc/<pid>/cgroup: the "0::" line on cgroup v2,
// the line whose controllers include "cpu" on v1. NotFound if the process
// does not exist.
Result<std::string> ProcessCgroup(SysFs* fs, const LinuxHost& host, int pid);

// "123,456" -> {123, 456}. InvalidArgument for anything but positive
// integers separated by commas.
Result<std::vector<int>> ParsePidList(const std::string& text);

// Makes "colo-hostqos/pid-<pids[0]>" and moves `pids` into it, recording
// each change before making it. Returns the cgroup's name. NotFound if a
// process does not exist (nothing moved yet is left moved: the caller's
// UndoAdoption restores the rest); FailedPrecondition without cgroups.
Result<std::string> AdoptProcesses(
    SysFs* fs, const LinuxHost& host, const std::vector<int>& pids,
    const std::function<Status(const std::string&)>& record);

// Undoes the "made" and "moved" lines of a state file's `lines` (tab-
// separated fields, the kind first). Processes that exited are skipped.
// Returns the first failure, after trying everything.
Status UndoAdoption(SysFs* fs, const LinuxHost& host,
                    const std::vector<std::vector<std::string>>& lines);

}  // namespace colo::hostqos
