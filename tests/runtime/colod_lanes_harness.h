// tests/runtime/colod_lanes_harness.h — what colod's memory-lane tests
// (colod_lanes_test.cc, colod_lanes_policy_test.cc,
// colod_iteration_marks_test.cc) share: colod's config for a simulated A100
// with 100 MiB usable (reserve 40860 MiB, no pad), and `colo run` of a test
// program declaring its memory. Stateless; see colod_harness.h for the
// processes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "colod_harness.h"

namespace colo::testing {

// colod's config: the simulated A100, one kernel `kernel` of `kernel_us`,
// the `grants` lines as given (empty: none), and a `jobs:` section with
// 100 MiB usable and no pad, followed by `jobs_extra` (its own lines, e.g.
// "  policy: fair\n").
inline std::string LanesColodConfig(const std::string& kernel, int kernel_us,
                                    const std::string& jobs_extra,
                                    const std::string& grants = "") {
  return "gpu: A100\n"
         "kernels:\n"
         "  - {name: " +
         kernel + ", duration_us: " + std::to_string(kernel_us) + "}\n" +
         grants +
         "jobs:\n"
         "  reserve_mib: 40860\n"
         "  persistent_pad: 0\n" +
         jobs_extra;
}

// `colo run --socket S --memory-persistent P --memory-ephemeral E EXTRA --
// PROGRAM ARGS` under `colod`, its output in DIR/TAG.out and DIR/TAG.err.
inline std::unique_ptr<Process> ColoRunDeclared(
    const Colod& colod, const TempDir& dir, const std::string& tag,
    const std::string& persistent, const std::string& ephemeral,
    const std::vector<std::string>& extra, const std::string& program,
    const std::vector<std::string>& args) {
  std::vector<std::string> argv = {
      kBin + "/colo",        "run",      "--socket",           colod.socket(),
      "--memory-persistent", persistent, "--memory-ephemeral", ephemeral};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("--");
  argv.push_back(Program(program));
  argv.insert(argv.end(), args.begin(), args.end());
  return std::make_unique<Process>(argv, std::map<std::string, std::string>{},
                                   dir.path() + "/" + tag + ".out",
                                   dir.path() + "/" + tag + ".err");
}

}  // namespace colo::testing
