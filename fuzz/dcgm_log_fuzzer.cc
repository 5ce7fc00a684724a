// fuzz/dcgm_log_fuzzer.cc — `dcgmi dmon` logs (`colo profile import
// --dcgm`). Input: one byte of options, then the log's text
// (profile::ParseDcgmLog). The options byte: bits 0-1 the GPU index, bit 2
// skip_idle, bits 3-4 skip_first. An error is the contract for bad input;
// the fuzzer fails on a crash, a sanitizer report, a hang, or a summary it
// accepts with a non-finite number.
#include <cstddef>
#include <cstdint>

#include "fuzz_util.h"
#include "profile/dcgm_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace colo;
  if (size < 1) return 0;
  const uint8_t o = data[0];
  profile::DcgmLogOptions options;
  options.gpu = o & 3;
  options.skip_idle = (o & 4) != 0;
  options.skip_first = (o >> 3) & 3;
  auto s = profile::ParseDcgmLog(fuzz::AsText(data + 1, size - 1), "fuzz.txt",
                                 options);
  if (s.ok()) {
    fuzz::Check(fuzz::Finite(s->gpu_util_pct) &&
                    fuzz::Finite(s->sm_active_pct) &&
                    fuzz::Finite(s->sm_occupancy_pct) &&
                    fuzz::Finite(s->dram_active_pct),
                "a DCGM summary with a non-finite value");
  }
  return 0;
}
