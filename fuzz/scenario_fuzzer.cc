// fuzz/scenario_fuzzer.cc — the scenario loader (`colo sim FILE`): the input
// is a scenario's YAML text, loaded as if it were a file of
// examples/inference-vs-training/ (so the examples' relative workload paths,
// ../../data/orion/..., resolve to the repository's data; nothing is
// written). An error is the contract for bad input; the fuzzer fails on a
// crash, a sanitizer report, a hang, or a scenario the loader accepts that
// fails ScenarioSpec::Validate() (which the loader promises).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "scenario/scenario_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace colo;
  static const std::string base =
      std::string(fuzz::kSourceDir) + "/examples/inference-vs-training";
  auto spec = scenario::LoadScenarioString(
      std::string(fuzz::AsText(data, size)), "fuzz.yaml", base);
  if (spec.ok()) {
    Status valid = spec->Validate();
    fuzz::Check(valid.ok(), "accepted a scenario that fails Validate(): " +
                                valid.ToString());
  }
  return 0;
}
