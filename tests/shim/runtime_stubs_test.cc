// The CUDA runtime functions the interposer does not hook
// (src/shim/runtime_stubs.cc): every function of the toolkit's
// libcudart.so is defined by libcolo_preload.so, hooked or stubbed; a stub
// is refused aloud on the simulated GPU (801, one line on stderr per call,
// counted by colod), forwarded with its arguments unchanged in gate mode
// unless it takes a stream or event (then refused there too), and the
// functions that need no device are forwarded in both. colod runs
// in process (tests/runtime/in_process_colod.h); the programs are
// tests/shim/runtime_stubs_program (against fake_cudart) and the nvcc-built
// tests/cuda_programs/unhooked_calls.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "in_process_colod.h"
#include "library_symbols.h"
#include "runtime_stub_names.h"

namespace colo::runtime {
namespace {

using colo::testing::DefinedFunctions;
using colo::testing::HaveRuntimeStubs;
using colo::testing::HookTableNames;
using colo::testing::RuntimeStubNames;

const std::string kBin = COLO_BINARY_DIR;
const std::string kPreload = kBin + "/libcolo_preload.so";
constexpr size_t npos = std::string::npos;

TEST(RuntimeStubsTest, EveryRuntimeFunctionIsDefinedByTheInterposer) {
  if (!HaveRuntimeStubs())
    GTEST_SKIP() << "built without the CUDA toolkit's libcudart.so: no stubs";
  const std::set<std::string> runtime =
      DefinedFunctions(COLO_CUDA_RUNTIME_LIBRARY);
  const std::set<std::string> exported = DefinedFunctions(kPreload);
  const std::set<std::string> hooked = HookTableNames();
  const std::set<std::string> forwarded = RuntimeStubNames("FORWARDED");
  const std::set<std::string> refused = RuntimeStubNames("REFUSED");
  ASSERT_GT(refused.size(), 10u);
  // Those taking a stream or event are refused in gate mode too.
  EXPECT_TRUE(refused.count("cudaMemcpy2DToArrayAsync"));
  // Every stub, refused in gate mode or not.
  const std::set<std::string> stubs = [&] {
    std::set<std::string> all = RuntimeStubNames("STUB");
    for (const std::string& name : refused)
      EXPECT_TRUE(all.insert(name).second) << name << " listed twice";
    return all;
  }();
  EXPECT_TRUE(stubs.count("cudaIpcGetMemHandle"));
  EXPECT_FALSE(refused.count("cudaIpcGetMemHandle"));
  // CUDA 13.0's runtime has 422 functions, about 200 of them not hooked.
  ASSERT_GT(runtime.size(), 300u);
  ASSERT_GT(stubs.size(), 100u);
  for (const std::string& name : runtime) {
    // nvcc's registration entry points take the interposer's fat-binary
    // handles: one not hooked cannot be forwarded, so none is stubbed.
    if (name.rfind("__cuda", 0) == 0 && hooked.count(name) == 0) {
      EXPECT_EQ(stubs.count(name) + forwarded.count(name), 0u) << name;
      continue;
    }
    EXPECT_TRUE(exported.count(name)) << name << " is not defined";
    EXPECT_EQ(hooked.count(name) + stubs.count(name) + forwarded.count(name),
              1u)
        << name << ": hooked, stubbed or forwarded, exactly one";
  }
  // Forwarded in sim mode too: only what the runtime answers without a
  // device.
  for (const std::string& name : forwarded)
    EXPECT_TRUE(name == "cudaGetErrorName" || name == "cudaGetErrorString" ||
                name == "cudaCreateChannelDesc" ||
                name == "cudaRuntimeGetVersion")
        << name;
  // Each resolves to the interposer's own definition.
  void* lib = dlopen(kPreload.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  for (const std::set<std::string>* names : {&stubs, &forwarded}) {
    for (const std::string& name : *names) {
      void* sym = dlsym(lib, name.c_str());
      ASSERT_NE(sym, nullptr) << name;
      Dl_info info{};
      ASSERT_NE(dladdr(sym, &info), 0) << name;
      EXPECT_NE(std::string(info.dli_fname).find("libcolo_preload.so"), npos)
          << name << " resolves to " << info.dli_fname;
    }
  }
  dlclose(lib);
}

struct ProgramRun {
  std::string out, err;
};

// `program` under the interposer against `socket`, stdout and stderr apart,
// stopped after 60 s.
ProgramRun RunUnderInterposer(const std::string& socket,
                              const std::string& program) {
  char tmpl[] = "/tmp/colo-runtime-stubs-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string cmd = "COLO_SOCKET=" + socket + " LD_PRELOAD=" + kPreload +
                          " timeout 60 " + program + " >" + dir + "/out 2>" +
                          dir + "/err";
  const int status = std::system(cmd.c_str());
  EXPECT_EQ(status, 0) << cmd;
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  ProgramRun r{read(dir + "/out"), read(dir + "/err")};
  std::remove((dir + "/out").c_str());
  std::remove((dir + "/err").c_str());
  rmdir(dir.c_str());
  return r;
}

std::string ValueOf(const std::string& text, const std::string& key) {
  const std::string t = "\n" + text, k = "\n" + key + "=";
  const size_t p = t.find(k);
  if (p == npos) return "(missing)";
  const size_t start = p + k.size();
  return t.substr(start, t.find('\n', start) - start);
}

// How often `call` was announced refused on `err`.
int Announcements(const std::string& err, const std::string& call) {
  const std::string said = "colo: " + call + " is not supported under colo (";
  int n = 0;
  for (size_t p = err.find(said); p != npos; p = err.find(said, p + 1)) ++n;
  return n;
}

// colod's refused_calls once it has read the ring (at most 5 s).
long RefusedCalls(const InProcessColod& colod, long expected) {
  long seen = -1;
  for (int i = 0; i < 100; ++i) {
    const nlohmann::json s = colod.Stats();
    if (!s.is_null()) seen = s.value("refused_calls", -1L);
    if (seen == expected) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return seen;
}

const std::string kStubProgram =
    kBin + "/tests/cuda_programs/runtime_stubs_program";

TEST(RuntimeStubsTest, SimModeRefusesAloudAndCounts) {
  if (!HaveRuntimeStubs()) GTEST_SKIP() << "built without the runtime's stubs";
  InProcessColod colod("device: sim\ngpu: A100\n");
  ASSERT_TRUE(colod.ok());
  const ProgramRun r = RunUnderInterposer(colod.socket(), kStubProgram);
  EXPECT_EQ(ValueOf(r.out, "malloc"), "0") << r.out;
  // Refused, not handed to fake_cudart (which would fill the handle).
  EXPECT_EQ(ValueOf(r.out, "ipc"), "801") << r.out;
  EXPECT_EQ(ValueOf(r.out, "ipc_handle"), "(none)") << r.out;
  EXPECT_EQ(ValueOf(r.out, "ipc_again"), "801") << r.out;
  EXPECT_EQ(ValueOf(r.out, "last_error"), "801") << r.out;
  EXPECT_EQ(ValueOf(r.out, "last_error_cleared"), "0") << r.out;
  EXPECT_EQ(ValueOf(r.out, "array_copy"), "801") << r.out;
  EXPECT_EQ(ValueOf(r.out, "array_copy_again"), "801") << r.out;
  EXPECT_EQ(ValueOf(r.out, "array_copy_async"), "801") << r.out;
  // Error texts need no device: the runtime's own, in sim mode too.
  EXPECT_EQ(ValueOf(r.out, "error_string"), "fake_cudart: error 801") << r.out;
  EXPECT_EQ(ValueOf(r.out, "free"), "0") << r.out;
  EXPECT_EQ(Announcements(r.err, "cudaIpcGetMemHandle"), 1) << r.err;
  EXPECT_EQ(Announcements(r.err, "cudaMemcpy2DArrayToArray"), 1) << r.err;
  EXPECT_EQ(Announcements(r.err, "cudaMemcpy2DToArrayAsync"), 1) << r.err;
  EXPECT_NE(r.err.find("colo does not implement this CUDA runtime call"), npos)
      << r.err;
  EXPECT_EQ(RefusedCalls(colod, 3), 3);
}

TEST(RuntimeStubsTest, GateModeForwardsWithArgumentsUnchanged) {
  if (!HaveRuntimeStubs()) GTEST_SKIP() << "built without the runtime's stubs";
  InProcessColod colod("device: cuda\ngpu: A100\n");
  ASSERT_TRUE(colod.ok());
  const ProgramRun r = RunUnderInterposer(colod.socket(), kStubProgram);
  EXPECT_EQ(ValueOf(r.out, "malloc"), "0") << r.out << r.err;
  EXPECT_EQ(ValueOf(r.out, "ipc"), "0") << r.out;
  EXPECT_EQ(ValueOf(r.out, "ipc_handle"), "fake_cudart ipc handle") << r.out;
  EXPECT_EQ(ValueOf(r.out, "ipc_again"), "0") << r.out;
  // fake_cudart answers 0 only if all nine arguments, three of them on the
  // stack, arrived as sent.
  EXPECT_EQ(ValueOf(r.out, "array_copy"), "0") << r.out;
  EXPECT_EQ(ValueOf(r.out, "array_copy_again"), "0") << r.out;
  // A stream in gate mode is the interposer's object: not handed over.
  EXPECT_EQ(ValueOf(r.out, "array_copy_async"), "801") << r.out;
  EXPECT_EQ(Announcements(r.err, "cudaMemcpy2DToArrayAsync"), 1) << r.err;
  EXPECT_NE(r.err.find("it takes a stream or event"), npos) << r.err;
  EXPECT_EQ(ValueOf(r.out, "error_string"), "fake_cudart: error 801") << r.out;
  EXPECT_EQ(ValueOf(r.out, "free"), "0") << r.out;
  EXPECT_EQ(Announcements(r.err, "cudaIpcGetMemHandle"), 0) << r.err;
  EXPECT_EQ(Announcements(r.err, "cudaMemcpy2DArrayToArray"), 0) << r.err;
  EXPECT_EQ(RefusedCalls(colod, 1), 1);
}

TEST(RuntimeStubsTest, ColodUnreachableIsNotARefusal) {
  if (!HaveRuntimeStubs()) GTEST_SKIP() << "built without the runtime's stubs";
  const ProgramRun r =
      RunUnderInterposer("/nonexistent/colod.sock", kStubProgram);
  EXPECT_EQ(ValueOf(r.out, "ipc"), "46") << r.out;  // DevicesUnavailable
  EXPECT_EQ(ValueOf(r.out, "array_copy"), "46") << r.out;
  EXPECT_EQ(r.err.find("is not supported under colo"), npos) << r.err;
}

// The case: an nvcc-built program calling functions colo does not
// implement met the real runtime's cudaErrorInsufficientDriver (35) on the
// simulated GPU, with nothing said and nothing counted.
TEST(RuntimeStubsTest, NvccProgramIsRefusedAloudOnTheSimulatedGpu) {
  if (!HaveRuntimeStubs()) GTEST_SKIP() << "built without the runtime's stubs";
  const std::string program = kBin + "/tests/cuda_programs/unhooked_calls";
  if (access(program.c_str(), X_OK) != 0)
    GTEST_SKIP() << "tests/shim/unhooked_calls.cu was not built (no nvcc)";
  InProcessColod colod("device: sim\ngpu: A100\n");
  ASSERT_TRUE(colod.ok());
  const ProgramRun r = RunUnderInterposer(colod.socket(), program);
  EXPECT_EQ(ValueOf(r.out, "malloc"), "0") << r.out << r.err;
  EXPECT_EQ(ValueOf(r.out, "launch"), "0") << r.out;
  EXPECT_EQ(ValueOf(r.out, "ipc"), "801") << r.out;
  EXPECT_EQ(ValueOf(r.out, "ipc_again"), "801") << r.out;
  EXPECT_EQ(ValueOf(r.out, "last_error"), "801") << r.out;
  EXPECT_EQ(ValueOf(r.out, "l2_reset"), "801") << r.out;
  EXPECT_EQ(ValueOf(r.out, "error_name"), "cudaErrorNotSupported") << r.out;
  EXPECT_EQ(ValueOf(r.out, "sync"), "0") << r.out;
  EXPECT_EQ(ValueOf(r.out, "free"), "0") << r.out;
  EXPECT_EQ(Announcements(r.err, "cudaIpcGetMemHandle"), 1) << r.err;
  EXPECT_EQ(Announcements(r.err, "cudaCtxResetPersistingL2Cache"), 1) << r.err;
  EXPECT_EQ(RefusedCalls(colod, 2), 2);
}

}  // namespace
}  // namespace colo::runtime
