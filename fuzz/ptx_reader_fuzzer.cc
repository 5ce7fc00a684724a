// fuzz/ptx_reader_fuzzer.cc — the PTX reader (ptx::ReadPtx, which reads the
// PTX of every kernel the interposer sees): ReadPtx on the input; a module
// it accepts is printed (ptx::PrintPtx), and the printed text must read back
// to the same tree (line numbers aside) and print to the same text. An
// error is the contract for bad input; the fuzzer fails on a crash, a
// sanitizer report, a hang, or a broken round trip.
#include <cstddef>
#include <cstdint>
#include <string>

#include "../tests/ptx/ptx_tree_equal.h"
#include "fuzz_util.h"
#include "ptx/ptx_printer.h"
#include "ptx/ptx_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace colo;
  auto module = ptx::ReadPtx(fuzz::AsText(data, size), "fuzz.ptx");
  if (!module.ok()) return 0;
  const std::string printed = ptx::PrintPtx(*module);
  auto again = ptx::ReadPtx(printed, "printed.ptx");
  fuzz::Check(again.ok(), "printed PTX does not read back: " +
                              again.status().message() + "\n" + printed);
  const std::string diff = ptx::testing::TreeDiff(*module, *again);
  fuzz::Check(diff.empty(), "printed PTX reads back to another tree: " + diff);
  fuzz::Check(ptx::PrintPtx(*again) == printed,
              "printing the re-read tree gives other text");
  return 0;
}
