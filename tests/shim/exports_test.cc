// libcolo_preload.so exports exactly the symbols of the one hook table
// (src/shim/hook_table.h) and the CUDA runtime functions it defines besides
// (src/shim/runtime_stubs.cc, runtime_stubs_test.cc), and each hook
// resolves to the library's own definition.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>

#include "library_symbols.h"
#include "runtime_stub_names.h"
#include "shim/nvtx_injection.h"

namespace {

const std::string kLib = std::string(COLO_BINARY_DIR) + "/libcolo_preload.so";

using colo::testing::DefinedFunctions;
using colo::testing::HookTableNames;

TEST(ShimExportsTest, ExportsExactlyTheHookTableAndTheRuntimeStubs) {
  const std::set<std::string> table = HookTableNames();
  const std::set<std::string> stubs = colo::testing::RuntimeStubNames();
  const std::set<std::string> exported = DefinedFunctions(kLib);
  ASSERT_FALSE(exported.empty()) << "could not list the exports of " << kLib;
  for (const std::string& name : table)
    EXPECT_TRUE(exported.count(name))
        << name << " is in the table but not exported";
  // Besides the hooks: NVTX's injection entry point, which interposes on
  // nothing (NVTX asks for it by name, nvtx_injection.h).
  EXPECT_TRUE(exported.count(colo::shim::kNvtxEntryPoint));
  for (const std::string& name : stubs)
    EXPECT_TRUE(exported.count(name)) << name << " is a stub but not exported";
  for (const std::string& name : exported)
    EXPECT_TRUE(table.count(name) || stubs.count(name) ||
                name == colo::shim::kNvtxEntryPoint)
        << name << " is exported but neither in the table nor a stub";
  EXPECT_EQ(table.size(), static_cast<size_t>(colo::shim::kHookCount));
}

TEST(ShimExportsTest, EveryHookResolvesInsideTheLibrary) {
  void* lib = dlopen(kLib.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  for (const std::string& name : HookTableNames()) {
    void* sym = dlsym(lib, name.c_str());
    ASSERT_NE(sym, nullptr) << name;
    Dl_info info{};
    ASSERT_NE(dladdr(sym, &info), 0) << name;
    EXPECT_NE(std::string(info.dli_fname).find("libcolo_preload.so"),
              std::string::npos)
        << name << " resolves to " << info.dli_fname;
  }
  dlclose(lib);
}

TEST(ShimExportsTest, NvccEmittedSymbolsAreHooked) {
  // What nvcc 13 emits for a program with one kernel (see `nm -D` of any
  // -cudart shared binary), plus the CUDA 12 launch entry point.
  const std::set<std::string> table = HookTableNames();
  for (const char* name :
       {"__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd",
        "__cudaRegisterFunction", "__cudaUnregisterFatBinary",
        "__cudaPushCallConfiguration", "__cudaPopCallConfiguration",
        "__cudaLaunchKernel", "__cudaGetKernel", "__cudaInitModule",
        "cudaLaunchKernel", "cuLaunchKernel", "cuMemAlloc_v2", "cuMemFree_v2",
        "cuGetProcAddress", "dlsym"}) {
    EXPECT_TRUE(table.count(name)) << name;
  }
}

}  // namespace
