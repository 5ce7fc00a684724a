// fuzz/ncu_csv_fuzzer.cc — Nsight Compute CSV exports (`colo profile import
// --ncu`): profile::ParseNcuCsv on the input, then SummarizeKernels on what
// it accepts. An error is the contract for bad input; the fuzzer fails on a
// crash, a sanitizer report, a hang, or a summary it accepts with a
// non-finite number.
#include <cstddef>
#include <cstdint>

#include "fuzz_util.h"
#include "profile/ncu_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace colo;
  auto kernels = profile::ParseNcuCsv(fuzz::AsText(data, size), "fuzz.csv");
  if (!kernels.ok()) return 0;
  auto s = profile::SummarizeKernels(*kernels);
  if (!s.ok()) return 0;
  for (double x :
       {s->threads, s->registers, s->static_shared_memory, s->sm_throughput_pct,
        s->dram_throughput_pct, s->memory_throughput_pct}) {
    fuzz::Check(fuzz::Finite(x), "a kernel summary with a non-finite value");
  }
  return 0;
}
