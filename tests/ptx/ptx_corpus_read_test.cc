// Reads every PTX file nvcc wrote for the test kernels (COLO_PTX_KERNEL_DIR:
// tests/ptx/kernels/*.cu and tests/cuda_programs/*.cu, nvcc --ptx
// -arch=sm_80 -O2), and checks for each:
//   - ReadPtx accepts it, and it has as many kernels as the text has
//     ".entry" words;
//   - ReadPtx(PrintPtx(m)) is m up to line numbers (TreeDiff);
//   - ptxas -arch=sm_80 accepts PrintPtx(m).
// This test is built only where nvcc is, so a missing ptxas is a failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "ptx/ptx_printer.h"
#include "ptx/ptx_reader.h"
#include "ptx_tree_equal.h"

namespace colo::ptx {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMinFiles = 30;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<fs::path> KernelFiles() {
  std::vector<fs::path> files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(COLO_PTX_KERNEL_DIR, error)) {
    if (entry.path().extension() == ".ptx") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// ptxas next to nvcc, else on PATH; "" if none.
std::string FindPtxas() {
  if (fs::exists("/usr/local/cuda/bin/ptxas")) {
    return "/usr/local/cuda/bin/ptxas";
  }
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && fs::exists(fs::path(dir) / "ptxas")) {
      return (fs::path(dir) / "ptxas").string();
    }
  }
  return "";
}

// Runs `command`; its exit status, and its output in `output`.
int RunCommand(const std::string& command, std::string& output) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) {
    output.append(buffer, n);
  }
  return pclose(pipe);
}

// How many times `word` occurs in `text` as a whole directive word.
size_t CountWord(const std::string& text, const std::string& word) {
  size_t count = 0;
  for (size_t at = text.find(word); at != std::string::npos;
       at = text.find(word, at + 1)) {
    const size_t end = at + word.size();
    if (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++count;
  }
  return count;
}

TEST(PtxCorpusRead, FindsTheKernels) {
  // Every .cu of both folders is compiled; there are more than kMinFiles.
  EXPECT_GE(KernelFiles().size(), kMinFiles) << COLO_PTX_KERNEL_DIR;
}

TEST(PtxCorpusRead, EveryFileReadsPrintsAndAssembles) {
  const std::string ptxas = FindPtxas();
  ASSERT_FALSE(ptxas.empty()) << "ptxas not found next to nvcc or on PATH";
  const std::vector<fs::path> files = KernelFiles();
  ASSERT_GE(files.size(), kMinFiles);
  const fs::path out_dir = fs::path(::testing::TempDir()) / "ptx_corpus";
  fs::create_directories(out_dir);
  double slowest_us_per_kernel = 0;
  std::string slowest;
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    const std::string text = ReadFile(file);
    const auto start = std::chrono::steady_clock::now();
    Result<Module> module = ReadPtx(text, file.filename().string());
    const double us = std::chrono::duration<double, std::micro>(
                          std::chrono::steady_clock::now() - start)
                          .count();
    ASSERT_TRUE(module.ok()) << module.status().message();

    size_t entries = 0;
    for (const TopLevel& item : module->items) {
      const auto* f = std::get_if<Function>(&item);
      if (f != nullptr && f->is_entry) {
        ++entries;
        EXPECT_EQ(FindFunction(*module, f->name), f);
      }
    }
    EXPECT_EQ(entries, CountWord(text, ".entry"));
    const double per_kernel =
        us / static_cast<double>(std::max<size_t>(entries, 1));
    if (per_kernel > slowest_us_per_kernel) {
      slowest_us_per_kernel = per_kernel;
      slowest = file.filename().string();
    }

    const std::string printed = PrintPtx(*module);
    Result<Module> again =
        ReadPtx(printed, "printed " + file.filename().string());
    ASSERT_TRUE(again.ok()) << again.status().message() << "\n" << printed;
    EXPECT_EQ(testing::TreeDiff(*module, *again), "");

    const fs::path printed_path = out_dir / file.filename();
    std::ofstream(printed_path, std::ios::binary) << printed;
    std::string output;
    const int status = RunCommand("'" + ptxas + "' -arch=sm_80 -o /dev/null '" +
                                      printed_path.string() + "'",
                                  output);
    EXPECT_EQ(status, 0) << "ptxas rejects the printed text:\n" << output;
  }
  std::cout << "read " << files.size() << " files; slowest "
            << slowest_us_per_kernel << " us per kernel (" << slowest << ")\n";
}

}  // namespace
}  // namespace colo::ptx
