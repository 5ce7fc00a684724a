// bench/colod_process.h — for benchmarks: starts colod on a private socket,
// runs a program under libcolo_preload.so against it, and stops colod by its
// PID. Every wait is bounded. Not thread-safe (one run at a time).
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace colo::bench {

inline const std::string kBin = COLO_BINARY_DIR;

// colod with `config` (the socket line is added) in a fresh temp dir.
class ColodProcess {
 public:
  explicit ColodProcess(const std::string& config) {
    char tmpl[] = "/tmp/colo-bench-XXXXXX";
    dir_ = mkdtemp(tmpl);
    socket_ = dir_ + "/colod.sock";
    std::ofstream(dir_ + "/c.yaml") << "socket: " << socket_ << "\n" << config;
    pid_ = fork();
    if (pid_ == 0) {
      if (freopen("/dev/null", "w", stderr) == nullptr) _exit(126);
      execl((kBin + "/colod").c_str(), "colod", "--config",
            (dir_ + "/c.yaml").c_str(), nullptr);
      _exit(127);
    }
    for (int i = 0; i < 1000 && access(socket_.c_str(), F_OK) != 0; ++i)
      usleep(10000);
  }
  ~ColodProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int st;
      waitpid(pid_, &st, 0);
    }
    const std::string rm = "rm -rf " + dir_;
    if (std::system(rm.c_str()) != 0)
      std::fprintf(stderr, "could not remove %s\n", dir_.c_str());
  }
  ColodProcess(const ColodProcess&) = delete;
  ColodProcess& operator=(const ColodProcess&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& socket() const { return socket_; }

  // Runs `program_and_args` (a shell word list) under the interposer with a
  // 120 s limit; returns its stdout.
  std::string Run(const std::string& program_and_args) const {
    const std::string cmd = "COLO_SOCKET=" + socket_ + " LD_PRELOAD=" + kBin +
                            "/libcolo_preload.so timeout 120 " +
                            program_and_args;
    std::string out;
    if (FILE* p = popen(cmd.c_str(), "r")) {
      char buf[256];
      while (std::fgets(buf, sizeof(buf), p)) out += buf;
      pclose(p);
    }
    return out;
  }

 private:
  std::string dir_;
  std::string socket_;
  pid_t pid_ = -1;
};

// The number after "key=" in `out`, or -1.
inline double Field(const std::string& out, const std::string& key) {
  size_t p = out.find(key + "=");
  return p == std::string::npos ? -1
                                : std::atof(out.c_str() + p + key.size() + 1);
}

}  // namespace colo::bench
