// fuzz/jobs_file_fuzzer.cc — the jobs file of `colo plan`: the input is a
// jobs file's YAML text, read as if it were examples/plan/jobs.yaml (so
// `profiles: profiles` and `model: model.json` resolve to the examples;
// nothing is written). An error is the contract for bad input; the fuzzer
// fails on a crash, a sanitizer report or a hang.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "place/jobs_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace colo;
  static const std::string base =
      std::string(fuzz::kSourceDir) + "/examples/plan";
  auto jobs = place::ParseJobsYaml(std::string(fuzz::AsText(data, size)),
                                   "jobs.yaml", base);
  (void)jobs;
  return 0;
}
