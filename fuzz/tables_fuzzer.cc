// fuzz/tables_fuzzer.cc — the published-data tables colo imports, which
// their readers take by path (the input goes to a file of the fuzzer's
// temporary folder). Input: one byte choosing the reader (modulo 8), then
// the file's bytes:
//   0 an Orion kernel table (profile::LoadOrionKernelTable; a scenario's
//     `workload: {orion: FILE}`), as file "fuzz_4_fwd";
//   1, 2, 3 KACE's kernel table, baseline labels, MPS scaling
//     (profile::ReadKace*; `colo profile import --kace`);
//   4 PEACE's DCGM metrics (profile::ReadPeaceDcgm);
//   5 pair measurements (predict::ReadPairMeasurements; `colo predict`);
//   6, 7 a REEF model's kernel file / profile file (profile::LoadReefModel;
//     `workload: {reef: DIR}`), beside data/reef/alexnet's other file.
// An error is the contract for bad input; the fuzzer fails on a crash, a
// sanitizer report or a hang.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_util.h"
#include "predict/pair_data.h"
#include "profile/kace_data.h"
#include "profile/orion_table.h"
#include "profile/peace_data.h"
#include "profile/reef_model.h"

namespace {

// LoadReefModel on a folder "alexnet" holding `text` as one of its two files
// (`kernels`: alexnet.json, else alexnet.profile.json) and the published
// other one.
void LoadReef(std::string_view text, bool kernels) {
  using namespace colo;
  static const std::string published =
      std::string(fuzz::kDataDir) + "/reef/alexnet/alexnet";
  static const std::string model = fuzz::ReadWholeFile(published + ".json");
  static const std::string profile =
      fuzz::ReadWholeFile(published + ".profile.json");
  fuzz::WriteTempFile("reef/alexnet/alexnet.json", kernels ? text : model);
  fuzz::WriteTempFile("reef/alexnet/alexnet.profile.json",
                      kernels ? profile : text);
  auto w = profile::LoadReefModel(fuzz::TempDir() + "/reef/alexnet");
  (void)w;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace colo;
  if (size < 1) return 0;
  const std::string_view text = fuzz::AsText(data + 1, size - 1);
  switch (data[0] % 8) {
    case 0:
      (void)profile::LoadOrionKernelTable(
          fuzz::WriteTempFile("fuzz_4_fwd", text));
      break;
    case 1:
      (void)profile::ReadKaceKernelTable(fuzz::WriteTempFile("k.csv", text));
      break;
    case 2:
      (void)profile::ReadKaceBaselineLabels(fuzz::WriteTempFile("b.csv", text));
      break;
    case 3:
      (void)profile::ReadKaceMpsScaling(fuzz::WriteTempFile("s.csv", text));
      break;
    case 4:
      (void)profile::ReadPeaceDcgm(fuzz::WriteTempFile("peace.csv", text));
      break;
    case 5:
      (void)predict::ReadPairMeasurements(fuzz::WriteTempFile("p.csv", text));
      break;
    case 6:
      LoadReef(text, true);
      break;
    case 7:
      LoadReef(text, false);
      break;
  }
  return 0;
}
