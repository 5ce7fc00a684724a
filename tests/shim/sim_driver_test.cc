// colo's libcuda.so.1 for the simulated GPU (src/shim/sim_driver.cc): its
// SONAME, every function of the toolkit's driver stub defined (the list the
// build generated from the stub), each answering CUDA_ERROR_NOT_SUPPORTED
// (801) and saying so on stderr once per call, and cuGetProcAddress
// clearing the pointer it is asked for (CUDA_ERROR_NOT_FOUND, 500).
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace {

std::vector<std::string> StubFunctions() {
  std::ifstream in(COLO_SIM_DRIVER_SYMBOLS);
  std::vector<std::string> names;
  const std::regex call(R"(COLO_SIM_DRIVER_CALL\((\w+)\))");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, call)) names.push_back(m[1]);
  }
  return names;
}

// What `f` writes on stderr.
template <typename F>
std::string Stderr(F f) {
  std::fflush(stderr);
  char path[] = "/tmp/sim_driver_test_XXXXXX";
  const int fd = mkstemp(path);
  const int saved = dup(2);
  dup2(fd, 2);
  f();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(fd);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  unlink(path);
  return text.str();
}

class SimDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    lib_ = dlopen(COLO_SIM_DRIVER, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib_, nullptr) << dlerror();
  }
  void TearDown() override {
    if (lib_ != nullptr) dlclose(lib_);
  }
  void* lib_ = nullptr;
};

TEST_F(SimDriverTest, DefinesEveryStubFunction) {
  const std::vector<std::string> names = StubFunctions();
  // The toolkit's stub has hundreds of functions (637 in CUDA 13.0).
  ASSERT_GT(names.size(), 400u);
  for (const std::string& n : names)
    EXPECT_NE(dlsym(lib_, n.c_str()), nullptr) << n;
  EXPECT_NE(dlsym(lib_, "cuGetProcAddress_v2"), nullptr);
}

TEST_F(SimDriverTest, SonameIsLibcuda1) {
  link_map* map = nullptr;
  ASSERT_EQ(dlinfo(lib_, RTLD_DI_LINKMAP, &map), 0);
  const ElfW(Dyn)* dyn = map->l_ld;
  const char* strtab = nullptr;
  ElfW(Xword) soname = 0;
  bool has_soname = false;
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    if (dyn->d_tag == DT_STRTAB)
      strtab = reinterpret_cast<const char*>(dyn->d_un.d_ptr);
    if (dyn->d_tag == DT_SONAME) {
      soname = dyn->d_un.d_val;
      has_soname = true;
    }
  }
  ASSERT_TRUE(has_soname && strtab != nullptr);
  EXPECT_STREQ(strtab + soname, "libcuda.so.1");
}

TEST_F(SimDriverTest, CallsAreNotSupportedAndAnnouncedOnce) {
  using Fn = int (*)();
  auto init = reinterpret_cast<Fn>(dlsym(lib_, "cuInit"));
  auto version = reinterpret_cast<Fn>(dlsym(lib_, "cuDriverGetVersion"));
  ASSERT_NE(init, nullptr);
  ASSERT_NE(version, nullptr);
  int results[3] = {};
  const std::string said = Stderr([&] {
    results[0] = init();
    results[1] = init();
    results[2] = version();
  });
  for (int r : results) EXPECT_EQ(r, 801);
  // One line for cuInit (twice called), one for cuDriverGetVersion.
  EXPECT_EQ(said,
            "colo: cuInit is not supported under colo (the simulated GPU's "
            "driver library answers it with CUDA_ERROR_NOT_SUPPORTED; colo's "
            "interposer implements the driver calls colo supports)\n"
            "colo: cuDriverGetVersion is not supported under colo (the "
            "simulated GPU's driver library answers it with "
            "CUDA_ERROR_NOT_SUPPORTED; colo's interposer implements the "
            "driver calls colo supports)\n");
}

TEST_F(SimDriverTest, GetProcAddressClearsThePointer) {
  using Proc = int (*)(const char*, void**, int, unsigned long long, int*);
  auto proc = reinterpret_cast<Proc>(dlsym(lib_, "cuGetProcAddress_v2"));
  ASSERT_NE(proc, nullptr);
  void* pfn = reinterpret_cast<void*>(0x1234);
  int status = 0;
  EXPECT_EQ(proc("cuMemAlloc", &pfn, 13000, 0, &status), 500);
  EXPECT_EQ(pfn, nullptr);
  EXPECT_EQ(status, 1);  // CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND
}

}  // namespace
