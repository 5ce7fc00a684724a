// Runs the built `colo` executable (COLO_BINARY_DIR/colo) as a child process,
// without a shell, and collects its exit status, stdout and stderr. For the
// command-line tests. Test-only.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace colo::test {

struct ProcessResult {
  int exit_code = -1;  // -1: did not start or did not exit normally.
  int signal = 0;      // the signal that ended it, if one did (6: an abort).
  std::string out;
  std::string err;
};

inline std::string ReadWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The child's environment: this process's, with XDG_DATA_HOME set to
// `scratch`/xdg-data (colo sim, plan and predict eval record their runs
// under it, never in the user's home), then `extra_env` ("NAME=value")
// replacing what it names.
inline std::vector<std::string> ChildEnvironment(
    const std::filesystem::path& scratch,
    const std::vector<std::string>& extra_env) {
  // Each name once, the first setting of it kept.
  std::vector<std::string> env;
  auto add = [&](const std::string& entry) {
    const std::string name = entry.substr(0, entry.find('=') + 1);
    for (const std::string& e : env)
      if (e.compare(0, name.size(), name) == 0) return;
    env.push_back(entry);
  };
  for (const std::string& e : extra_env) add(e);
  add("XDG_DATA_HOME=" + (scratch / "xdg-data").string());
  for (char** e = environ; *e != nullptr; ++e) add(*e);
  return env;
}

// Runs `colo args...` with stdout and stderr captured in files under
// `scratch` (so that a large output cannot block on a full pipe), in
// ChildEnvironment(scratch, extra_env). With `address_space_bytes` > 0, the
// child runs under that RLIMIT_AS (`ulimit -v`), so that its allocations
// fail beyond it.
inline ProcessResult RunColo(const std::vector<std::string>& args,
                             const std::filesystem::path& scratch,
                             rlim_t address_space_bytes = 0,
                             const std::vector<std::string>& extra_env = {}) {
  static int call = 0;
  ++call;
  const std::string binary = std::string(COLO_BINARY_DIR) + "/colo";
  const std::string out_path =
      (scratch / ("stdout-" + std::to_string(call))).string();
  const std::string err_path =
      (scratch / ("stderr-" + std::to_string(call))).string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> argv_strings = {binary};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings = ChildEnvironment(scratch, extra_env);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);

  ProcessResult result;
  pid_t pid = 0;
  int spawned = 0;
  if (address_space_bytes == 0) {
    spawned = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(),
                          envp.data());
  } else {
    // posix_spawn cannot set a limit: fork, and in the child only
    // async-signal-safe calls before exec.
    pid = fork();
    if (pid == 0) {
      const struct rlimit limit = {address_space_bytes, address_space_bytes};
      const int out =
          open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err =
          open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (setrlimit(RLIMIT_AS, &limit) != 0 || out < 0 || err < 0 ||
          dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0) {
        _exit(127);
      }
      execve(binary.c_str(), argv.data(), envp.data());
      _exit(127);
    }
    spawned = pid < 0 ? errno : 0;
  }
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    result.err =
        "posix_spawn " + binary + " failed: error " + std::to_string(spawned);
    return result;
  }
  int status = 0;
  pid_t waited;
  do {
    waited = waitpid(pid, &status, 0);
  } while (waited < 0 && errno == EINTR);
  if (waited < 0) return result;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.out = ReadWholeFile(out_path);
  result.err = ReadWholeFile(err_path);
  return result;
}

}  // namespace colo::test
