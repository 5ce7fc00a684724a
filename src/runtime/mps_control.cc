#include "runtime/mps_control.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "runtime/daemon_client.h"

extern char** environ;

namespace colo::runtime {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr size_t kMaxOutput = 64 * 1024;
constexpr auto kPoll = std::chrono::milliseconds(20);
// After SIGTERM, and after SIGKILL: how long the daemon has to go.
constexpr auto kSignalGrace = std::chrono::seconds(1);
constexpr const char* kPidFile = "/nvidia-cuda-mps-control.pid";
// What the control program prints when no daemon listens on its pipe
// directory (it exits 1 then).
constexpr const char* kNoDaemon = "Cannot find MPS control daemon";

std::string Ms(Duration d) {
  return std::to_string(
             std::chrono::duration_cast<std::chrono::milliseconds>(d).count()) +
         " ms";
}

SteadyClock::duration Steady(Duration d) {
  return std::chrono::duration_cast<SteadyClock::duration>(d);
}

// The control program's words for a message: one line, at most 300 bytes.
std::string Quote(std::string text) {
  while (!text.empty() &&
         std::isspace(static_cast<unsigned char>(text.back()))) {
    text.pop_back();
  }
  if (text.empty()) return "no output";
  if (text.size() > 300) text = text.substr(0, 300) + "...";
  return "'" + EscapeControlCharacters(text) + "'";
}

// The PID in `<pipe_dir>/nvidia-cuda-mps-control.pid`, 0 if none.
pid_t ReadPidFile(const std::string& pipe_dir) {
  std::ifstream in(pipe_dir + kPidFile);
  long pid = 0;
  if (!(in >> pid) || pid <= 0 || pid > INT_MAX) return 0;
  return static_cast<pid_t>(pid);
}

// Whether `pid` is a process that has not ended (a zombie has: a daemon is
// not colod's child, and whoever reaps it may be slow).
bool Alive(pid_t pid) {
  if (pid <= 0) return false;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return kill(pid, 0) == 0 || errno == EPERM;
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return true;
  const char state = stat[paren + 2];
  return state != 'Z' && state != 'X';
}

// Whether `pid` runs the control program: its command line names it. A
// PID file may outlive its daemon, and its number may be another
// process's by now.
bool IsControlProgram(pid_t pid, const std::string& control_path) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline",
                   std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string name =
      std::filesystem::path(control_path).filename().string();
  return !name.empty() && ss.str().find(name) != std::string::npos;
}

// "NAME=value" for execve.
std::string EnvEntry(const char* name, const std::string& value) {
  return std::string(name) + "=" + value;
}

}  // namespace

const char* MpsModeName(MpsMode mode) {
  switch (mode) {
    case MpsMode::kOff:
      return "off";
    case MpsMode::kExternal:
      return "external";
    case MpsMode::kManaged:
      return "managed";
  }
  return "off";
}

std::string MpsPipeDir(const MpsSettings& s, const std::string& socket_path) {
  if (!s.pipe_dir.empty()) return s.pipe_dir;
  if (s.mode == MpsMode::kExternal) return "/tmp/nvidia-mps";
  return socket_path + ".mps/pipe";
}

std::string MpsLogDir(const MpsSettings& s, const std::string& socket_path) {
  if (s.mode != MpsMode::kManaged) return "";
  if (!s.log_dir.empty()) return s.log_dir;
  return socket_path + ".mps/log";
}

