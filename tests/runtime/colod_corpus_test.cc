// The compatibility corpus (tests/corpus/programs.txt): every program, run
// unmodified by `colo run` against colod with `execute: true`,
// completes with the results it checks itself, or is refused where colo
// cannot do what it asks, with the announced error. One test per program;
// each starts its own colod.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "colod_harness.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;

struct CorpusProgram {
  std::string name;
  std::string refused_call;  // empty: expected to complete ("ok")
};

// programs.txt: `name | link flags | ok` or `name | link flags | refused CALL`.
std::vector<CorpusProgram> ReadManifest() {
  std::vector<CorpusProgram> out;
  std::ifstream in(std::string(COLO_SOURCE_DIR) + "/tests/corpus/programs.txt");
  std::string line;
  auto trim = [](std::string s) {
    s.erase(0, s.find_first_not_of(' '));
    s.erase(s.find_last_not_of(' ') + 1);
    return s;
  };
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t a = line.find('|'), b = line.rfind('|');
    if (a == std::string::npos || a == b) continue;
    CorpusProgram p{trim(line.substr(0, a)), ""};
    const std::string outcome = trim(line.substr(b + 1));
    if (outcome.rfind("refused ", 0) == 0)
      p.refused_call = trim(outcome.substr(8));
    out.push_back(p);
  }
  return out;
}

void PrintTo(const CorpusProgram& p, std::ostream* os) { *os << p.name; }

std::string CorpusPath(const std::string& name) {
  return kBin + "/tests/corpus/" + name;
}

class CorpusTest : public ::testing::TestWithParam<CorpusProgram> {};

TEST_P(CorpusTest, CompletesWithItsOwnResultsOrIsRefusedAloud) {
  // Completing: exit 0 and the program's "corpus ok", printed only after
  // every check of its results held, with no kernel failing on the
  // interpreter. Refused: exit 3 (the program's CUDA_CHECK) on error 801,
  // with colo's announcement naming the call, said once.
  const CorpusProgram& p = GetParam();
  if (access(CorpusPath(p.name).c_str(), X_OK) != 0)
    GTEST_SKIP() << "the corpus programs were not built (no nvcc)";
  TempDir dir;
  Colod colod(dir, "gpu: H100\nexecute: true\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  // As users run programs: `colo run` (which also gives a program linked
  // with -lcuda colo's driver library where the machine has none).
  auto run = std::make_unique<Process>(
      std::vector<std::string>{kBin + "/colo", "run", "--socket",
                               colod.socket(), "--", CorpusPath(p.name)},
      std::map<std::string, std::string>{}, dir.path() + "/" + p.name + ".out",
      dir.path() + "/" + p.name + ".err");
  const int status = run->Wait(seconds(120));
  const std::string out = run->Output(), err = run->Errors();
  // No kernel failed on the interpreter, unless the program's failure is
  // its point: then <name>.stderr lists what colo must say.
  std::ifstream said_file(std::string(COLO_SOURCE_DIR) + "/tests/corpus/" +
                          p.name + ".stderr");
  if (!said_file) {
    EXPECT_EQ(err.find("failed on the PTX interpreter"), std::string::npos)
        << err;
  }
  for (std::string line; std::getline(said_file, line);)
    EXPECT_NE(err.find(line), std::string::npos) << line << "\n" << err;
  if (p.refused_call.empty()) {
    EXPECT_EQ(status, 0) << out << err;
    EXPECT_NE(out.find("corpus ok"), std::string::npos) << out << err;
    // A program whose output is its result (device printf) lists the lines
    // it must print in <name>.expected.
    std::ifstream expected(std::string(COLO_SOURCE_DIR) + "/tests/corpus/" +
                           p.name + ".expected");
    for (std::string line; std::getline(expected, line);)
      EXPECT_NE(out.find(line + "\n"), std::string::npos) << line << "\n"
                                                          << out;
    return;
  }
  // CUDA's error 801, or cuBLAS's CUBLAS_STATUS_NOT_SUPPORTED (15).
  EXPECT_EQ(status, 3) << out << err;
  EXPECT_TRUE(out.find("cuda_error=801") != std::string::npos ||
              out.find("cublas_error=15") != std::string::npos)
      << out;
  const std::string said =
      "colo: " + p.refused_call + " is not supported under colo";
  const size_t first = err.find(said);
  EXPECT_NE(first, std::string::npos) << err;
  EXPECT_EQ(err.find(said, first + 1), std::string::npos) << "said twice";
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, CorpusTest, ::testing::ValuesIn(ReadManifest()),
    [](const ::testing::TestParamInfo<CorpusProgram>& info) {
      return info.param.name;
    });

}  // namespace
}  // namespace colo::testing
