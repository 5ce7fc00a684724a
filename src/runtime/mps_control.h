// runtime/mps_control.h — colod's NVIDIA MPS control daemon: in gate mode
// (`device: cuda`) each client runs its kernels in its own CUDA context, and
// the driver time-slices separate contexts, so a best-effort kernel and the
// service's kernels never overlap on the GPU. Clients whose environment
// names the pipe directory of a running MPS control daemon
// (CUDA_MPS_PIPE_DIRECTORY) share one MPS server's context instead, and
// their kernels can run side by side.
//
// Modes (`mps:` in colod's config):
//   off       nothing (the default).
//   external  the operator runs the control daemon; colod checks at start
//             that one answers on the pipe directory and refuses to start
//             otherwise, saying what to run.
//   managed   colod starts `nvidia-cuda-mps-control -d` with the pipe and
//             log directories in its environment, waits (bounded) until it
//             answers, and stops it when colod stops: `quit`, then by PID
//             if it has not gone within the stop timeout.
//
// What colod uses of the control program (NVIDIA's "Multi-Process Service"
// guide and nvidia-cuda-mps-control(1)): `-d` forks the daemon and returns;
// the daemon writes its PID to `<pipe>/nvidia-cuda-mps-control.pid`
// (removed when it stops) and listens on `<pipe>/control`; without `-d` the
// program sends the commands on its stdin to the daemon and prints the
// answers, exit status 0, or prints "Cannot find MPS control daemon
// process" and exits 1 when none runs; `quit` stops the daemon (and its
// servers once their clients are done); a second `-d` on the same pipe
// directory fails ("An instance of this daemon is already running").
// The test seam is `MpsSettings::control`: any program that behaves so.
//
// Every wait is bounded; every process colod starts for a command is waited
// for, or killed by its PID and reaped when it overruns.
//
// Thread safety: MpsControl is used by one thread (colod's, at start and
// stop). RunMpsCommand may run on any thread.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"
#include "colo/time.h"

namespace colo::runtime {

enum class MpsMode { kOff, kExternal, kManaged };
// "off", "external", "managed".
const char* MpsModeName(MpsMode mode);

struct MpsSettings {
  MpsMode mode = MpsMode::kOff;  // Default: off.
  // The control program: a name looked up on PATH, or an absolute path.
  // Default: nvidia-cuda-mps-control.
  std::string control = "nvidia-cuda-mps-control";
  // Absolute paths; "" = the default (MpsPipeDir, MpsLogDir).
  std::string pipe_dir;
  std::string log_dir;
  // Managed: how long `-d` and the daemon's first answer may take.
  Duration start_timeout = Seconds(10);
  // Managed: how long the daemon may take to go after `quit` (then
  // SIGTERM, then SIGKILL, each given a second).
  Duration stop_timeout = Seconds(10);
  // One run of the control program as a client (a command on its stdin).
  Duration command_timeout = Seconds(5);
};

// A socket path's unix limit (sun_path, with its NUL): the daemon's longest
// socket in the pipe directory, `control_privileged`, must fit it, or the
// daemon starts, cannot bind and is gone.
inline constexpr size_t kMaxMpsSocketPath = 107;
inline constexpr std::string_view kMpsLongestSocket = "/control_privileged";

// The pipe directory in use: the configured one, or with `managed`
// `<socket_path>.mps/pipe` (one per colod), with `external` CUDA's default
// /tmp/nvidia-mps.
std::string MpsPipeDir(const MpsSettings& s, const std::string& socket_path);
// The log directory in use (managed only: the daemon's and its servers'
// control.log and server.log): the configured one, or
// `<socket_path>.mps/log`. "" with `external` (colod starts nothing).
std::string MpsLogDir(const MpsSettings& s, const std::string& socket_path);

// One run of the control program as a client or with `-d`.
struct MpsCommandResult {
  int exit_status = -1;  // the exit code, or 128 + the signal that ended it.
  std::string output;    // stdout and stderr together, at most 64 KiB.
};

// Runs `program` (a resolved path) with `args`, `input` on its stdin, and
// CUDA_MPS_PIPE_DIRECTORY = `pipe_dir` (and CUDA_MPS_LOG_DIRECTORY =
// `log_dir` unless "") over colod's own environment; signals and signal
// mask as a fresh process has them, no descriptor of colod's but 0-2.
// Waits for that process to exit (not for its output to close: `-d`'s
// daemon may keep it open), at most `timeout`; Unavailable "... did not
// finish within N ms" after killing it by PID. Internal if it cannot start.
Result<MpsCommandResult> RunMpsCommand(const std::string& program,
                                       const std::vector<std::string>& args,
                                       std::string_view input,
                                       const std::string& pipe_dir,
                                       const std::string& log_dir,
                                       Duration timeout);

// `name` as execvp would find it: itself if it holds a '/', else the first
// executable regular file of that name on $PATH. "" if none.
std::string FindMpsControl(const std::string& name);

class MpsControl {
 public:
  // kOff: an object that does nothing. kExternal: checks that a daemon
  // answers on the pipe directory. kManaged: creates the pipe and log
  // directories (0755: clients of other users connect in the pipe
  // directory), refuses a pipe directory where a daemon already runs (its
  // PID file names a live process, or it answers), starts the daemon, and
  // waits until its PID file names a live process and it answers
  // `get_server_list`. FailedPrecondition / Unavailable on failure, each
  // message naming the program, what failed and what the operator can do;
  // a daemon started and not answering is stopped by PID first.
  // InvalidArgument for a pipe directory too long for its sockets.
  static Result<std::unique_ptr<MpsControl>> Start(
      const MpsSettings& settings, const std::string& socket_path);

  // Managed: Stop().
  ~MpsControl();
  MpsControl(const MpsControl&) = delete;
  MpsControl& operator=(const MpsControl&) = delete;

  // Managed: sends `quit`, waits for the daemon's PID to go (bounded), then
  // SIGTERM and SIGKILL by PID, checking each time that the PID is still
  // the control program (/proc/PID/cmdline). Logs what it did; OK once the
  // daemon is gone (also when it had gone already). Once only; no-op for
  // the other modes.
  Status Stop();

  MpsMode mode() const { return settings_.mode; }
  const std::string& pipe_dir() const { return pipe_dir_; }
  const std::string& log_dir() const { return log_dir_; }
  const std::string& control_path() const { return control_path_; }
  // Managed: the daemon's PID (from its PID file); 0 otherwise.
  pid_t daemon_pid() const { return daemon_pid_; }

 private:
  explicit MpsControl(const MpsSettings& settings) : settings_(settings) {}
  // Whether a daemon answers `get_server_list` on pipe_dir_; `why` gets the
  // control program's words when it does not.
  bool Answers(std::string* why) const;
  Status StartManaged();
  Status CheckExternal();
  // SIGTERM, then SIGKILL, to daemon_pid_ while it is the control program;
  // true once it is gone.
  bool KillDaemon();

  MpsSettings settings_;
  std::string pipe_dir_;
  std::string log_dir_;
  std::string control_path_;
  pid_t daemon_pid_ = 0;
  bool stopped_ = false;
};

}  // namespace colo::runtime
