// KernelFormCache (kernel_form_cache.h) over a fake JIT that counts its
// compiles and echoes the PTX it was given as the "cubin": what is
// compiled, when (first use only; never again over the same directory,
// again for another architecture or driver), what a damaged cache file or
// an unusable directory does, which kernels stay whole and why (logged
// once), and use from many threads.
#include "shim/kernel_form_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "ptx/kernel_forms.h"
#include "ptx/ptx_reader.h"
#include "shim/form_cache_file.h"

namespace colo::shim {
namespace {

namespace fs = std::filesystem;

class FakeJit : public PtxJit {
 public:
  Result<std::string> Compile(std::string_view ptx, int arch) override {
    ++compiles;
    // Long enough for threads asking for the same module to meet here.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (!fail_with.empty()) return InternalError(fail_with);
    return "FAKE-CUBIN sm_" + std::to_string(arch) + "\n" + std::string(ptx);
  }
  Result<int> DriverVersion() override {
    if (version < 0) return FailedPreconditionError("no driver");
    return version;
  }
  std::atomic<int> compiles{0};
  int version = 13000;
  std::string fail_with;
};

// Log lines, kept.
class Log {
 public:
  FormLog Sink() {
    return [this](std::string_view line) {
      std::lock_guard<std::mutex> lock(mutex_);
      lines_.emplace_back(line);
    };
  }
  // Lines containing `part`.
  int Count(std::string_view part) {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<int>(
        std::count_if(lines_.begin(), lines_.end(), [&](const std::string& l) {
          return l.find(part) != std::string::npos;
        }));
  }
  int size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<int>(lines_.size());
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> lines_;
};

// A kernel the forms can be built of (no barriers, no grid sync, no module
// variables); `k` makes distinct modules.
std::string PlainModule(int k = 1) {
  return R"(.version 8.0
.target sm_80
.address_size 64

.visible .entry add_k(
	.param .u64 add_k_param_0
)
{
	.reg .b32 %r<6>;
	.reg .b64 %rd<5>;

	ld.param.u64 %rd1, [add_k_param_0];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.s32 %r4, %r1, %r2, %r3;
	mul.wide.s32 %rd3, %r4, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.u32 %r5, [%rd4];
	add.s32 %r5, %r5, )" +
         std::to_string(k) + R"(;
	st.global.u32 [%rd4], %r5;
	ret;
}
)";
}

// Three kernels: one reading %envreg (grid-wide synchronization: whole),
// one adding to a module .global variable (a second module would have its
// own copy: whole), one reading libdevice's constant table (harmless to
// copy: forms built).
const char kMixedModule[] = R"(.version 8.0
.target sm_80
.address_size 64

.global .align 4 .u32 counter;
.global .align 4 .b8 __cudart_i2opi_f[8] = {1, 2, 3, 4, 5, 6, 7, 8};

.visible .entry grid_sync(
	.param .u64 grid_sync_param_0
)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<3>;

	ld.param.u64 %rd1, [grid_sync_param_0];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %envreg2;
	mov.u32 %r2, %ctaid.x;
	add.s32 %r1, %r1, %r2;
	st.global.u32 [%rd2], %r1;
	ret;
}

.visible .entry count_blocks(
	.param .u64 count_blocks_param_0
)
{
	.reg .b32 %r<3>;

	mov.u32 %r1, %ctaid.x;
	atom.global.add.u32 %r2, [counter], %r1;
	ret;
}

.visible .entry table_read(
	.param .u64 table_read_param_0
)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;

	ld.param.u64 %rd1, [table_read_param_0];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %ctaid.x;
	ld.global.u32 %r2, [__cudart_i2opi_f];
	add.s32 %r3, %r1, %r2;
	st.global.u32 [%rd2], %r3;
	ret;
}
)";

class KernelFormCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/colo_form_cache_XXXXXX";
    ASSERT_NE(mkdtemp(name), nullptr);
    root_ = name;
    dir_ = root_ + "/forms";
  }
  void TearDown() override { fs::remove_all(root_); }

  KernelFormCache::Options Opts(int arch = 80) {
    KernelFormCache::Options o;
    o.arch = arch;
    o.directory = dir_;
    o.log = log_.Sink();
    return o;
  }
  std::vector<fs::path> Files() {
    std::vector<fs::path> out;
    if (fs::exists(dir_))
      for (const auto& e : fs::directory_iterator(dir_))
        out.push_back(e.path());
    return out;
  }

  std::string root_, dir_;
  Log log_;
};

TEST_F(KernelFormCacheTest, FirstUseCompilesAndASecondRunCompilesNothing) {
  const std::string ptx = PlainModule();
  FakeJit jit;
  KernelFormCache first(jit, Opts());
  auto forms = first.Forms(ptx, "plain.ptx");
  ASSERT_NE(forms, nullptr);
  EXPECT_TRUE(forms->error.empty()) << forms->error;
  EXPECT_EQ(jit.compiles, 1);
  EXPECT_FALSE(forms->from_disk);
  const KernelFormInfo k = forms->Kernel("add_k");
  EXPECT_TRUE(k.slice.available) << k.slice.reason;
  EXPECT_TRUE(k.persistent.available) << k.persistent.reason;
  EXPECT_TRUE(k.transformable());
  // What was compiled: both forms, not the original kernel (the fake's
  // cubin is its input).
  EXPECT_NE(forms->cubin.find("add_k__colo_slice"), std::string::npos);
  EXPECT_NE(forms->cubin.find("add_k__colo_persistent"), std::string::npos);
  EXPECT_EQ(forms->cubin.find("add_k("), std::string::npos);
  EXPECT_EQ(forms->cubin.rfind("FAKE-CUBIN sm_80\n", 0), 0u);
  // The key is the SHA-256 of what was compiled.
  EXPECT_EQ(forms->key, Sha256Hex(forms->cubin.substr(17)));
  // Asked again: the same object, nothing compiled.
  EXPECT_EQ(first.Forms(ptx, "plain.ptx"), forms);
  EXPECT_EQ(jit.compiles, 1);
  EXPECT_EQ(first.stats().disk_writes, 1);
  ASSERT_EQ(Files().size(), 1u);

  // A second run (a new cache, a new JIT) over the same directory.
  FakeJit jit2;
  KernelFormCache second(jit2, Opts());
  auto again = second.Forms(ptx, "plain.ptx");
  EXPECT_EQ(jit2.compiles, 0);
  EXPECT_TRUE(again->from_disk);
  EXPECT_EQ(again->cubin, forms->cubin);
  EXPECT_EQ(again->key, forms->key);
  EXPECT_EQ(second.stats().disk_hits, 1);
  EXPECT_TRUE(again->Kernel("add_k").transformable());
}

TEST_F(KernelFormCacheTest, AnotherArchitectureOrDriverCompilesAgain) {
  const std::string ptx = PlainModule();
  FakeJit jit;
  {
    KernelFormCache c(jit, Opts(80));
    c.Forms(ptx, "m");
  }
  EXPECT_EQ(jit.compiles, 1);
  {
    KernelFormCache c(jit, Opts(90));
    c.Forms(ptx, "m");
  }
  EXPECT_EQ(jit.compiles, 2);
  jit.version = 13010;
  {
    KernelFormCache c(jit, Opts(80));
    c.Forms(ptx, "m");
  }
  EXPECT_EQ(jit.compiles, 3);
  // Each of the three keys has its file; asking for any again compiles
  // nothing.
  EXPECT_EQ(Files().size(), 3u);
  jit.version = 13000;
  for (int arch : {80, 90}) {
    KernelFormCache c(jit, Opts(arch));
    auto f = c.Forms(ptx, "m");
    EXPECT_TRUE(f->from_disk);
    EXPECT_EQ(f->cubin.rfind("FAKE-CUBIN sm_" + std::to_string(arch), 0), 0u);
  }
  EXPECT_EQ(jit.compiles, 3);
  // Another module is another key.
  {
    KernelFormCache c(jit, Opts(80));
    c.Forms(PlainModule(2), "m2");
  }
  EXPECT_EQ(jit.compiles, 4);
}

