// tests/shim/library_symbols.h — what the shim tests compare a library's
// dynamic symbols with: the functions a shared library defines, and the
// names of the interposer's hook table (src/shim/hook_table.h).
#pragma once

#include <cstdio>
#include <set>
#include <string>

#include "shim/hook_table.h"

namespace colo::testing {

// The functions `nm -D --defined-only lib` lists (types T, W and i), their
// version suffixes (`@@libcudart.so.13`) dropped; empty if nm cannot run.
inline std::set<std::string> DefinedFunctions(const std::string& lib) {
  std::set<std::string> out;
  const std::string cmd = "nm -D --defined-only " + lib + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char line[512];
  while (std::fgets(line, sizeof(line), p) != nullptr) {
    char addr[64], type[8], name[400];
    if (std::sscanf(line, "%63s %7s %399s", addr, type, name) == 3 &&
        (type[0] == 'T' || type[0] == 'W' || type[0] == 'i')) {
      const std::string n = name;
      out.insert(n.substr(0, n.find('@')));
    }
  }
  pclose(p);
  return out;
}

// Every symbol of COLO_HOOKED_SYMBOLS.
inline std::set<std::string> HookTableNames() {
  std::set<std::string> names;
#define COLO_TEST_NAME_(sym) names.insert(#sym);
  COLO_HOOKED_SYMBOLS(COLO_TEST_NAME_)
#undef COLO_TEST_NAME_
  return names;
}

}  // namespace colo::testing
