// fuzz/daemon_config_fuzzer.cc — colod's configuration file
// (runtime::LoadDaemonConfig, which reads a path): the input is written to
// colod.yaml in the fuzzer's temporary folder, beside run.csv, a copy of
// tests/runtime/testdata/ncu_driver_kernel.csv for `kernels_from_ncu:
// [run.csv]` to name. An error is the contract for bad input; the fuzzer
// fails on a crash, a sanitizer report, a hang, or a config that loads but
// fails DaemonConfig::Validate().
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "runtime/daemon_config.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  colo::fuzz::WriteTempFile(
      "run.csv", colo::fuzz::ReadWholeFile(
                     std::string(colo::fuzz::kSourceDir) +
                     "/tests/runtime/testdata/ncu_driver_kernel.csv"));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace colo;
  const std::string path =
      fuzz::WriteTempFile("colod.yaml", fuzz::AsText(data, size));
  auto config = runtime::LoadDaemonConfig(path);
  if (config.ok()) {
    Status valid = config->Validate();
    fuzz::Check(valid.ok(),
                "accepted a config that fails Validate(): " + valid.ToString());
  }
  return 0;
}