TEST_F(KernelFormCacheTest, DamagedOrForeignCacheFilesAreRecompiledNotLoaded) {
  const std::string ptx = PlainModule();
  FakeJit jit;
  std::string good_cubin;
  {
    KernelFormCache c(jit, Opts());
    good_cubin = c.Forms(ptx, "m")->cubin;
  }
  ASSERT_EQ(Files().size(), 1u);
  const fs::path file = Files()[0];
  std::string good;
  {
    std::ifstream in(file, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    good = s.str();
  }
  // Another module's file (arch 90) under this one's name: foreign.
  std::string foreign;
  {
    KernelFormCache c(jit, Opts(90));
    c.Forms(ptx, "m");
    for (const fs::path& p : Files())
      if (p != file) {
        std::ifstream in(p, std::ios::binary);
        std::stringstream s;
        s << in.rdbuf();
        foreign = s.str();
      }
  }
  ASSERT_FALSE(foreign.empty());
  std::vector<std::string> damaged = {"",
                                      good.substr(0, 10),
                                      good.substr(0, 95),
                                      good.substr(0, 96),
                                      good.substr(0, good.size() - 1),
                                      good + "trailing",
                                      foreign};
  for (size_t at : {size_t{0}, size_t{30}, size_t{60}, good.size() - 1}) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x20);
    damaged.push_back(bad);
  }
  for (size_t i = 0; i < damaged.size(); ++i) {
    SCOPED_TRACE(i);
    { std::ofstream(file, std::ios::binary | std::ios::trunc) << damaged[i]; }
    const int before = jit.compiles;
    KernelFormCache c(jit, Opts());
    auto f = c.Forms(ptx, "m");
    EXPECT_EQ(jit.compiles, before + 1);  // refused, compiled again
    EXPECT_EQ(c.stats().rejected_files, 1);
    EXPECT_FALSE(f->from_disk);
    EXPECT_EQ(f->cubin, good_cubin);
    // ... and the file rewritten: the next run loads it.
    KernelFormCache next(jit, Opts());
    EXPECT_TRUE(next.Forms(ptx, "m")->from_disk);
    EXPECT_EQ(jit.compiles, before + 1);
  }
}

TEST_F(KernelFormCacheTest, UnusableDirectoryCompilesInMemoryAndLogsOnce) {
  // Under a regular file nothing can be created (root included).
  { std::ofstream(root_ + "/file") << "x"; }
  FakeJit jit;
  KernelFormCache::Options o = Opts();
  o.directory = root_ + "/file/forms";
  KernelFormCache c(jit, o);
  for (int k = 1; k <= 3; ++k) {
    auto f = c.Forms(PlainModule(k), "m" + std::to_string(k));
    EXPECT_TRUE(f->Kernel("add_k").transformable());
    EXPECT_FALSE(f->cubin.empty());
  }
  EXPECT_EQ(jit.compiles, 3);
  EXPECT_EQ(c.stats().disk_writes, 0);
  EXPECT_EQ(log_.Count("compiled in memory"), 1);

  // A directory others may write is not trusted with code.
  ASSERT_EQ(mkdir(dir_.c_str(), 0777), 0);
  ASSERT_EQ(chmod(dir_.c_str(), 0777), 0);
  KernelFormCache open_dir(jit, Opts());
  EXPECT_TRUE(
      open_dir.Forms(PlainModule(), "m")->Kernel("add_k").transformable());
  EXPECT_TRUE(Files().empty());
  EXPECT_EQ(log_.Count("writable by others"), 1);

  // No directory at all; a driver whose version is unknown: memory only.
  KernelFormCache::Options none = Opts();
  none.directory.clear();
  KernelFormCache memory_only(jit, none);
  EXPECT_FALSE(memory_only.Forms(PlainModule(), "m")->cubin.empty());
  FakeJit no_version;
  no_version.version = -1;
  ASSERT_EQ(chmod(dir_.c_str(), 0700), 0);
  KernelFormCache unknown_driver(no_version, Opts());
  for (int k = 1; k <= 2; ++k)
    EXPECT_FALSE(unknown_driver.Forms(PlainModule(k), "m")->cubin.empty());
  EXPECT_EQ(no_version.compiles, 2);
  EXPECT_TRUE(Files().empty());
  EXPECT_EQ(log_.Count("version is unknown"), 1);
}

