// fuzz/fuzz_util.cc — see fuzz_util.h.
#include "fuzz_util.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

namespace colo::fuzz {

namespace {

std::string* temp_dir = nullptr;

void RemoveTempDir() {
  std::error_code ignored;
  if (temp_dir != nullptr) std::filesystem::remove_all(*temp_dir, ignored);
}

}  // namespace

const std::string& TempDir() {
  if (temp_dir == nullptr) {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base != nullptr && *base ? base : "/tmp") +
                       "/colo-fuzz-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) Fail("cannot make " + tmpl);
    temp_dir = new std::string(tmpl);
    std::atexit(RemoveTempDir);
  }
  return *temp_dir;
}

std::string WriteTempFile(const std::string& name, std::string_view data) {
  const std::filesystem::path path = std::filesystem::path(TempDir()) / name;
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  out.close();
  if (!out) Fail("cannot write " + path.string());
  return path.string();
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void Fail(const std::string& what) {
  // Straight to descriptor 2: a fuzzer may have pointed `stderr` elsewhere
  // to silence a library's log.
  const std::string line = "colo fuzz: " + what + "\n";
  ssize_t written = write(STDERR_FILENO, line.data(), line.size());
  (void)written;
  std::abort();
}

}  // namespace colo::fuzz
