// tests/profile/temp_dir.h — a scratch directory for fixture files, removed
// with everything in it when the object goes out of scope.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace colo::profile::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern = ::testing::TempDir() + "colo_profile_XXXXXX";
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  bool ok() const { return !path_.empty(); }
  const std::string& path() const { return path_; }

  // Writes `contents` byte for byte to <dir>/<name> (creating parent
  // directories) and returns the file's path.
  std::string Write(const std::string& name,
                    const std::string& contents) const {
    const std::filesystem::path p = std::filesystem::path(path_) / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    out << contents;
    return p.string();
  }

 private:
  std::string path_;
};

}  // namespace colo::profile::testing
