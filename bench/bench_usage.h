// bench/bench_usage.h — the command line of a benchmark that takes no
// options: -h / --help prints its usage (exit 0), anything else is a usage
// error (exit 2), so a mistyped option never starts a minutes-long run.
#pragma once

#include <cstdio>
#include <string>

namespace colo::bench {

// Returns the exit status to stop with, or -1 to run the benchmark.
inline int CheckNoOptions(int argc, char** argv, const char* usage) {
  if (argc <= 1) return -1;
  const std::string a = argv[1];
  const bool help = a == "-h" || a == "--help";
  std::fprintf(help ? stdout : stderr, "%s%s",
               help ? "" : ("unknown option '" + a + "'\n").c_str(), usage);
  return help ? 0 : 2;
}

}  // namespace colo::bench
