// fuzz/smi_log_fuzzer.cc — nvidia-smi logs (`colo profile import --smi`):
// dmon, pmon and --query-gpu CSV. Input: one byte of options, then the
// log's text (profile::ParseSmiLog). The options byte: bits 0-1 the GPU
// index, bit 2 skip_idle, bits 3-4 skip_first, bit 5 pid 4242 (else 0: the
// only process), bits 6-7 devices_per_sample 0, 1, 2 or 5. An error is the
// contract for bad input; the fuzzer fails on a crash, a sanitizer report, a
// hang, or a summary it accepts with a non-finite number.
#include <cstddef>
#include <cstdint>

#include "fuzz_util.h"
#include "profile/smi_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace colo;
  if (size < 1) return 0;
  const uint8_t o = data[0];
  profile::SmiLogOptions options;
  options.gpu = o & 3;
  options.skip_idle = (o & 4) != 0;
  options.skip_first = (o >> 3) & 3;
  options.pid = (o & 32) != 0 ? 4242 : 0;
  constexpr int kDevicesPerSample[] = {0, 1, 2, 5};
  options.devices_per_sample = kDevicesPerSample[o >> 6];
  auto s = profile::ParseSmiLog(fuzz::AsText(data + 1, size - 1), "fuzz.txt",
                                options);
  if (s.ok()) {
    fuzz::Check(fuzz::Finite(s->sm_util_pct) && fuzz::Finite(s->mem_util_pct) &&
                    fuzz::Finite(s->memory_used_mib),
                "an nvidia-smi summary with a non-finite value");
  }
  return 0;
}