TEST_F(KernelFormCacheTest, KernelsThatStayWholeSayWhyOnce) {
  FakeJit jit;
  KernelFormCache c(jit, Opts());
  auto module = ptx::ReadPtx(kMixedModule, "mixed.ptx");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  // The premises: the analysis refuses grid_sync and allows the others.
  const ptx::Transformability sync = ptx::AnalyzeKernel(*module, "grid_sync");
  ASSERT_FALSE(sync.slice || sync.persistent);
  ASSERT_FALSE(sync.reason.empty());
  ASSERT_TRUE(ptx::AnalyzeKernel(*module, "count_blocks").slice);
  ASSERT_TRUE(ptx::AnalyzeKernel(*module, "table_read").slice);

  auto f = c.Forms(kMixedModule, "mixed.ptx");
  EXPECT_TRUE(f->error.empty());
  ASSERT_EQ(f->kernels.size(), 3u);
  const KernelFormInfo g = f->Kernel("grid_sync");
  EXPECT_FALSE(g.transformable());
  EXPECT_EQ(g.slice.reason, sync.reason);
  const KernelFormInfo counter = f->Kernel("count_blocks");
  EXPECT_FALSE(counter.transformable());
  EXPECT_NE(counter.slice.reason.find("'counter' (.global)"), std::string::npos)
      << counter.slice.reason;
  const KernelFormInfo table = f->Kernel("table_read");
  EXPECT_TRUE(table.slice.available) << table.slice.reason;
  // Only table_read's forms were compiled.
  EXPECT_EQ(jit.compiles, 1);
  EXPECT_NE(f->cubin.find("table_read__colo_slice"), std::string::npos);
  EXPECT_EQ(f->cubin.find("grid_sync__colo"), std::string::npos);
  EXPECT_EQ(f->cubin.find("count_blocks__colo"), std::string::npos);

  const KernelFormInfo missing = f->Kernel("no_such_kernel");
  EXPECT_FALSE(missing.transformable());
  EXPECT_NE(missing.slice.reason.find("no_such_kernel"), std::string::npos);

  // Asked 100 times: one line per kernel that stays whole.
  for (int i = 0; i < 100; ++i) {
    EXPECT_FALSE(
        c.KernelForms(kMixedModule, "mixed.ptx", "grid_sync").transformable());
    EXPECT_FALSE(c.KernelForms(kMixedModule, "mixed.ptx", "count_blocks")
                     .transformable());
    EXPECT_TRUE(
        c.KernelForms(kMixedModule, "mixed.ptx", "table_read").slice.available);
  }
  EXPECT_EQ(log_.Count("grid_sync"), 1);
  EXPECT_EQ(log_.Count("count_blocks"), 1);
  EXPECT_EQ(log_.Count("table_read"), 0);
  EXPECT_EQ(jit.compiles, 1);
}

