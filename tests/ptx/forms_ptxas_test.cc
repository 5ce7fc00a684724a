// ptxas accepts every form AddKernelForms builds, for every kernel nvcc
// compiled from tests/ptx/kernels and tests/cuda_programs
// (COLO_PTX_KERNEL_DIR), for sm_80 and sm_90; and every kernel that stays
// without a form has a stated reason. ptxas runs once per module and
// architecture with -v; its "Used N registers, ... M bytes smem" lines give
// the table printed at the end (original vs sliced vs persistent), which
// shows what a form costs in registers, static shared memory and named
// barriers.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ptx/kernel_forms.h"
#include "ptx/ptx_printer.h"
#include "ptx/ptx_reader.h"

namespace colo::ptx {
namespace {

namespace fs = std::filesystem;

// ptxas of the CUDA toolkit, or the first one on PATH; empty if none.
std::string FindPtxas() {
  if (fs::exists("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const fs::path candidate = fs::path(dir) / "ptxas";
    if (!dir.empty() && access(candidate.c_str(), X_OK) == 0) {
      return candidate.string();
    }
  }
  return "";
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Usage {
  int registers = -1;
  int barriers = 0;  // named barriers reserved (limits blocks per SM)
  int smem = 0;      // static shared bytes; ptxas omits the field when 0
};

struct PtxasRun {
  int exit_code = -1;
  std::string output;
  std::map<std::string, Usage> usage;  // per entry
};

// Parses ptxas -v output: per "Compiling entry function 'K'" block, its
// "Used N registers, used B barriers, M bytes smem" line.
std::map<std::string, Usage> ParseUsage(const std::string& output) {
  static const std::regex kEntry(R"(Compiling entry function '([^']+)')");
  static const std::regex kUsed(R"(Used (\d+) registers)");
  static const std::regex kSmem(R"((\d+) bytes smem)");
  static const std::regex kBarriers(R"(used (\d+) barriers)");
  std::map<std::string, Usage> usage;
  std::stringstream lines(output);
  std::string line;
  std::string current;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_search(line, m, kEntry)) {
      current = m[1];
      usage[current];
    } else if (!current.empty() && std::regex_search(line, m, kUsed)) {
      Usage& u = usage[current];
      u.registers = std::stoi(m[1]);
      if (std::regex_search(line, m, kSmem)) u.smem = std::stoi(m[1]);
      if (std::regex_search(line, m, kBarriers)) {
        u.barriers = std::stoi(m[1]);
      }
    }
  }
  return usage;
}

// Runs `ptxas -arch=<arch> -v` on `file` for each of `archs`, all at once
// (the test's time is mostly ptxas's).
std::vector<PtxasRun> RunPtxas(const std::string& ptxas, const fs::path& file,
                               const std::vector<std::string>& archs) {
  std::string command;
  for (const std::string& arch : archs) {
    const std::string out = file.string() + "." + arch;
    command += "('" + ptxas + "' -arch=" + arch + " -v -o /dev/null '" +
               file.string() + "' > '" + out + ".txt' 2>&1; echo $? > '" + out +
               ".rc') & ";
  }
  command += "wait";
  std::vector<PtxasRun> runs(archs.size());
  if (std::system(command.c_str()) != 0) return runs;
  for (size_t i = 0; i < archs.size(); ++i) {
    const std::string out = file.string() + "." + archs[i];
    runs[i].output = ReadFile(out + ".txt");
    const std::string rc = ReadFile(out + ".rc");
    runs[i].exit_code = rc.empty() ? -1 : std::stoi(rc);
    runs[i].usage = ParseUsage(runs[i].output);
  }
  return runs;
}

std::vector<fs::path> KernelFiles() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(COLO_PTX_KERNEL_DIR)) {
    if (e.path().extension() == ".ptx") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> EntryNames(const Module& m) {
  std::vector<std::string> names;
  for (const TopLevel& item : m.items) {
    const auto* f = std::get_if<Function>(&item);
    if (f != nullptr && f->is_entry && f->has_body) names.push_back(f->name);
  }
  return names;
}

std::string Cell(const std::map<std::string, Usage>& usage,
                 const std::string& name) {
  auto it = usage.find(name);
  if (it == usage.end()) return "-";
  return std::to_string(it->second.registers) + "/" +
         std::to_string(it->second.smem) + "/" +
         std::to_string(it->second.barriers);
}

struct Row {
  std::string kernel;
  std::string cells[3];  // original, slice, persistent (sm_80)
};

// What checking some modules found: a table row per kernel, the kernels
// without (some) form and why, and counts.
struct Checked {
  std::vector<Row> rows;
  std::vector<std::string> whole;
  int kernels = 0;
  int slices = 0;
  int persistents = 0;
};

// Reads `text`, adds the forms, writes the module to `dir` and runs ptxas
// on it for sm_80 and sm_90: it must accept every form, and have compiled
// exactly the forms AnalyzeKernel allows; a kernel without a form has a
// reason, which AddKernelForms listed.
void CheckModule(const std::string& ptxas, const std::string& text,
                 const std::string& name, const fs::path& dir,
                 Checked* checked) {
  SCOPED_TRACE(name);
  Result<Module> module = ReadPtx(text, name);
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  std::vector<std::string> reasons;
  const Module formed = AddKernelForms(*module, &reasons);
  const std::vector<std::string> entries = EntryNames(*module);
  if (entries.empty()) return;
  const fs::path out = dir / name;
  {
    std::ofstream o(out, std::ios::binary);
    o << PrintPtx(formed);
  }
  std::map<std::string, Usage> usage80;
  const std::vector<std::string> archs = {"sm_80", "sm_90"};
  std::vector<PtxasRun> runs = RunPtxas(ptxas, out, archs);
  for (size_t a = 0; a < archs.size(); ++a) {
    const std::string& arch = archs[a];
    SCOPED_TRACE(arch);
    PtxasRun& run = runs[a];
    ASSERT_EQ(run.exit_code, 0) << "ptxas rejected " << out << ":\n"
                                << run.output;
    for (const std::string& k : entries) {
      const Transformability t = AnalyzeKernel(*module, k);
      EXPECT_EQ(run.usage.count(k), 1u) << k;
      EXPECT_EQ(run.usage.count(k + std::string(kSliceSuffix)),
                t.slice ? 1u : 0u)
          << k;
      EXPECT_EQ(run.usage.count(k + std::string(kPersistentSuffix)),
                t.persistent ? 1u : 0u)
          << k;
      // The forms reserve no more named barriers than the original (the
      // persistent form at least barrier 0): the barrier count limits
      // blocks per SM (cuda_occupancy.h).
      const int original_barriers = run.usage[k].barriers;
      for (std::string_view suffix : {kSliceSuffix, kPersistentSuffix}) {
        auto it = run.usage.find(k + std::string(suffix));
        if (it == run.usage.end()) continue;
        EXPECT_LE(it->second.barriers, suffix == kSliceSuffix
                                           ? original_barriers
                                           : std::max(original_barriers, 1))
            << it->first;
      }
    }
    if (arch == "sm_80") usage80 = run.usage;
  }
  for (const std::string& k : entries) {
    const Transformability t = AnalyzeKernel(*module, k);
    ++checked->kernels;
    checked->slices += t.slice ? 1 : 0;
    checked->persistents += t.persistent ? 1 : 0;
    if (!t.persistent) {
      EXPECT_FALSE(t.reason.empty()) << k;
      const bool listed =
          std::any_of(reasons.begin(), reasons.end(), [&](const auto& r) {
            return r.rfind(k + ": ", 0) == 0 &&
                   r.find(t.reason) != std::string::npos;
          });
      EXPECT_TRUE(listed) << k << " lacks a form but AddKernelForms gave "
                          << "no reason for it";
      checked->whole.push_back(name + " " + k + ": " + t.reason);
    }
    checked->rows.push_back(
        {k,
         {Cell(usage80, k), Cell(usage80, k + std::string(kSliceSuffix)),
          Cell(usage80, k + std::string(kPersistentSuffix))}});
  }
}

fs::path MakeTempDir() {
  const fs::path dir = fs::path(::testing::TempDir()) /
                       ("colo_forms_ptxas_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST(FormsPtxas, EveryFormOfEveryKernelAssembles) {
  const std::string ptxas = FindPtxas();
  ASSERT_FALSE(ptxas.empty()) << "no ptxas in /usr/local/cuda/bin or PATH";
  const std::vector<fs::path> files = KernelFiles();
  ASSERT_FALSE(files.empty()) << "no .ptx in " << COLO_PTX_KERNEL_DIR;
  const fs::path dir = MakeTempDir();
  Checked checked;
  for (const fs::path& file : files) {
    CheckModule(ptxas, ReadFile(file), file.filename().string(), dir, &checked);
  }
  fs::remove_all(dir);

  std::printf("\nptxas -arch=sm_80: registers/static smem bytes/barriers\n");
  std::printf("%-48s %12s %12s %12s\n", "kernel", "original", "slice",
              "persistent");
  for (const Row& r : checked.rows) {
    std::string name =
        r.kernel.size() > 48 ? r.kernel.substr(0, 45) + "..." : r.kernel;
    std::printf("%-48s %12s %12s %12s\n", name.c_str(), r.cells[0].c_str(),
                r.cells[1].c_str(), r.cells[2].c_str());
  }
  std::printf("%d kernels: %d sliced forms, %d persistent forms\n",
              checked.kernels, checked.slices, checked.persistents);
  for (const std::string& w : checked.whole) {
    std::printf("without a form: %s\n", w.c_str());
  }
  EXPECT_GT(checked.kernels, 0);
}

// What nvcc does not write but PTX allows, and the forms rewrite: a 16-bit
// read of %ctaid, %nctaid through cvt, names of the original that start
// with "__colo_", a guarded barrier, exit, a ret inside a nested scope,
// a called .func (reading %tid only).
constexpr char kEdgeCases[] = R"(.version 9.0
.target sm_80
.address_size 64

.func  (.param .b32 func_retval0) lane()
{
	.reg .b32 	%r<3>;
	mov.u32 	%r1, %tid.x;
	and.b32 	%r2, %r1, 31;
	st.param.b32 	[func_retval0+0], %r2;
	ret;
}

.visible .entry edge(
	.param .u64 edge_param_0,
	.param .u32 __colo_first
)
{
	.reg .pred 	%p<4>;
	.reg .b16 	%rs<3>;
	.reg .b32 	%r<8>;
	.reg .b32 	%__colo_ctaid_x;
	.reg .b64 	%rd<6>;

	ld.param.u64 	%rd1, [edge_param_0];
	ld.param.u32 	%__colo_ctaid_x, [__colo_first];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u16 	%rs1, %ctaid.x;
	cvt.u32.u16 	%r1, %rs1;
	cvt.u64.u32 	%rd3, %nctaid.y;
	mov.u32 	%r2, %ctaid.z;
	mov.u32 	%r3, %tid.x;
	setp.gt.u32 	%p1, %r3, 100;
	@%p1 exit;
	{
	.reg .b32 inner;
	mov.u32 	inner, %ctaid.y;
	setp.eq.u32 	%p2, inner, 5;
	@%p2 ret;
	}
	setp.ne.u32 	%p3, %__colo_ctaid_x, 0;
	@%p3 bar.sync 	0;
	{
	.param .b32 retval0;
	call.uni (retval0), lane, ();
	ld.param.b32 	%r4, [retval0+0];
	}
	add.s32 	%r5, %r1, %r4;
	add.s32 	%r6, %r5, %r2;
	cvt.u32.u64 	%r7, %rd3;
	add.s32 	%r6, %r6, %r7;
	mul.wide.u32 	%rd4, %r3, 4;
	add.s64 	%rd5, %rd2, %rd4;
	barrier.sync.aligned 	0;
	st.global.u32 	[%rd5], %r6;
$__colo_next:
	ret;
}
)";

TEST(FormsPtxas, HandWrittenEdgeCasesAssemble) {
  const std::string ptxas = FindPtxas();
  ASSERT_FALSE(ptxas.empty()) << "no ptxas in /usr/local/cuda/bin or PATH";
  const fs::path dir = MakeTempDir();
  Checked checked;
  CheckModule(ptxas, kEdgeCases, "edge_cases.ptx", dir, &checked);
  fs::remove_all(dir);
  // The kernel gets both forms.
  EXPECT_EQ(checked.kernels, 1);
  EXPECT_EQ(checked.slices, 1);
  EXPECT_EQ(checked.persistents, 1);
}

}  // namespace
}  // namespace colo::ptx
