// fuzz/model_json_fuzzer.cc — the interference model (`colo plan --model`,
// `colo predict`): predict::ParseModelJson on the input; a model it accepts
// then predicts a pair of examples/plan/profiles and must give finite
// throughputs or an error, and its own JSON must read back. An error is the
// contract for bad input; the fuzzer fails on a crash, a sanitizer report, a
// hang, or a broken promise above.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "fuzz_util.h"
#include "predict/interference_model.h"
#include "profile/workload_profile.h"

namespace {

const colo::profile::WorkloadProfile& Example(const char* name) {
  static auto* profiles =
      new std::map<std::string, colo::profile::WorkloadProfile>();
  auto it = profiles->find(name);
  if (it != profiles->end()) return it->second;
  auto p =
      colo::profile::LoadProfile(std::string(colo::fuzz::kSourceDir) +
                                 "/examples/plan/profiles/" + name + ".json");
  colo::fuzz::Check(p.ok(),
                    "cannot load the example profile " + std::string(name));
  return (*profiles)[name] = *p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace colo;
  auto m = predict::ParseModelJson(fuzz::AsText(data, size), "fuzz.json");
  if (!m.ok()) return 0;
  auto p = m->PredictPair(Example("bert-base-cased_batch8-inf"),
                          Example("vit-base-patch16-224_batch16-inf"));
  if (p.ok()) {
    fuzz::Check(fuzz::Finite(p->norm_a) && fuzz::Finite(p->norm_b),
                "a model that loads predicts a non-finite throughput");
  }
  auto again = predict::ParseModelJson(predict::ModelToJson(*m), "again.json");
  fuzz::Check(again.ok(), "a model's own JSON does not read back: " +
                              again.status().ToString());
  return 0;
}
