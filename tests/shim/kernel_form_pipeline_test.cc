// The whole path the interposer takes, with ptxas standing in for the
// driver's JIT (no GPU here): the PTX nvcc put in a fat binary
// (kernel_resources.cu; tests/shim/CMakeLists.txt) -> fatbin_ptx ->
// KernelFormCache (ReadPtx, AddKernelForms, PrintPtx) -> ptxas -> a cubin
// whose kernels are exactly the forms the analysis allows; a second run over
// the same directory compiles nothing.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ptx/kernel_forms.h"
#include "ptx/ptx_reader.h"
#include "shim/fatbin.h"
#include "shim/fatbin_ptx.h"
#include "shim/kernel_form_cache.h"

namespace colo::shim {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// PtxJit over the toolkit's ptxas: what the driver's JIT does, offline.
class PtxasJit : public PtxJit {
 public:
  explicit PtxasJit(std::string dir) : dir_(std::move(dir)) {}
  Result<std::string> Compile(std::string_view ptx, int arch) override {
    ++compiles;
    const std::string in = dir_ + "/in.ptx", out = dir_ + "/out.cubin",
                      log = dir_ + "/ptxas.log";
    std::ofstream(in, std::ios::binary) << ptx;
    auto target = ReadPtxTarget(ptx);
    std::string sm = "sm_" + std::to_string(arch);
    if (target.ok() && target->target == PtxTargetKind::kArchSpecific)
      sm += 'a';
    if (target.ok() && target->target == PtxTargetKind::kFamily) sm += 'f';
    const std::string cmd = std::string(COLO_PTXAS) + " -arch=" + sm + " -o " +
                            out + " " + in + " > " + log + " 2>&1";
    const int rc = std::system(cmd.c_str());
    if (rc != 0) return InternalError("ptxas: " + Slurp(log));
    return Slurp(out);
  }
  Result<int> DriverVersion() override { return 13000; }
  std::atomic<int> compiles{0};

 private:
  std::string dir_;
};

TEST(KernelFormPipelineTest, FatbinPtxToFormsCubinThroughPtxas) {
  char name[] = "/tmp/colo_form_pipeline_XXXXXX";
  ASSERT_NE(mkdtemp(name), nullptr);
  const std::string root = name;
  const std::string image =
      Slurp(std::string(COLO_FATBIN_PTX_DIR) + "/size.fatbin");
  auto ptx = ReadFatbinPtx(image.data(), image.size(), 80);
  ASSERT_TRUE(ptx.ok()) << ptx.status().ToString();
  ASSERT_EQ(ptx->arch, 80);

  // What the analysis allows, computed from the same text.
  auto module = ptx::ReadPtx(ptx->text, "kernel_resources");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  std::set<std::string> expected;
  for (const char* k : {"_Z5lightPf", "_Z5heavyPdi", "_Z7boundedPf"}) {
    const ptx::Transformability t = ptx::AnalyzeKernel(*module, k);
    if (t.slice) expected.insert(k + std::string(ptx::kSliceSuffix));
    if (t.persistent) expected.insert(k + std::string(ptx::kPersistentSuffix));
  }
  // The premise: these plain kernels have forms.
  ASSERT_TRUE(expected.count("_Z5lightPf__colo_slice"));

  KernelFormCache::Options o;
  o.arch = 80;
  o.directory = root + "/forms";
  o.log = [](std::string_view) {};
  PtxasJit jit(root);
  KernelFormCache cache(jit, o);
  auto forms = cache.Forms(ptx->text, "kernel_resources");
  ASSERT_TRUE(forms->error.empty()) << forms->error;
  EXPECT_EQ(jit.compiles, 1);
  ASSERT_FALSE(forms->cubin.empty())
      << forms->Kernel("_Z5lightPf").slice.reason;
  // The cubin's kernels: the forms allowed, and nothing else.
  auto resources = ReadCubinResources(forms->cubin, 80);
  ASSERT_TRUE(resources.ok()) << resources.status().ToString();
  std::set<std::string> got;
  for (const auto& [kernel, r] : *resources) got.insert(kernel);
  EXPECT_EQ(got, expected);
  for (const auto& [kernel, info] : forms->kernels) {
    EXPECT_EQ(info.slice.available,
              expected.count(kernel + std::string(ptx::kSliceSuffix)) > 0)
        << kernel << ": " << info.slice.reason;
    EXPECT_EQ(info.persistent.available,
              expected.count(kernel + std::string(ptx::kPersistentSuffix)) > 0)
        << kernel << ": " << info.persistent.reason;
  }

  // A second run compiles nothing and loads the same cubin.
  PtxasJit jit2(root);
  KernelFormCache again(jit2, o);
  auto cached = again.Forms(ptx->text, "kernel_resources");
  EXPECT_EQ(jit2.compiles, 0);
  EXPECT_TRUE(cached->from_disk);
  EXPECT_EQ(cached->cubin, forms->cubin);
  fs::remove_all(root);
}

}  // namespace
}  // namespace colo::shim
