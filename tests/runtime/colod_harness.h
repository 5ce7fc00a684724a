// tests/runtime/colod_harness.h — starts colod and CUDA programs as real
// processes for the integration tests: sockets in a private temp dir, every
// wait bounded in time, every process killed by PID when a test ends.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ipc/runtime_client.h"

namespace colo::testing {

inline const std::string kBin = COLO_BINARY_DIR;
inline const std::string kColod = kBin + "/colod";
inline const std::string kPreload = kBin + "/libcolo_preload.so";
inline std::string Program(const std::string& name) {
  return kBin + "/tests/cuda_programs/" + name;
}
inline bool ProgramsBuilt() {
  return access(Program("infer_loop").c_str(), X_OK) == 0;
}

// Skips the calling test when the CUDA test programs were not built.
#define SKIP_WITHOUT_PROGRAMS() \
  if (!ProgramsBuilt())         \
  GTEST_SKIP() << "the CUDA test programs were not built (no nvcc)"

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Polls `pred` every 5 ms until true or `timeout`; returns the last value.
inline bool WaitFor(const std::function<bool()>& pred,
                    std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pred();
}

// The number after "key=" in `text`, or NaN.
inline double NumberOf(const std::string& text, const std::string& key) {
  size_t p = text.find(key + "=");
  if (p == std::string::npos) return std::nan("");
  return std::strtod(text.c_str() + p + key.size() + 1, nullptr);
}

// The integer after "key=" in `text` (its integer part), or -1.
inline long ValueOf(const std::string& text, const std::string& key) {
  const double n = NumberOf(text, key);
  return std::isnan(n) ? -1 : static_cast<long>(n);
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/colo-test-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A child process with stdout/stderr in files.
class Process {
 public:
  Process(const std::vector<std::string>& argv,
          const std::map<std::string, std::string>& env,
          const std::string& out_path, const std::string& err_path)
      : out_path_(out_path), err_path_(err_path) {
    pid_ = fork();
    if (pid_ == 0) {
      for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
      int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(out, 1);
      dup2(err, 2);
      std::vector<char*> args;
      for (const std::string& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
  }
  ~Process() { Kill(); }
  pid_t pid() const { return pid_; }
  std::string Output() const { return ReadFile(out_path_); }
  std::string Errors() const { return ReadFile(err_path_); }

  // Exit code (128+signal if killed), or -1 if it did not end in `timeout`
  // (then it is killed).
  int Wait(std::chrono::milliseconds timeout) {
    if (!WaitFor([&] { return Ended(); }, timeout)) {
      Kill();
      return -1;
    }
    return status_;
  }
  // Whether it has ended (its exit code is then Wait's); never kills it.
  bool Ended() {
    if (done_) return true;
    int st = 0;
    if (waitpid(pid_, &st, WNOHANG) != pid_) return false;
    done_ = true;
    status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return true;
  }
  void Signal(int sig) {
    if (!done_ && pid_ > 0) kill(pid_, sig);
  }
  void Kill() {
    if (done_ || pid_ <= 0) return;
    kill(pid_, SIGKILL);
    int st;
    waitpid(pid_, &st, 0);
    done_ = true;
    status_ = 128 + SIGKILL;
  }

 private:
  pid_t pid_ = -1;
  std::string out_path_;
  std::string err_path_;
  bool done_ = false;
  int status_ = -1;
};

class Colod {
 public:
  // Writes `config` (the socket line is added) and starts colod.
  Colod(const TempDir& dir, const std::string& config,
        const std::string& name = "colod")
      : socket_(dir.path() + "/" + name + ".sock"),
        log_(dir.path() + "/" + name + ".log") {
    const std::string cfg = dir.path() + "/" + name + ".yaml";
    // A socket left by a killed colod would look ready before the new one
    // binds.
    unlink(socket_.c_str());
    std::ofstream(cfg) << "socket: " << socket_ << "\n" << config;
    proc_ = std::make_unique<Process>(
        std::vector<std::string>{kColod, "--config", cfg},
        std::map<std::string, std::string>{}, dir.path() + "/" + name + ".out",
        log_);
    ready_ = WaitFor([&] { return access(socket_.c_str(), F_OK) == 0; },
                     std::chrono::seconds(10));
  }
  bool ready() const { return ready_; }
  const std::string& socket() const { return socket_; }
  std::string Log() const { return ReadFile(log_); }
  bool LogHas(const std::string& s) const {
    return WaitFor([&] { return Log().find(s) != std::string::npos; },
                   std::chrono::seconds(5));
  }
  Process& process() { return *proc_; }

  // colod's state (the `colo top` JSON); null on failure.
  nlohmann::json Stats() const {
    ipc::ClientOptions o;
    o.socket_path = socket_;
    o.role = ipc::ClientRole::kMonitor;
    auto c = ipc::RuntimeClient::Connect(o);
    if (!c.ok()) return nullptr;
    auto s = (*c)->Stats();
    if (!s.ok()) return nullptr;
    return nlohmann::json::parse(*s, nullptr, false);
  }
  bool StatsReach(
      const std::function<bool(const nlohmann::json&)>& pred) const {
    return WaitFor(
        [&] {
          nlohmann::json j = Stats();
          return !j.is_null() && !j.is_discarded() && pred(j);
        },
        std::chrono::seconds(10));
  }

  // Runs a CUDA program under the interposer against this colod.
  std::unique_ptr<Process> Run(
      const TempDir& dir, const std::string& tag, std::vector<std::string> argv,
      std::map<std::string, std::string> env = {}) const {
    env["LD_PRELOAD"] = kPreload;
    env["COLO_SOCKET"] = socket_;
    return std::make_unique<Process>(argv, env, dir.path() + "/" + tag + ".out",
                                     dir.path() + "/" + tag + ".err");
  }

 private:
  std::string socket_;
  std::string log_;
  std::unique_ptr<Process> proc_;
  bool ready_ = false;
};

// Options of a client that registers as an application with `colod`.
inline ipc::ClientOptions AppOptions(const Colod& colod,
                                     const std::string& program = "test") {
  ipc::ClientOptions o;
  o.socket_path = colod.socket();
  o.program = program;
  return o;
}

}  // namespace colo::testing