std::string FindMpsControl(const std::string& name) {
  auto executable = [](const std::string& p) {
    std::error_code ec;
    return std::filesystem::is_regular_file(p, ec) &&
           access(p.c_str(), X_OK) == 0;
  };
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return executable(name) ? name : "";
  const char* path = std::getenv("PATH");
  const std::string dirs =
      path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  for (;;) {
    const size_t end = dirs.find(':', start);
    const std::string dir =
        dirs.substr(start, end == std::string::npos ? end : end - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (executable(candidate)) return candidate;
    if (end == std::string::npos) return "";
    start = end + 1;
  }
}

Result<MpsCommandResult> RunMpsCommand(const std::string& program,
                                       const std::vector<std::string>& args,
                                       std::string_view input,
                                       const std::string& pipe_dir,
                                       const std::string& log_dir,
                                       Duration timeout) {
  // Everything the child needs is built before fork: after it, only
  // async-signal-safe calls (colod may have other threads).
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "CUDA_MPS_PIPE_DIRECTORY=", 24) == 0 ||
        std::strncmp(*e, "CUDA_MPS_LOG_DIRECTORY=", 23) == 0) {
      continue;
    }
    env.emplace_back(*e);
  }
  env.push_back(EnvEntry("CUDA_MPS_PIPE_DIRECTORY", pipe_dir));
  if (!log_dir.empty())
    env.push_back(EnvEntry("CUDA_MPS_LOG_DIRECTORY", log_dir));
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_storage{program};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);

  // stdin from a file in memory, not a pipe: a program that exits without
  // reading it cannot make colod's write fail (or raise SIGPIPE).
  const int in_fd = memfd_create("colod-mps-command", MFD_CLOEXEC);
  if (in_fd < 0)
    return InternalError(std::string("memfd_create: ") + std::strerror(errno));
  if (write(in_fd, input.data(), input.size()) !=
          static_cast<ssize_t>(input.size()) ||
      lseek(in_fd, 0, SEEK_SET) != 0) {
    const int err = errno;
    close(in_fd);
    return InternalError(std::string("writing the command: ") +
                         std::strerror(err));
  }
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    const int err = errno;
    close(in_fd);
    return InternalError(std::string("pipe2: ") + std::strerror(err));
  }
  const pid_t pid = fork();
  if (pid < 0) {
    const int err = errno;
    close(in_fd);
    close(out[0]);
    close(out[1]);
    return InternalError(std::string("fork: ") + std::strerror(err));
  }
  if (pid == 0) {
    dup2(in_fd, 0);
    dup2(out[1], 1);
    dup2(out[1], 2);
    // colod's socket, lock file and clients' descriptors stay colod's: a
    // daemon that kept the lock file would keep the next colod out.
    close_range(3, ~0U, 0);
    // As a fresh process: colod ignores SIGPIPE and blocks its stop
    // signals, which exec would hand on to the daemon.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(in_fd);
  close(out[1]);
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  MpsCommandResult r;
  auto drain = [&] {
    char buf[4096];
    for (;;) {
      const ssize_t n = read(out[0], buf, sizeof buf);
      if (n <= 0) return;
      if (r.output.size() < kMaxOutput) {
        r.output.append(buf, std::min(static_cast<size_t>(n),
                                      kMaxOutput - r.output.size()));
      }
    }
  };
  const auto deadline = SteadyClock::now() + Steady(timeout);
  int status = 0;
  for (;;) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      close(out[0]);
      return InternalError(std::string("waitpid: ") + std::strerror(errno));
    }
    if (SteadyClock::now() >= deadline) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      drain();
      close(out[0]);
      return UnavailableError("'" + program + "' did not finish within " +
                              Ms(timeout) + " (" + Quote(r.output) +
                              "); colod killed it");
    }
    pollfd p{out[0], POLLIN, 0};
    poll(&p, 1, 10);
    drain();
  }
  // Not until the output closes: `-d`'s daemon may hold it open.
  drain();
  close(out[0]);
  r.exit_status = WIFEXITED(status)     ? WEXITSTATUS(status)
                  : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                        : -1;
  return r;
}

