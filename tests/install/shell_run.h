// Runs a shell command line for the install tests and collects its exit
// status, stdout and stderr (through files under a scratch folder, so that a
// large output cannot block). Test-only.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace colo::test {

struct ShellResult {
  int exit_code = -1;  // -1: did not exit normally
  std::string out;
  std::string err;
};

inline std::string ReadText(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Single-quotes `s` for sh.
inline std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline ShellResult Shell(const std::string& command,
                         const std::filesystem::path& scratch) {
  static int call = 0;
  ++call;
  const auto out = scratch / ("out-" + std::to_string(call));
  const auto err = scratch / ("err-" + std::to_string(call));
  const std::string line = "(" + command + ") >" + Quote(out.string()) + " 2>" +
                           Quote(err.string()) + " </dev/null";
  const int status = std::system(line.c_str());
  ShellResult r;
  if (status != -1 && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.out = ReadText(out);
  r.err = ReadText(err);
  return r;
}

}  // namespace colo::test
