// tests/cuda_programs/ptxas_report.h — what ptxas said it compiled, from the
// `nvcc -Xptxas -v` report kept beside a test program
// (kernel_resources.ptxas.txt): per (SM architecture, mangled kernel), the
// registers per thread and the static shared memory in bytes. The oracle for
// the interposer's kernel attributes.
#pragma once

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <utility>

namespace colo::testing {

struct PtxasKernel {
  long registers = 0;
  long static_shared_bytes = 0;
};

inline std::map<std::pair<int, std::string>, PtxasKernel> ReadPtxasReport(
    const std::string& path) {
  std::ifstream file(path);
  std::map<std::pair<int, std::string>, PtxasKernel> out;
  const std::regex compiling(
      "Compiling entry function '([^']+)' for 'sm_([0-9]+)'");
  const std::regex used("Used ([0-9]+) registers");
  const std::regex smem("([0-9]+) bytes smem");
  std::string line, kernel;
  int arch = 0;
  std::smatch m, s;
  while (std::getline(file, line)) {
    if (std::regex_search(line, m, compiling)) {
      kernel = m[1];
      arch = std::stoi(m[2]);
    } else if (std::regex_search(line, m, used)) {
      PtxasKernel k;
      k.registers = std::stol(m[1]);
      if (std::regex_search(line, s, smem))
        k.static_shared_bytes = std::stol(s[1]);
      out[{arch, kernel}] = k;
    }
  }
  return out;
}

}  // namespace colo::testing