Result<std::unique_ptr<MpsControl>> MpsControl::Start(
    const MpsSettings& settings, const std::string& socket_path) {
  std::unique_ptr<MpsControl> m(new MpsControl(settings));
  if (settings.mode == MpsMode::kOff) return m;
  m->pipe_dir_ = MpsPipeDir(settings, socket_path);
  m->log_dir_ = MpsLogDir(settings, socket_path);
  if (m->pipe_dir_.size() + kMpsLongestSocket.size() > kMaxMpsSocketPath) {
    return InvalidArgumentError(
        "mps: the MPS pipe directory " + m->pipe_dir_ + " is too long: its " +
        std::string(kMpsLongestSocket.substr(1)) +
        " socket must fit a unix socket path (" +
        std::to_string(kMaxMpsSocketPath) +
        " bytes), so the daemon could not listen there; give a shorter "
        "mps_pipe_dir");
  }
  m->control_path_ = FindMpsControl(settings.control);
  if (m->control_path_.empty()) {
    const char* path = std::getenv("PATH");
    return FailedPreconditionError(
        std::string("mps: ") + MpsModeName(settings.mode) +
        ": the MPS control program '" + settings.control + "' " +
        (settings.control.find('/') != std::string::npos
             ? "is not an executable file"
             : "is not on PATH (" + std::string(path ? path : "") + ")") +
        ": install the NVIDIA driver's MPS tools (nvidia-cuda-mps-control, "
        "part of the driver; Ubuntu: nvidia-compute-utils-<version>) or give "
        "its path as "
        "mps_control");
  }
  COLO_RETURN_IF_ERROR(settings.mode == MpsMode::kManaged ? m->StartManaged()
                                                          : m->CheckExternal());
  return m;
}

MpsControl::~MpsControl() { (void)Stop(); }

bool MpsControl::Answers(std::string* why) const {
  Result<MpsCommandResult> r =
      RunMpsCommand(control_path_, {}, "get_server_list\n", pipe_dir_, log_dir_,
                    settings_.command_timeout);
  if (!r.ok()) {
    if (why) *why = r.status().message();
    return false;
  }
  if (r->exit_status == 0 && r->output.find(kNoDaemon) == std::string::npos)
    return true;
  if (why) {
    *why = "'echo get_server_list | " + control_path_ + "' exited " +
           std::to_string(r->exit_status) + ": " + Quote(r->output);
  }
  return false;
}

Status MpsControl::CheckExternal() {
  std::string why;
  if (Answers(&why)) {
    DaemonLog("MPS: the control daemon on %s answers (mps: external)",
              pipe_dir_.c_str());
    return OkStatus();
  }
  return UnavailableError(
      "mps: external: no MPS control daemon answers on pipe directory " +
      pipe_dir_ + " (" + why +
      "). Start one first, as the user the clients run as (or root): "
      "CUDA_MPS_PIPE_DIRECTORY=" +
      pipe_dir_ + " nvidia-cuda-mps-control -d; or set mps: managed");
}

