// fuzz/arrival_trace_fuzzer.cc — request arrival traces (a scenario's
// `arrivals: {trace: FILE}`; JSON gaps or text timestamps), which
// profile::LoadArrivalTrace reads from a path: the input is written to a
// file of the fuzzer's temporary folder. An error is the contract for bad
// input; the fuzzer fails on a crash, a sanitizer report, a hang, or a trace
// it accepts that is empty or goes back in time.
#include <cstddef>
#include <cstdint>

#include "fuzz_util.h"
#include "profile/arrival_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace colo;
  auto t = profile::LoadArrivalTrace(
      fuzz::WriteTempFile("trace.txt", fuzz::AsText(data, size)));
  if (!t.ok()) return 0;
  fuzz::Check(!t->empty(), "accepted an empty trace");
  for (size_t i = 1; i < t->size(); ++i) {
    fuzz::Check((*t)[i] >= (*t)[i - 1], "accepted a trace that goes back");
  }
  return 0;
}
