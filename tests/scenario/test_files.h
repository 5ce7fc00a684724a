// A scratch directory for tests that need files on disk (scenario files,
// kernel tables, traces). Removed with everything in it when it goes out of
// scope. Test-only: failures abort the test via gtest assertions.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace colo::test {

class ScratchDir {
 public:
  // A fresh directory under the test temp dir, named after `prefix`.
  explicit ScratchDir(const std::string& prefix) {
    std::string pattern = ::testing::TempDir() + "colo-" + prefix + "-XXXXXX";
    char* made = mkdtemp(pattern.data());
    EXPECT_NE(made, nullptr) << "mkdtemp " << pattern;
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Writes `text` to `relative` (directories created) and returns the full
  // path.
  std::string Write(const std::string& relative,
                    const std::string& text) const {
    const std::filesystem::path file = path_ / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary);
    out << text;
    EXPECT_TRUE(out.good()) << "cannot write " << file;
    return file.string();
  }

 private:
  std::filesystem::path path_;
};

}  // namespace colo::test
