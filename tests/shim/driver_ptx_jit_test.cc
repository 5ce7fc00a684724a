// DriverPtxJit's calls into the driver, against a fake driver whose entry
// points the resolver hands out: the options it passes (error log, target),
// the PTX it adds, the cubin it copies out before destroying the link state,
// and the errors it reports. Where the CUDA toolkit is, the ABI values
// DriverPtxJit declares are checked against cuda.h.
#include "shim/driver_ptx_jit.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#ifdef COLO_HAVE_CUDA_H
#include <cuda.h>
static_assert(colo::shim::jit_abi::kJitInfoLogBuffer == CU_JIT_INFO_LOG_BUFFER);
static_assert(colo::shim::jit_abi::kJitInfoLogBufferSizeBytes ==
              CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
static_assert(colo::shim::jit_abi::kJitErrorLogBuffer ==
              CU_JIT_ERROR_LOG_BUFFER);
static_assert(colo::shim::jit_abi::kJitErrorLogBufferSizeBytes ==
              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
static_assert(colo::shim::jit_abi::kJitTarget == CU_JIT_TARGET);
static_assert(colo::shim::jit_abi::kJitInputPtx == CU_JIT_INPUT_PTX);
static_assert(colo::shim::jit_abi::kAcceleratedTargetBase ==
              CU_COMPUTE_ACCELERATED_TARGET_BASE);
static_assert(colo::shim::jit_abi::kFamilyTargetBase ==
              CU_COMPUTE_FAMILY_TARGET_BASE);
static_assert(CU_TARGET_COMPUTE_90A ==
              colo::shim::jit_abi::kAcceleratedTargetBase + 90);
static_assert(CU_TARGET_COMPUTE_103F ==
              colo::shim::jit_abi::kFamilyTargetBase + 103);
#endif

namespace colo::shim {
namespace {

// What the fake driver saw and will answer.
struct FakeDriver {
  int target = -1;
  bool log_given = false;
  std::string added;  // the bytes cuLinkAddData received
  int creates = 0, destroys = 0;
  int add_result = 0;     // CUresult of cuLinkAddData
  std::string error_log;  // written to the error log buffer on failure
  std::vector<char>* cubin = nullptr;  // owned by the "link state"
} g_fake;

int FakeCreate(unsigned n, int* options, void** values, void** state) {
  ++g_fake.creates;
  char* log = nullptr;
  size_t log_size = 0;
  for (unsigned i = 0; i < n; ++i) {
    const auto v = reinterpret_cast<uintptr_t>(values[i]);
    if (options[i] == jit_abi::kJitTarget) g_fake.target = static_cast<int>(v);
    if (options[i] == jit_abi::kJitErrorLogBuffer)
      log = static_cast<char*>(values[i]);
    if (options[i] == jit_abi::kJitErrorLogBufferSizeBytes) log_size = v;
  }
  g_fake.log_given = log != nullptr && log_size > 0;
  if (g_fake.log_given && !g_fake.error_log.empty())
    std::strncpy(log, g_fake.error_log.c_str(), log_size - 1);
  *state = &g_fake;
  return 0;
}
int FakeAddData(void* state, int type, void* data, size_t size,
                const char* name, unsigned, int*, void**) {
  EXPECT_EQ(state, &g_fake);
  EXPECT_EQ(type, jit_abi::kJitInputPtx);
  EXPECT_NE(name, nullptr);
  g_fake.added.assign(static_cast<const char*>(data), size);
  return g_fake.add_result;
}
int FakeComplete(void*, void** cubin, size_t* size) {
  // The cubin lives in the link state until cuLinkDestroy.
  g_fake.cubin =
      new std::vector<char>(g_fake.added.begin(), g_fake.added.end());
  g_fake.cubin->insert(g_fake.cubin->begin(), {'E', 'L', 'F', ':'});
  *cubin = g_fake.cubin->data();
  *size = g_fake.cubin->size();
  return 0;
}
int FakeDestroy(void*) {
  ++g_fake.destroys;
  if (g_fake.cubin != nullptr) {
    std::fill(g_fake.cubin->begin(), g_fake.cubin->end(), 'X');
    delete g_fake.cubin;
    g_fake.cubin = nullptr;
  }
  return 0;
}
int FakeVersion(int* v) {
  *v = 13000;
  return 0;
}
int FakeErrorName(int error, const char** name) {
  *name = error == 218 ? "CUDA_ERROR_INVALID_PTX" : "CUDA_ERROR_UNKNOWN";
  return 0;
}

void* FakeResolve(const char* name) {
  const std::string n = name;
  if (n == "cuLinkCreate_v2") return reinterpret_cast<void*>(&FakeCreate);
  if (n == "cuLinkAddData_v2") return reinterpret_cast<void*>(&FakeAddData);
  if (n == "cuLinkComplete") return reinterpret_cast<void*>(&FakeComplete);
  if (n == "cuLinkDestroy") return reinterpret_cast<void*>(&FakeDestroy);
  if (n == "cuDriverGetVersion") return reinterpret_cast<void*>(&FakeVersion);
  if (n == "cuGetErrorName") return reinterpret_cast<void*>(&FakeErrorName);
  return nullptr;
}
void* NothingResolves(const char*) { return nullptr; }

constexpr std::string_view kPtx80 =
    ".version 9.0\n.target sm_80\n.address_size 64\n";

TEST(DriverPtxJitTest, LinksThePtxAndCopiesTheCubinBeforeDestroying) {
  g_fake = FakeDriver();
  DriverPtxJit jit(FakeResolve);
  auto cubin = jit.Compile(kPtx80, 86);
  ASSERT_TRUE(cubin.ok()) << cubin.status().ToString();
  // The PTX went in NUL-terminated (size = length + 1); the cubin came out
  // intact although the fake overwrote and freed it in cuLinkDestroy.
  EXPECT_EQ(g_fake.added, std::string(kPtx80) + '\0');
  EXPECT_EQ(*cubin, "ELF:" + std::string(kPtx80) + '\0');
  EXPECT_EQ(g_fake.target, 86);
  EXPECT_TRUE(g_fake.log_given);
  EXPECT_EQ(g_fake.creates, 1);
  EXPECT_EQ(g_fake.destroys, 1);
  auto version = jit.DriverVersion();
  ASSERT_TRUE(version.ok());
  EXPECT_EQ(*version, 13000);
}

TEST(DriverPtxJitTest, TargetFollowsThePtxsOwnTarget) {
  using jit_abi::kAcceleratedTargetBase;
  using jit_abi::kFamilyTargetBase;
  EXPECT_EQ(DriverPtxJit::TargetFor(".target sm_80\n", 90), 90);
  EXPECT_EQ(DriverPtxJit::TargetFor(".target sm_90a\n", 90),
            kAcceleratedTargetBase + 90);
  EXPECT_EQ(DriverPtxJit::TargetFor(".target sm_100f\n", 103),
            kFamilyTargetBase + 103);
  EXPECT_EQ(DriverPtxJit::TargetFor("no target", 80), 80);
}

TEST(DriverPtxJitTest, AFailedLinkReportsTheJitLogAndDestroysTheState) {
  g_fake = FakeDriver();
  g_fake.add_result = 218;
  g_fake.error_log = "ptxas application ptx input, line 3; error   : bad\n";
  DriverPtxJit jit(FakeResolve);
  auto cubin = jit.Compile(kPtx80, 80);
  ASSERT_FALSE(cubin.ok());
  EXPECT_EQ(cubin.status().code(), StatusCode::kInternal);
  EXPECT_NE(cubin.status().message().find("CUDA_ERROR_INVALID_PTX"),
            std::string::npos);
  EXPECT_NE(cubin.status().message().find("line 3; error   : bad"),
            std::string::npos);
  EXPECT_EQ(cubin.status().message().find('\n'), std::string::npos);
  EXPECT_EQ(g_fake.destroys, 1);
}

TEST(DriverPtxJitTest, ADriverWithoutTheLinkerIsAnErrorNotACrash) {
  DriverPtxJit jit(NothingResolves);
  auto cubin = jit.Compile(kPtx80, 80);
  ASSERT_FALSE(cubin.ok());
  EXPECT_EQ(cubin.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_FALSE(jit.DriverVersion().ok());
}

}  // namespace
}  // namespace colo::shim
