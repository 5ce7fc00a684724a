// colod's MPS control daemon (src/runtime/mps_control.h) without a GPU or
// NVIDIA's MPS: a fake nvidia-cuda-mps-control, written by each test into
// its temp folder, behaves as the real one does for what colod uses. With
// `-d` it starts a daemon (itself, with a private argument) that writes its
// PID to <pipe>/nvidia-cuda-mps-control.pid, records the directories it was
// given in <log>/control.log, and stops on `quit` (removing the PID file);
// a second `-d` on the same pipe directory says "An instance of this daemon
// is already running" and exits 1; as a client it answers get_server_list
// (exit 0) while the daemon runs, else prints "Cannot find MPS control
// daemon process" and exits 1. Variants: a daemon that never answers, one
// that ignores `quit`, one that also ignores SIGTERM.
//
// Every wait is bounded; every daemon a test starts is killed by its PID at
// the end, and "gone" means no running process has that PID (a zombie that
// nobody reaped yet has ended).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "colo/gpu_spec.h"
#include "colod_harness.h"
#include "runtime/daemon.h"
#include "runtime/daemon_config.h"
#include "runtime/mps_control.h"

namespace colo::runtime {
namespace {

using colo::testing::kBin;
using colo::testing::kColod;
using colo::testing::Process;
using colo::testing::ReadFile;
using colo::testing::TempDir;
using colo::testing::WaitFor;
using std::chrono::milliseconds;
using std::chrono::seconds;

const std::string kColo = kBin + "/colo";

struct FakeBehaviour {
  bool answers = true;     // the client finds the daemon.
  bool obeys_quit = true;  // `quit` stops the daemon.
  bool obeys_term = true;  // SIGTERM stops the daemon.
};

// Writes the fake control program as <dir>/nvidia-cuda-mps-control.
std::string WriteFakeControl(const std::string& dir, FakeBehaviour b = {}) {
  const std::string path = dir + "/nvidia-cuda-mps-control";
  std::ofstream f(path);
  f << "#!/bin/sh\n"
       "pipe=\"${CUDA_MPS_PIPE_DIRECTORY:-/tmp/nvidia-mps}\"\n"
       "log=\"${CUDA_MPS_LOG_DIRECTORY:-/var/log/nvidia-mps}\"\n"
       "pidfile=\"$pipe/nvidia-cuda-mps-control.pid\"\n"
       "running() { [ -f \"$pidfile\" ] && "
       "kill -0 \"$(cat \"$pidfile\")\" 2>/dev/null; }\n"
       "case \"$1\" in\n"
       "  __daemon)\n"
    << (b.obeys_term ? "" : "    trap '' TERM\n")
    << "    echo $$ > \"$pidfile\"\n"
       "    : > \"$pipe/control\"\n"
       "    while [ ! -e \"$pipe/quit\" ]; do sleep 0.02; done\n"
       "    rm -f \"$pipe/quit\" \"$pidfile\"\n"
       "    exit 0 ;;\n"
       "  -d)\n"
       "    if running; then\n"
       "      echo 'An instance of this daemon is already running'; exit 1\n"
       "    fi\n"
       "    printf 'pipe=%s\\nlog=%s\\n' \"$CUDA_MPS_PIPE_DIRECTORY\" "
       "\"$CUDA_MPS_LOG_DIRECTORY\" > \"$log/control.log\"\n"
       "    \"$0\" __daemon </dev/null >/dev/null 2>&1 &\n"
       "    exit 0 ;;\n"
       "esac\n"
    << (b.answers ? "" : "running() { false; }\n")
    << "if ! running; then\n"
       "  echo 'Cannot find MPS control daemon process'; exit 1\n"
       "fi\n"
       "while read -r cmd; do\n"
       "  case \"$cmd\" in\n"
       "    get_server_list) ;;\n"
    << (b.obeys_quit ? "    quit) : > \"$pipe/quit\" ;;\n" : "")
    << "  esac\n"
       "done\n"
       "exit 0\n";
  f.close();
  chmod(path.c_str(), 0755);
  return path;
}

// Whether `pid` is a process that has not ended.
bool Running(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (pid <= 0 || !std::getline(in, stat)) return false;
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() &&
         stat[paren + 2] != 'Z' && stat[paren + 2] != 'X';
}

pid_t PidFile(const std::string& pipe_dir) {
  std::ifstream in(pipe_dir + "/nvidia-cuda-mps-control.pid");
  long pid = 0;
  in >> pid;
  return static_cast<pid_t>(pid);
}

// Kills `pid` (a daemon a test started) and waits, bounded, until it ended.
void KillByPid(pid_t pid) {
  if (pid <= 0) return;
  kill(pid, SIGKILL);
  WaitFor([&] { return !Running(pid); }, seconds(5));
}

// A daemon started by hand, as an operator would (mps: external, or one in
// colod's way), killed by its PID when the test ends.
class HandStartedDaemon {
 public:
  HandStartedDaemon(const std::string& control, const std::string& pipe,
                    const std::string& log) {
    std::filesystem::create_directories(pipe);
    std::filesystem::create_directories(log);
    Result<MpsCommandResult> r =
        RunMpsCommand(control, {"-d"}, "", pipe, log, Seconds(5));
    ok_ = r.ok() && r->exit_status == 0 &&
          WaitFor([&] { return Running(PidFile(pipe)); }, seconds(5));
    pid_ = PidFile(pipe);
  }
  ~HandStartedDaemon() { KillByPid(pid_); }
  bool ok() const { return ok_; }
  pid_t pid() const { return pid_; }

