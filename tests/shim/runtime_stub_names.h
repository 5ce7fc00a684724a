// tests/shim/runtime_stub_names.h — the CUDA runtime functions
// libcolo_preload.so defines besides its hook table (src/shim/
// runtime_stubs.cc), read from the list the build generated
// (COLO_RUNTIME_STUB_SYMBOLS: its path, or "" where it was not generated).
#pragma once

#include <fstream>
#include <regex>
#include <set>
#include <string>

namespace colo::testing {

// Whether the build generated the list (a CUDA toolkit with libcudart.so).
inline bool HaveRuntimeStubs() { return COLO_RUNTIME_STUB_SYMBOLS[0] != '\0'; }

// The names the list's `kind` lines define: kind "STUB", "REFUSED" or
// "FORWARDED" (COLO_RUNTIME_<kind>(name)), or "" for all three; empty
// without a list.
inline std::set<std::string> RuntimeStubNames(const std::string& kind = "") {
  std::set<std::string> names;
  if (!HaveRuntimeStubs()) return names;
  std::ifstream in(COLO_RUNTIME_STUB_SYMBOLS);
  const std::regex line_re(
      "^COLO_RUNTIME_" +
      (kind.empty() ? std::string("(?:STUB|REFUSED|FORWARDED)") : kind) +
      R"(\((\w+)\))");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, line_re)) names.insert(m[1]);
  }
  return names;
}

}  // namespace colo::testing