TEST_F(KernelFormCacheTest, UnreadablePtxLeavesEveryKernelWholeNeverCompiled) {
  const std::string plain = PlainModule();
  std::string unknown_version = plain;
  unknown_version.replace(unknown_version.find("8.0"), 3, "10.0");
  const std::string inputs[] = {plain.substr(0, plain.size() / 2),  // cut
                                unknown_version, "", "\x01\x02garbage\xff",
                                plain.substr(0, plain.find("ret;"))};
  FakeJit jit;
  KernelFormCache c(jit, Opts());
  for (size_t i = 0; i < std::size(inputs); ++i) {
    SCOPED_TRACE(i);
    auto read = ptx::ReadPtx(inputs[i], "bad.ptx");
    ASSERT_FALSE(read.ok());  // the premise: the reader refuses it
    const std::string source = "bad" + std::to_string(i) + ".ptx";
    auto f = c.Forms(inputs[i], source);
    EXPECT_FALSE(f->error.empty());
    EXPECT_TRUE(f->kernels.empty());
    EXPECT_TRUE(f->cubin.empty());
    for (int n = 0; n < 100; ++n) {
      const KernelFormInfo k = c.KernelForms(inputs[i], source, "add_k");
      EXPECT_FALSE(k.transformable());
      EXPECT_EQ(k.slice.reason, f->error);
    }
    // One line for the module, one for the kernel asked about.
    EXPECT_EQ(log_.Count(source), 2);
  }
  EXPECT_EQ(jit.compiles, 0);
  // The reader's own message, under the name the module was first read by.
  auto f = c.Forms(unknown_version, "another name");
  EXPECT_NE(f->error.find(
                ptx::ReadPtx(unknown_version, "bad1.ptx").status().message()),
            std::string::npos)
      << f->error;
}

TEST_F(KernelFormCacheTest, AFailedCompileLeavesKernelsWholeAndIsNotCached) {
  FakeJit jit;
  jit.fail_with = "ptxas fatal   : Unresolved extern function 'helper'";
  {
    KernelFormCache c(jit, Opts());
    auto f = c.Forms(PlainModule(), "m");
    const KernelFormInfo k = f->Kernel("add_k");
    EXPECT_FALSE(k.transformable());
    EXPECT_NE(k.slice.reason.find(jit.fail_with), std::string::npos);
    EXPECT_NE(k.persistent.reason.find(jit.fail_with), std::string::npos);
    EXPECT_TRUE(f->cubin.empty());
    EXPECT_EQ(c.stats().compile_errors, 1);
    EXPECT_EQ(log_.Count("Unresolved extern"), 1);
  }
  EXPECT_TRUE(Files().empty());
  jit.fail_with.clear();
  KernelFormCache c(jit, Opts());
  EXPECT_TRUE(c.Forms(PlainModule(), "m")->Kernel("add_k").transformable());
  EXPECT_EQ(jit.compiles, 2);
}

TEST_F(KernelFormCacheTest, AnalyzeSaysWhatFormsThereAreWithoutCompiling) {
  // A kernel's forms are declared to colod at its first launch and compiled
  // only when colod first grants one: Analyze reads and rewrites, no JIT.
  FakeJit jit;
  KernelFormCache c(jit, Opts());
  auto analyzed = c.Analyze(PlainModule(), "m");
  EXPECT_EQ(jit.compiles, 0);
  EXPECT_TRUE(analyzed->cubin.empty());
  EXPECT_TRUE(analyzed->Kernel("add_k").slice.available);
  EXPECT_TRUE(analyzed->Kernel("add_k").persistent.available);
  EXPECT_EQ(c.Analyze(PlainModule(), "m"), analyzed);  // once per module
  // Forms compiles once, with the same availability; Analyze then answers
  // with the compiled forms.
  auto forms = c.Forms(PlainModule(), "m");
  EXPECT_EQ(jit.compiles, 1);
  EXPECT_FALSE(forms->cubin.empty());
  EXPECT_TRUE(forms->Kernel("add_k").transformable());
  EXPECT_EQ(c.Analyze(PlainModule(), "m"), forms);
  // A compile that fails takes the forms the analysis promised away.
  FakeJit failing;
  failing.fail_with = "ptxas fatal   : out of registers";
  KernelFormCache f(failing, Opts(86));
  EXPECT_TRUE(f.Analyze(PlainModule(), "m")->Kernel("add_k").transformable());
  EXPECT_FALSE(f.Forms(PlainModule(), "m")->Kernel("add_k").transformable());
  EXPECT_EQ(failing.compiles, 1);
}