 private:
  bool ok_ = false;
  pid_t pid_ = 0;
};

class ColodMpsTest : public ::testing::Test {
 protected:
  MpsSettings Managed(const std::string& control) const {
    MpsSettings s;
    s.mode = MpsMode::kManaged;
    s.control = control;
    s.pipe_dir = pipe();
    s.log_dir = log();
    return s;
  }
  std::string pipe() const { return dir_.path() + "/pipe"; }
  std::string log() const { return dir_.path() + "/log"; }
  std::string socket() const { return dir_.path() + "/colod.sock"; }

  TempDir dir_;
};

// Managed: the daemon gets both directories in its environment (it wrote
// them to control.log), its PID file names it, and colod's Stop sends
// `quit`: the fake removes its PID file only on quit, so a PID file gone
// with the process says it quit rather than was killed.
TEST_F(ColodMpsTest, ManagedStartsTheDaemonWithItsDirectoriesAndQuitsIt) {
  const std::string control = WriteFakeControl(dir_.path());
  Result<std::unique_ptr<MpsControl>> m =
      MpsControl::Start(Managed(control), socket());
  ASSERT_TRUE(m.ok()) << m.status().message();
  const pid_t pid = (*m)->daemon_pid();
  ASSERT_GT(pid, 0);
  EXPECT_EQ(PidFile(pipe()), pid);
  EXPECT_TRUE(Running(pid));
  EXPECT_EQ((*m)->pipe_dir(), pipe());
  EXPECT_EQ((*m)->log_dir(), log());
  EXPECT_EQ(ReadFile(log() + "/control.log"),
            "pipe=" + pipe() + "\nlog=" + log() + "\n");
  struct stat st {};
  ASSERT_EQ(stat(pipe().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
  EXPECT_TRUE((*m)->Stop().ok());
  EXPECT_FALSE(Running(pid));
  EXPECT_FALSE(
      std::filesystem::exists(pipe() + "/nvidia-cuda-mps-control.pid"));
  KillByPid(Running(pid) ? pid : 0);
}

// The defaults: one pipe and log directory per colod, beside its socket;
// with external, CUDA's own default pipe directory.
TEST_F(ColodMpsTest, DefaultDirectoriesFollowTheSocket) {
  MpsSettings s;
  s.mode = MpsMode::kManaged;
  EXPECT_EQ(MpsPipeDir(s, "/run/colo/colod.sock"),
            "/run/colo/colod.sock.mps/pipe");
  EXPECT_EQ(MpsLogDir(s, "/run/colo/colod.sock"),
            "/run/colo/colod.sock.mps/log");
  s.mode = MpsMode::kExternal;
  EXPECT_EQ(MpsPipeDir(s, "/run/colo/colod.sock"), "/tmp/nvidia-mps");
  EXPECT_EQ(MpsLogDir(s, "/run/colo/colod.sock"), "");
  s.pipe_dir = "/srv/mps";
  EXPECT_EQ(MpsPipeDir(s, "/run/colo/colod.sock"), "/srv/mps");
}

// A daemon that ignores `quit` is stopped by its PID (SIGTERM) after the
// stop timeout; one that ignores SIGTERM too, by SIGKILL. Its PID file
// stays: it was killed, it did not quit.
TEST_F(ColodMpsTest, StopKillsADaemonThatDoesNotQuitByItsPid) {
  for (bool obeys_term : {true, false}) {
    SCOPED_TRACE(obeys_term ? "ignores quit" : "ignores quit and SIGTERM");
    TempDir d;
    const std::string control = WriteFakeControl(
        d.path(),
        {.answers = true, .obeys_quit = false, .obeys_term = obeys_term});
    MpsSettings s = Managed(control);
    s.pipe_dir = d.path() + "/pipe";
    s.log_dir = d.path() + "/log";
    s.stop_timeout = Milliseconds(200);
    Result<std::unique_ptr<MpsControl>> m = MpsControl::Start(s, socket());
    ASSERT_TRUE(m.ok()) << m.status().message();
    const pid_t pid = (*m)->daemon_pid();
    ASSERT_TRUE(Running(pid));
    const auto begin = std::chrono::steady_clock::now();
    EXPECT_TRUE((*m)->Stop().ok());
    const auto took = std::chrono::steady_clock::now() - begin;
    EXPECT_FALSE(Running(pid));
    EXPECT_TRUE(
        std::filesystem::exists(s.pipe_dir + "/nvidia-cuda-mps-control.pid"));
    // At least the stop timeout; within it plus a second per signal sent
    // (SIGTERM's grace only when SIGTERM did not work) and slack.
    EXPECT_GE(took, milliseconds(200));
    EXPECT_LT(took, milliseconds(obeys_term ? 1200 : 2200) + seconds(2));
    KillByPid(Running(pid) ? pid : 0);
  }
}

TEST_F(ColodMpsTest, RefusesWhenTheControlProgramIsMissing) {
  Result<std::unique_ptr<MpsControl>> m = MpsControl::Start(
      Managed(dir_.path() + "/none/nvidia-cuda-mps-control"), socket());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kFailedPrecondition);
  const std::string& msg = m.status().message();
  EXPECT_NE(msg.find("mps: managed: the MPS control program '" + dir_.path() +
                     "/none/nvidia-cuda-mps-control' is not an executable "
                     "file"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("give its path as mps_control"), std::string::npos) << msg;
  // A name that is not on PATH: the message says so and shows PATH.
  Result<std::unique_ptr<MpsControl>> by_name =
      MpsControl::Start(Managed("colo-test-no-such-mps-control"), socket());
  ASSERT_FALSE(by_name.ok());
  EXPECT_NE(by_name.status().message().find(
                "'colo-test-no-such-mps-control' is not on PATH ("),
            std::string::npos)
      << by_name.status().message();
  // Nothing was started: no PID file.
  EXPECT_EQ(PidFile(pipe()), 0);
}

// `-d` returns but the daemon never answers: colod gives up after the
// start timeout, says so, and stops the daemon it started by its PID.
TEST_F(ColodMpsTest, RefusesAndStopsADaemonThatDoesNotAnswer) {
  const std::string control = WriteFakeControl(dir_.path(), {.answers = false});
  MpsSettings s = Managed(control);
  s.start_timeout = Milliseconds(500);
  const auto begin = std::chrono::steady_clock::now();
  Result<std::unique_ptr<MpsControl>> m = MpsControl::Start(s, socket());
  const auto took = std::chrono::steady_clock::now() - begin;
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kUnavailable);
  const std::string& msg = m.status().message();
  EXPECT_NE(msg.find("the MPS control daemon that '" + control +
                     " -d' started did not answer within 500 ms"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("Cannot find MPS control daemon process"),
            std::string::npos)
      << msg;
  const pid_t pid = PidFile(pipe());
  ASSERT_GT(pid, 0) << msg;
  EXPECT_NE(msg.find("colod stopped it (pid " + std::to_string(pid) + ")"),
            std::string::npos)
      << msg;
  EXPECT_FALSE(Running(pid));
  EXPECT_GE(took, milliseconds(500));
  EXPECT_LT(took, seconds(5));
  KillByPid(Running(pid) ? pid : 0);
}

// A daemon already runs on the pipe directory: colod refuses (it would stop
// someone else's daemon at exit), names the PID and what to do, and leaves
// that daemon alone.
TEST_F(ColodMpsTest, RefusesAPipeDirectoryAnotherDaemonOwns) {
  const std::string control = WriteFakeControl(dir_.path());
  HandStartedDaemon other(control, pipe(), log());
  ASSERT_TRUE(other.ok());
  Result<std::unique_ptr<MpsControl>> m =
      MpsControl::Start(Managed(control), socket());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kFailedPrecondition);
  const std::string& msg = m.status().message();
  EXPECT_NE(
      msg.find("an MPS control daemon (pid " + std::to_string(other.pid()) +
               ") already runs on pipe directory " + pipe()),
      std::string::npos)
      << msg;
  EXPECT_NE(msg.find("echo quit | CUDA_MPS_PIPE_DIRECTORY=" + pipe() +
                     " nvidia-cuda-mps-control"),
            std::string::npos)
      << msg;
  EXPECT_TRUE(Running(other.pid()));
  EXPECT_EQ(PidFile(pipe()), other.pid());
}

// External: refused, naming the command to run, while no daemon answers;
// accepted once one does, and never stopped by colod.
TEST_F(ColodMpsTest, ExternalChecksThatADaemonAnswers) {
  const std::string control = WriteFakeControl(dir_.path());
  MpsSettings s;
  s.mode = MpsMode::kExternal;
  s.control = control;
  s.pipe_dir = pipe();
  Result<std::unique_ptr<MpsControl>> none = MpsControl::Start(s, socket());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kUnavailable);
  const std::string& msg = none.status().message();
  EXPECT_NE(msg.find("mps: external: no MPS control daemon answers on pipe "
                     "directory " +
                     pipe()),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("Cannot find MPS control daemon process"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("CUDA_MPS_PIPE_DIRECTORY=" + pipe() +
                     " nvidia-cuda-mps-control -d"),
            std::string::npos)
      << msg;

  HandStartedDaemon operators(control, pipe(), log());
  ASSERT_TRUE(operators.ok());
  Result<std::unique_ptr<MpsControl>> m = MpsControl::Start(s, socket());
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ((*m)->daemon_pid(), 0);
  EXPECT_TRUE((*m)->Stop().ok());
  m->reset();
  EXPECT_TRUE(Running(operators.pid()));
}

// The config: mps keys only in gate mode, each error at its file and line.
TEST_F(ColodMpsTest, ConfigKeysAreCheckedWhereTheyAreWritten) {
  const std::string path = dir_.path() + "/c.yaml";
  auto load = [&](const std::string& yaml) {
    std::ofstream(path) << yaml;
    return LoadDaemonConfig(path);
  };
  auto error_of = [&](const std::string& yaml) {
    Result<DaemonConfig> c = load(yaml);
    return c.ok() ? std::string("(accepted)") : c.status().message();
  };
  EXPECT_EQ(error_of("device: sim\nmps: managed\n"),
            path +
                ":2: mps: applies to gate mode only (device: cuda): MPS "
                "shares a real GPU's context, and device: sim has none");
  // No device key: sim, the default.
  EXPECT_EQ(error_of("mps_pipe_dir: /srv/mps\n")
                .rfind(path + ":1: mps_pipe_dir: applies to gate mode only", 0),
            0u);
  EXPECT_EQ(error_of("device: cuda\nmps: sometimes\n"),
            path +
                ":2: mps: expected 'off', 'external' or 'managed', got "
                "'sometimes'");
  EXPECT_EQ(error_of("device: cuda\nmps_pipe_dir: /srv/mps\n"),
            path +
                ":2: mps_pipe_dir: applies with mps: external or managed, "
                "not mps: off");
  EXPECT_EQ(error_of("device: cuda\nmps: managed\nmps_pipe_dir: srv/mps\n")
                .rfind(path + ":3: mps_pipe_dir: expected an absolute "
                              "directory path",
                       0),
            0u);
  EXPECT_EQ(
      error_of("device: cuda\nmps: external\nmps_log_dir: /var/log/x\n")
          .rfind(path + ":3: mps_log_dir: applies to mps: managed only", 0),
      0u);
  EXPECT_EQ(error_of("device: cuda\nmps: managed\nmps_control: bin/mps\n")
                .rfind(path + ":3: mps_control: expected a program name", 0),
            0u);
  // 88 bytes fit (88 + "/control_privileged" = 107), 89 do not.
  const std::string fits = "/" + std::string(87, 'p');
  EXPECT_EQ(
      error_of("device: cuda\nmps: managed\nmps_pipe_dir: " + fits + "\n"),
      "(accepted)");
  EXPECT_EQ(
      error_of("device: cuda\nmps: managed\nmps_pipe_dir: " + fits + "p\n")
          .rfind(path + ":3: mps_pipe_dir: expected a path of at most "
                        "88 bytes",
                 0),
      0u);

  Result<DaemonConfig> c = load(
      "device: cuda\nmps: managed\nmps_control: /opt/nv/mps-control\n"
      "mps_pipe_dir: /srv/mps/pipe\nmps_log_dir: /srv/mps/log\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->mps.mode, MpsMode::kManaged);
  EXPECT_EQ(c->mps.control, "/opt/nv/mps-control");
  EXPECT_EQ(c->mps.pipe_dir, "/srv/mps/pipe");
  EXPECT_EQ(c->mps.log_dir, "/srv/mps/log");
  c = load("device: cuda\nmps: off\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->mps.mode, MpsMode::kOff);

  // The colod binary: a config error, exit 2, with the file and line.
  std::ofstream(path) << "socket: " << socket() << "\nmps: managed\n";
  Process colod({kColod, "--config", path}, {}, dir_.path() + "/d.out",
                dir_.path() + "/d.err");
  EXPECT_EQ(colod.Wait(seconds(10)), 2);
  EXPECT_NE(ReadFile(dir_.path() + "/d.err")
                .find("colo: error: " + path +
                      ":2: mps: applies to gate "
                      "mode only (device: cuda)"),
            std::string::npos)
      << ReadFile(dir_.path() + "/d.err");
}

// colod in gate mode (the GPU described by the A100 preset: colod never
// touches the GPU itself) with `mps: managed` and the default directories:
// it starts the daemon before serving, `colo top`'s JSON names the pipe
// directory, `colo run` hands it to the program as CUDA_MPS_PIPE_DIRECTORY,
// and the daemon is gone once colod is.
TEST_F(ColodMpsTest, ColodRunsItsClientsOverTheDaemonItStarted) {
  const std::string control = WriteFakeControl(dir_.path());
  const std::string path = dir_.path() + "/c.yaml";
  std::ofstream(path) << "socket: " << socket()
                      << "\ndevice: cuda\nmps: managed\nmps_control: "
                      << control << "\n";
  Result<DaemonConfig> config = LoadDaemonConfig(path);
  ASSERT_TRUE(config.ok()) << config.status().message();
  const std::string default_pipe = socket() + ".mps/pipe";
  const std::string default_log = socket() + ".mps/log";
  pid_t pid = 0;
  {
    Result<std::unique_ptr<Daemon>> d =
        Daemon::Create(*config, GpuPreset("A100").value());
    ASSERT_TRUE(d.ok()) << d.status().message();
    pid = PidFile(default_pipe);
    ASSERT_TRUE(Running(pid));
    EXPECT_EQ(ReadFile(default_log + "/control.log"),
              "pipe=" + default_pipe + "\nlog=" + default_log + "\n");
    std::thread run([&] { (void)(*d)->Run(); });

    ipc::ClientOptions o;
    o.socket_path = socket();
    o.role = ipc::ClientRole::kMonitor;
    o.reply_timeout = Seconds(5);
    auto top = ipc::RuntimeClient::Connect(o);
    ASSERT_TRUE(top.ok()) << top.status().message();
    Result<std::string> text = (*top)->Stats();
    ASSERT_TRUE(text.ok()) << text.status().message();
    const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
    EXPECT_EQ(j["mps"]["mode"], "managed");
    EXPECT_EQ(j["mps"]["pipe_dir"], default_pipe);
    EXPECT_EQ(j["mps"]["control_pid"], pid);

    // The program is `env`: it prints the environment colo run gave it.
    // A value of the caller's own is replaced, with a note.
    Process p({kColo, "run", "--socket", socket(), "--", "/usr/bin/env"},
              {{"CUDA_MPS_PIPE_DIRECTORY", "/tmp/somewhere-else"}},
              dir_.path() + "/env.out", dir_.path() + "/env.err");
    EXPECT_EQ(p.Wait(seconds(30)), 0) << ReadFile(dir_.path() + "/env.err");
    const std::string env = p.Output();
    EXPECT_NE(env.find("\nCUDA_MPS_PIPE_DIRECTORY=" + default_pipe + "\n"),
              std::string::npos)
        << env;
    EXPECT_NE(ReadFile(dir_.path() + "/env.err")
                  .find("CUDA_MPS_PIPE_DIRECTORY=/tmp/somewhere-else replaced "
                        "by colod's MPS pipe directory " +
                        default_pipe),
              std::string::npos)
        << ReadFile(dir_.path() + "/env.err");

    (*d)->RequestStop();
    run.join();
    EXPECT_TRUE(Running(pid));  // until colod itself is gone.
  }
  EXPECT_FALSE(Running(pid));
  EXPECT_FALSE(std::filesystem::exists(socket()));
  KillByPid(Running(pid) ? pid : 0);
}

// Without MPS, `colo run` leaves CUDA_MPS_PIPE_DIRECTORY alone: unset stays
// unset, a value of the caller's own stays.
TEST_F(ColodMpsTest, ColoRunLeavesTheEnvironmentAloneWithoutMps) {
  const std::string path = dir_.path() + "/c.yaml";
  std::ofstream(path) << "socket: " << socket() << "\ndevice: cuda\n";
  Result<DaemonConfig> config = LoadDaemonConfig(path);
  ASSERT_TRUE(config.ok()) << config.status().message();
  Result<std::unique_ptr<Daemon>> d =
      Daemon::Create(*config, GpuPreset("A100").value());
  ASSERT_TRUE(d.ok()) << d.status().message();
  std::thread run([&] { (void)(*d)->Run(); });
  unsetenv("CUDA_MPS_PIPE_DIRECTORY");
  Process unset({kColo, "run", "--socket", socket(), "--", "/usr/bin/env"}, {},
                dir_.path() + "/a.out", dir_.path() + "/a.err");
  EXPECT_EQ(unset.Wait(seconds(30)), 0) << ReadFile(dir_.path() + "/a.err");
  EXPECT_EQ(unset.Output().find("CUDA_MPS_PIPE_DIRECTORY="), std::string::npos)
      << unset.Output();
  EXPECT_NE(unset.Output().find("COLO_SOCKET=" + socket()), std::string::npos)
      << unset.Output();
  Process own({kColo, "run", "--socket", socket(), "--", "/usr/bin/env"},
              {{"CUDA_MPS_PIPE_DIRECTORY", "/tmp/mine"}},
              dir_.path() + "/b.out", dir_.path() + "/b.err");
  EXPECT_EQ(own.Wait(seconds(30)), 0) << ReadFile(dir_.path() + "/b.err");
  EXPECT_NE(own.Output().find("\nCUDA_MPS_PIPE_DIRECTORY=/tmp/mine\n"),
            std::string::npos)
      << own.Output();
  (*d)->RequestStop();
  run.join();
}

// colod refuses to start when its MPS daemon cannot be had, with the
// message of MpsControl::Start, and leaves no socket behind.
TEST_F(ColodMpsTest, ColodRefusesToStartWithoutItsDaemon) {
  const std::string path = dir_.path() + "/c.yaml";
  std::ofstream(path) << "socket: " << socket()
                      << "\ndevice: cuda\nmps: managed\nmps_control: "
                      << dir_.path() << "/missing\n";
  Result<DaemonConfig> config = LoadDaemonConfig(path);
  ASSERT_TRUE(config.ok()) << config.status().message();
  Result<std::unique_ptr<Daemon>> d =
      Daemon::Create(*config, GpuPreset("A100").value());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(
      d.status().message().find("mps: managed: the MPS control program '" +
                                dir_.path() + "/missing'"),
      std::string::npos)
      << d.status().message();
  EXPECT_FALSE(std::filesystem::exists(socket()));
}

}  // namespace
}  // namespace colo::runtime
