// fuzz/profile_json_fuzzer.cc — workload profiles (JSON, the files of
// `colo plan`'s profiles folder and `colo profile import`'s output):
// profile::ParseProfileJson on the input. An error is the contract for bad
// input; the fuzzer fails on a crash, a sanitizer report, a hang, or a
// profile it accepts that fails Validate() or does not read back the same
// from its own JSON (ProfileToJson, which must not throw on what was read).
#include <cstddef>
#include <cstdint>

#include "fuzz_util.h"
#include "profile/workload_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace colo;
  auto p = profile::ParseProfileJson(fuzz::AsText(data, size), "fuzz.json");
  if (!p.ok()) return 0;
  Status valid = p->Validate();
  fuzz::Check(valid.ok(),
              "accepted a profile that fails Validate(): " + valid.ToString());
  const std::string json = profile::ProfileToJson(*p);
  auto again = profile::ParseProfileJson(json, "again.json");
  fuzz::Check(again.ok(), "a profile's own JSON does not read back: " +
                              again.status().ToString());
  fuzz::Check(profile::ProfileToJson(*again) == json,
              "a profile's own JSON reads back as another profile");
  return 0;
}