Status MpsControl::StartManaged() {
  for (const std::string& dir : {pipe_dir_, log_dir_}) {
    std::error_code ec;
    if (std::filesystem::create_directories(dir, ec)) {
      chmod(dir.c_str(), 0755);
    } else if (ec || !std::filesystem::is_directory(dir, ec)) {
      return FailedPreconditionError(
          "mps: managed: cannot create the directory " + dir + ": " +
          (ec ? ec.message() : "it exists and is not a directory"));
    }
  }
  const std::string quit_hint =
      "stop it (echo quit | CUDA_MPS_PIPE_DIRECTORY=" + pipe_dir_ +
      " nvidia-cuda-mps-control), give colod "
      "another mps_pipe_dir, or share it with "
      "mps: external";
  // colod stops what it starts: a daemon already there is someone else's.
  if (const pid_t other = ReadPidFile(pipe_dir_);
      Alive(other) && IsControlProgram(other, control_path_)) {
    return FailedPreconditionError(
        "mps: managed: an MPS control daemon (pid " + std::to_string(other) +
        ") already runs on pipe directory " + pipe_dir_ + "; " + quit_hint);
  }
  if (Answers(nullptr)) {
    return FailedPreconditionError(
        "mps: managed: an MPS control daemon already answers on pipe "
        "directory " +
        pipe_dir_ + "; " + quit_hint);
  }
  const auto start = SteadyClock::now();
  const auto deadline = start + Steady(settings_.start_timeout);
  Result<MpsCommandResult> d = RunMpsCommand(
      control_path_, {"-d"}, "", pipe_dir_, log_dir_, settings_.start_timeout);
  if (!d.ok()) {
    return UnavailableError("mps: managed: " + d.status().message() + "; see " +
                            log_dir_ + "/control.log");
  }
  if (d->exit_status != 0) {
    if (d->output.find("already running") != std::string::npos) {
      return FailedPreconditionError(
          "mps: managed: '" + control_path_ + " -d' says " + Quote(d->output) +
          ": an MPS control daemon already runs on pipe directory " +
          pipe_dir_ + "; " + quit_hint);
    }
    return UnavailableError(
        "mps: managed: '" + control_path_ + " -d' failed (exit " +
        std::to_string(d->exit_status) + ": " + Quote(d->output) + "); see " +
        log_dir_ + "/control.log");
  }
  std::string why =
      "its PID file " + pipe_dir_ + kPidFile + " never named a live process";
  pid_t pid = 0;
  for (;;) {
    pid = ReadPidFile(pipe_dir_);
    if (Alive(pid) && IsControlProgram(pid, control_path_)) {
      if (Answers(&why)) break;
    } else {
      pid = 0;
    }
    if (SteadyClock::now() >= deadline) {
      std::string stopped;
      if (pid != 0) {
        daemon_pid_ = pid;
        stopped =
            KillDaemon()
                ? "; colod stopped it (pid " + std::to_string(pid) + ")"
                : "; colod could not stop it (pid " + std::to_string(pid) + ")";
        daemon_pid_ = 0;
      }
      stopped_ = true;
      return UnavailableError(
          "mps: managed: the MPS control daemon that '" + control_path_ +
          " -d' started did not answer within " + Ms(settings_.start_timeout) +
          " (" + why + "); see " + log_dir_ + "/control.log" + stopped);
    }
    std::this_thread::sleep_for(kPoll);
  }
  daemon_pid_ = pid;
  DaemonLog(
      "MPS: started the control daemon (pid %d, %s -d) on %s, logs in "
      "%s, in %lld ms",
      static_cast<int>(pid), control_path_.c_str(), pipe_dir_.c_str(),
      log_dir_.c_str(),
      static_cast<long long>(
          std::chrono::duration_cast<std::chrono::milliseconds>(
              SteadyClock::now() - start)
              .count()));
  return OkStatus();
}

bool MpsControl::KillDaemon() {
  for (int sig : {SIGTERM, SIGKILL}) {
    if (!Alive(daemon_pid_)) return true;
    if (!IsControlProgram(daemon_pid_, control_path_)) return true;
    kill(daemon_pid_, sig);
    const auto until = SteadyClock::now() + kSignalGrace;
    while (Alive(daemon_pid_) && SteadyClock::now() < until) {
      std::this_thread::sleep_for(kPoll);
    }
  }
  return !Alive(daemon_pid_);
}

Status MpsControl::Stop() {
  if (settings_.mode != MpsMode::kManaged || stopped_) return OkStatus();
  stopped_ = true;
  const pid_t pid = daemon_pid_;
  if (pid == 0) return OkStatus();
  if (!Alive(pid)) {
    DaemonLog("MPS: the control daemon (pid %d) had already gone",
              static_cast<int>(pid));
    return OkStatus();
  }
  Result<MpsCommandResult> q =
      RunMpsCommand(control_path_, {}, "quit\n", pipe_dir_, log_dir_,
                    settings_.command_timeout);
  const auto deadline = SteadyClock::now() + Steady(settings_.stop_timeout);
  while (Alive(pid) && SteadyClock::now() < deadline) {
    std::this_thread::sleep_for(kPoll);
  }
  if (!Alive(pid)) {
    DaemonLog("MPS: the control daemon (pid %d) quit", static_cast<int>(pid));
    return OkStatus();
  }
  const bool gone = KillDaemon();
  DaemonLog(
      "MPS: the control daemon (pid %d) did not quit within %s (quit: %s); "
      "%s",
      static_cast<int>(pid), Ms(settings_.stop_timeout).c_str(),
      q.ok() ? Quote(q->output).c_str() : q.status().message().c_str(),
      gone ? "colod stopped it by its PID"
           : "it survived SIGKILL: stop it by hand");
  if (!gone) {
    return InternalError("MPS control daemon (pid " + std::to_string(pid) +
                         ") survived SIGTERM and SIGKILL");
  }
  return OkStatus();
}

}  // namespace colo::runtime