TEST_F(KernelFormCacheTest, ManyThreadsCompileEachModuleOnce) {
  // 8 threads ask for 4 modules 50 times each, in different orders: each
  // module is compiled exactly once and every caller gets the same object.
  constexpr int kThreads = 8, kModules = 4, kRounds = 50;
  std::vector<std::string> modules;
  for (int k = 1; k <= kModules; ++k) modules.push_back(PlainModule(k));
  FakeJit jit;
  KernelFormCache c(jit, Opts());
  std::vector<std::vector<const ModuleForms*>> seen(
      kThreads, std::vector<const ModuleForms*>(kModules));
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        for (int i = 0; i < kModules; ++i) {
          const int m = (i + t + r) % kModules;
          auto f = c.Forms(modules[m], "m" + std::to_string(m));
          if (seen[t][m] == nullptr) seen[t][m] = f.get();
          if (seen[t][m] != f.get() || !f->Kernel("add_k").transformable())
            ++wrong;
          c.KernelForms(modules[m], "m" + std::to_string(m), "add_k");
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(jit.compiles, kModules);
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(seen[t], seen[0]);
  EXPECT_EQ(Files().size(), static_cast<size_t>(kModules));
}

TEST_F(KernelFormCacheTest, TwoCachesOverOneDirectoryAtOnceLeaveGoodFiles) {
  // Two processes' caches write the same files concurrently: each file is
  // whole afterwards (write + rename), so a third run compiles nothing.
  constexpr int kModules = 4;
  FakeJit jit_a, jit_b;
  KernelFormCache a(jit_a, Opts()), b(jit_b, Opts());
  std::vector<std::thread> threads;
  for (KernelFormCache* c : {&a, &b, &a, &b})
    threads.emplace_back([c] {
      for (int k = 1; k <= kModules; ++k) c->Forms(PlainModule(k), "m");
    });
  for (std::thread& t : threads) t.join();
  EXPECT_GE(jit_a.compiles + jit_b.compiles, kModules);
  EXPECT_LE(jit_a.compiles + jit_b.compiles, 2 * kModules);
  FakeJit jit_c;
  KernelFormCache c(jit_c, Opts());
  for (int k = 1; k <= kModules; ++k)
    EXPECT_TRUE(c.Forms(PlainModule(k), "m")->from_disk);
  EXPECT_EQ(jit_c.compiles, 0);
  // No temporary file is left behind.
  EXPECT_EQ(Files().size(), static_cast<size_t>(kModules));
}

TEST(FormCacheDirectoryTest, EnvironmentChoosesTheDirectory) {
  struct Saved {
    const char* name;
    std::string value;
    bool set;
  };
  std::vector<Saved> saved;
  for (const char* n : {"COLO_FORM_CACHE_DIR", "XDG_CACHE_HOME", "HOME"}) {
    const char* v = std::getenv(n);
    saved.push_back({n, v ? v : "", v != nullptr});
  }
  setenv("COLO_FORM_CACHE_DIR", "/x/forms", 1);
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(DefaultFormCacheDirectory(), "/x/forms");
  unsetenv("COLO_FORM_CACHE_DIR");
  EXPECT_EQ(DefaultFormCacheDirectory(), "/xdg/colo/forms");
  setenv("XDG_CACHE_HOME", "", 1);  // empty counts as unset
  EXPECT_EQ(DefaultFormCacheDirectory(), "/home/u/.cache/colo/forms");
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HOME");
  EXPECT_EQ(DefaultFormCacheDirectory(), "");
  for (const Saved& s : saved) {
    if (s.set)
      setenv(s.name, s.value.c_str(), 1);
    else
      unsetenv(s.name);
  }
}

}  // namespace
}  // namespace colo::shim
