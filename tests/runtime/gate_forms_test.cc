// Best-effort kernels cut in gate mode: colod grants a launch of a kernel
// whose client declared its forms as slices or persistent workers (chosen
// by the priority policy's ChooseForm, as far as `gate_forms` allows),
// asks persistent workers to retreat when high priority arrives, and
// resumes them where the client says they stopped.
//
// colod runs in process over the A100 preset (a wave of the test kernel's
// 32-thread blocks: 108 SMs x 32 blocks = 3456); the test plays the
// clients (gate_test_client.h). The kernel's profile says 1000 us for 10
// waves: 100 us a block. Its launches are cut only while a high-priority
// client has been active within long_idle (set to 60 s here, so always
// once the service has run once). Then real CUDA programs on the host-
// emulated runtime (below). Every wait is bounded.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gate_test_client.h"
#include "in_process_colod.h"
#include "ipc/launch_ring.h"
#include "ipc/wire.h"

namespace colo::runtime {
namespace {

using std::chrono::milliseconds;

constexpr uint32_t kWave = 108 * 32;
constexpr uint32_t kBlocks = 10 * kWave;
constexpr uint32_t kBothForms =
    ipc::kKernelSliceForm | ipc::kKernelPersistentForm;

// `kernel` (a name's substring) takes `kernel_us` alone, by the profile
// table.
std::string Config(const std::string& forms,
                   const std::string& kernel = "gate_probe",
                   int kernel_us = 1000) {
  return "device: cuda\n"
         "policy: {name: priority, preemption_bound_us: 250, "
         "long_idle_us: 60000000}\n"
         "gate_depth: 1\n"
         "gate_forms: " +
         forms +
         "\n"
         "grants:\n  - {token: t, class: high}\n"
         "kernels:\n  - {name: " +
         kernel + ", duration_us: " + std::to_string(kernel_us) +
         ", sm_throughput: 0.5, dram_throughput: 0.2}\n";
}

// The service runs one kernel (issued at once, reported done), so that the
// policy has a high-priority client that was active recently.
void ServiceRunsOnce(HandGateClient& high) {
  ASSERT_TRUE(high.issue_at_once());
  const uint64_t s = high.Issue();
  high.Done(s, 0, 0);
  ASSERT_TRUE(
      WaitFor([&] { return high.Completed() >= s; }, milliseconds(5000)));
}

// colod with a config, its service client (which has run one kernel unless
// told not to) and a best-effort client whose kernel declares `flags`.
class GateFormsTest : public ::testing::Test {
 protected:
  void Start(const std::string& yaml, uint32_t flags = kBothForms,
             bool service_runs = true) {
    be_.reset();
    high_.reset();
    colod_ = std::make_unique<InProcessColod>(yaml);
    ASSERT_TRUE(colod_->ok());
    high_ =
        std::make_unique<HandGateClient>(colod_->socket(), "t", true, "svc");
    be_ = std::make_unique<HandGateClient>(colod_->socket(), "", false, "be");
    ASSERT_TRUE(high_->ok() && be_->ok());
    if (service_runs) ServiceRunsOnce(*high_);
    be_->SetKernel(kBlocks, flags);
  }
  std::unique_ptr<InProcessColod> colod_;
  std::unique_ptr<HandGateClient> high_, be_;
};

bool IsGrant(const std::optional<ipc::GateMsg>& g) {
  return g && g->type == static_cast<uint32_t>(ipc::GateMsgType::kGrant);
}

TEST_F(GateFormsTest, SlicesPartitionTheGridInOrder) {
  // Bound 250 us, 100 us a block: slices of floor(250 / 100) = 2 waves
  // (6912 blocks), 200 us each: [0, 6912), [6912, 13824), ... and a last
  // one of 10 - 4 x 2 = 2 waves: five slices, each granted once the one
  // before it is done.
  ASSERT_NO_FATAL_FAILURE(Start(Config("slices")));
  InProcessColod& colod = *colod_;
  HandGateClient& be = *be_;
  const uint64_t seq = be.Launch();
  uint32_t next = 0;
  int slices = 0;
  while (next < kBlocks && slices < 20) {
    std::optional<ipc::GateMsg> g = be.Next(milliseconds(5000));
    ASSERT_TRUE(IsGrant(g)) << "slice " << slices << " never came";
    EXPECT_EQ(g->seq, seq);
    EXPECT_EQ(g->form, static_cast<uint32_t>(ipc::GateForm::kSlice));
    EXPECT_EQ(g->first_block, next);
    EXPECT_EQ(g->end_block, std::min(next + 2 * kWave, kBlocks));
    EXPECT_EQ(be.Completed(), 0u);  // not before its last slice
    next = g->end_block;
    ++slices;
    be.Done(seq, 0, g->grant);
  }
  EXPECT_EQ(slices, 5);
  ASSERT_TRUE(
      WaitFor([&] { return be.Completed() >= seq; }, milliseconds(5000)));
  const nlohmann::json s = colod.ClientStats("be");
  EXPECT_EQ(s["grants"], 5);
  EXPECT_EQ(s["slice_grants"], 5);
  EXPECT_EQ(s["persistent_grants"], 0);
}

TEST_F(GateFormsTest, PersistentWorkersRetreatForTheServiceAndResume) {
  // One persistent launch of a wave of workers over all 34560 blocks; the
  // service's next kernel asks them to retreat; the client says they
  // stopped at block 5000; once the service is idle again colod grants
  // workers from 5000 on, which finish.
  ASSERT_NO_FATAL_FAILURE(Start(Config("persistent")));
  InProcessColod& colod = *colod_;
  HandGateClient &high = *high_, &be = *be_;
  const uint64_t seq = be.Launch();
  std::optional<ipc::GateMsg> g = be.Next(milliseconds(5000));
  ASSERT_TRUE(IsGrant(g));
  EXPECT_EQ(g->form, static_cast<uint32_t>(ipc::GateForm::kPersistent));
  EXPECT_EQ(g->first_block, 0u);
  EXPECT_EQ(g->end_block, kBlocks);
  EXPECT_EQ(g->workers, kWave);
  const uint64_t first_grant = g->grant;

  const uint64_t s = high.Issue();
  std::optional<ipc::GateMsg> r = be.Next(milliseconds(5000));
  ASSERT_TRUE(r.has_value()) << "no retreat came";
  EXPECT_EQ(r->type, static_cast<uint32_t>(ipc::GateMsgType::kRetreat));
  EXPECT_EQ(r->seq, seq);
  EXPECT_EQ(r->grant, first_grant);
  be.Done(seq, 0, first_grant, 5000);
  // Nothing more while the service runs.
  EXPECT_FALSE(be.Next(milliseconds(100)).has_value());
  high.Done(s, 0, 0);

  g = be.Next(milliseconds(5000));
  ASSERT_TRUE(IsGrant(g)) << "the rest was never granted";
  EXPECT_EQ(g->form, static_cast<uint32_t>(ipc::GateForm::kPersistent));
  EXPECT_EQ(g->first_block, 5000u);
  EXPECT_EQ(g->end_block, kBlocks);
  EXPECT_NE(g->grant, first_grant);
  EXPECT_EQ(be.Completed(), 0u);
  be.Done(seq, 0, g->grant, kBlocks);
  ASSERT_TRUE(
      WaitFor([&] { return be.Completed() >= seq; }, milliseconds(5000)));
  const nlohmann::json st = colod.ClientStats("be");
  EXPECT_EQ(st["persistent_grants"], 2);
  EXPECT_EQ(st["retreats"], 1);
}

TEST_F(GateFormsTest, FormsAreGrantedOnlyAsDeclaredAndAllowed) {
  // A kernel declared without forms, or under gate_forms: none, is granted
  // whole (the policy gates it instead).
  for (const auto& [forms, flags] :
       {std::pair<std::string, uint32_t>{"all", 0}, {"none", kBothForms}}) {
    ASSERT_NO_FATAL_FAILURE(Start(Config(forms), flags,
                                  /*service_runs=*/false));
    HandGateClient &high = *high_, &be = *be_;
    // Never after a long idle: the service stays busy, so the kernel waits.
    const uint64_t s = high.Issue();
    be.Launch();
    EXPECT_FALSE(be.Next(milliseconds(200)).has_value())
        << forms << ": a kernel that cannot be cut ran beside the service";
    high.Done(s, 0, 0);
    // Idle for long_idle (60 s) would be needed: the test ends here, the
    // launch still held, which is the point.
    EXPECT_EQ(be.Completed(), 0u);
  }
}

TEST_F(GateFormsTest, AClientThatRanTheKernelWholeEndsItsLaterPartsAtOnce) {
  // The client could not build the sliced form: it ran the kernel whole at
  // the first slice and says so; colod counts it, and the remaining slices
  // it still grants end as soon as they are answered.
  ASSERT_NO_FATAL_FAILURE(Start(Config("slices")));
  InProcessColod& colod = *colod_;
  HandGateClient& be = *be_;
  const uint64_t seq = be.Launch();
  int parts = 0;
  for (uint32_t end = 0; end < kBlocks && parts < 20; ++parts) {
    std::optional<ipc::GateMsg> g = be.Next(milliseconds(5000));
    ASSERT_TRUE(IsGrant(g));
    end = g->end_block;
    be.Done(seq, 0, g->grant, end, /*done_whole=*/true);
  }
  EXPECT_EQ(parts, 5);
  ASSERT_TRUE(
      WaitFor([&] { return be.Completed() >= seq; }, milliseconds(5000)));
  EXPECT_EQ(colod.ClientStats("be")["run_whole"], 5);
}

TEST_F(GateFormsTest, AReportThatDoesNotFitTheGrantDropsTheClient) {
  // Three wrong kDones, each from a fresh client: one naming another grant
  // than colod's, one stopping persistent workers past the grid, one
  // stopping them before their first block (after a resumption from 5000).
  for (int wrong = 0; wrong < 3; ++wrong) {
    ASSERT_NO_FATAL_FAILURE(Start(Config("persistent")));
    InProcessColod& colod = *colod_;
    HandGateClient &high = *high_, &be = *be_;
    const uint64_t seq = be.Launch();
    std::optional<ipc::GateMsg> g = be.Next(milliseconds(5000));
    ASSERT_TRUE(IsGrant(g));
    if (wrong == 0) {
      be.Done(seq, 0, g->grant + 7, kBlocks);
    } else if (wrong == 1) {
      be.Done(seq, 0, g->grant, kBlocks + 1);
    } else {
      const uint64_t s = high.Issue();
      ASSERT_TRUE(be.Next(milliseconds(5000)).has_value());  // the retreat
      be.Done(seq, 0, g->grant, 5000);
      high.Done(s, 0, 0);
      g = be.Next(milliseconds(5000));
      ASSERT_TRUE(IsGrant(g));
      ASSERT_EQ(g->first_block, 5000u);
      be.Done(seq, 0, g->grant, 4999);
    }
    EXPECT_TRUE(WaitFor([&] { return colod.ClientStats("be").is_null(); },
                        milliseconds(5000)))
        << "case " << wrong << ": colod kept the client";
    // The service is unharmed.
    const uint64_t s = high.Issue();
    high.Done(s, 0, 0);
    EXPECT_TRUE(
        WaitFor([&] { return high.Completed() >= s; }, milliseconds(5000)))
        << "case " << wrong;
  }
}

// ---------------------------------------------------------------------------
// A real CUDA program, tests/cuda_programs/gate_forms, under the interposer
// against tests/shim/fake_cudart, the host-emulated runtime: its gate
// thread reads the program's PTX, declares add_one's forms, JITs them (the
// fake's JIT hands the PTX back, and its cuModuleGetFunction finds only
// entries the rewritten module has) when the first form is granted, and
// launches what colod grants; the fake runs add_one's blocks of each slice
// or persistent run on the host and logs every launch
// (FAKE_CUDART_FORM_LOG). Four launches of 4096 blocks of 256 threads,
// each 2 ms whole on the fake (FAKE_CUDART_KERNEL_US) and by colod's table.

bool ProgramsBuilt() {
  return std::filesystem::exists(std::string(COLO_BINARY_DIR) +
                                 "/tests/cuda_programs/gate_forms");
}

struct FormsRun {
  std::string out;               // the program's stdout and stderr
  std::vector<std::string> log;  // the fake's form log, line by line
};

FormsRun RunForms(const InProcessColod& colod, const std::string& env = "",
                  int launches = 4) {
  const std::string bin = COLO_BINARY_DIR;
  char tmpl[] = "/tmp/colo-forms-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string cmd =
      env + " LD_LIBRARY_PATH=" + bin +
      "/tests/fake_cudart FAKE_CUDART_KERNEL_US=2000 FAKE_CUDART_FORM_LOG=" +
      dir + "/forms.log COLO_FORM_CACHE_DIR=" + dir +
      "/cache COLO_SOCKET=" + colod.socket() + " LD_PRELOAD=" + bin +
      "/libcolo_preload.so timeout 60 " + bin +
      "/tests/cuda_programs/gate_forms " + std::to_string(launches) +
      " 4096 2>&1";
  FormsRun run;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof(buf), p)) run.out += buf;
    pclose(p);
  }
  std::ifstream log(dir + "/forms.log");
  for (std::string line; std::getline(log, line);) run.log.push_back(line);
  std::filesystem::remove_all(dir);
  return run;
}

// `key`=value in a log line (-1 if absent).
int64_t Field(const std::string& line, const std::string& key) {
  const size_t p = line.find(" " + key + "=");
  return p == std::string::npos
             ? -1
             : std::strtoll(line.c_str() + p + key.size() + 2, nullptr, 10);
}
bool Starts(const std::string& line, const char* word) {
  return line.rfind(std::string(word) + " ", 0) == 0;
}
int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t p = text.find(what); p != std::string::npos;
       p = text.find(what, p + 1))
    ++n;
  return n;
}

TEST_F(GateFormsTest, AProgramRunsTheSlicesColodGrantsExactly) {
  if (!ProgramsBuilt()) GTEST_SKIP() << "no nvcc: gate_forms not built";
  ASSERT_NO_FATAL_FAILURE(Start(Config("slices", "add_one", 2000)));
  InProcessColod& colod = *colod_;
  const FormsRun run = RunForms(colod);
  EXPECT_NE(run.out.find("forms_ok=1"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("sync_error=0"), std::string::npos) << run.out;
  // The fake launched slices alone, and for each of the four launches they
  // partition [0, 4096) in order: each starts where the one before ended.
  // Their size is ChooseForm's: a wave of add_one's 256-thread blocks on
  // the A100 is 108 SMs x 8 = 864 blocks, 4096 blocks are 5 waves, so a
  // block takes 2000 / 5 = 400 us, past the 250 us bound: slices of one
  // wave, 864 blocks, the last 4096 - 4 x 864 = 640.
  int launches = 0, slices = 0;
  int64_t next = 0;
  for (const std::string& line : run.log) {
    EXPECT_FALSE(Starts(line, "whole") || Starts(line, "persistent")) << line;
    if (!Starts(line, "slice")) continue;
    ++slices;
    EXPECT_EQ(Field(line, "total"), 4096) << line;
    EXPECT_EQ(Field(line, "first"), next) << line;
    EXPECT_EQ(Field(line, "count"), next < 4 * 864 ? 864 : 640) << line;
    next += Field(line, "count");
    if (next == 4096) {
      ++launches;
      next = 0;
    }
  }
  EXPECT_EQ(launches, 4);
  EXPECT_EQ(slices, 4 * 5);
  EXPECT_EQ(next, 0) << "a launch's slices stopped short";
  // What colod granted is what the fake launched, and the forms' module
  // was compiled once.
  const nlohmann::json be = colod.Stats()["classes"]["best-effort"];
  EXPECT_EQ(be["slice_grants"], slices);
  EXPECT_EQ(be["grants"], slices);
  int jits = 0;
  for (const std::string& line : run.log) jits += Starts(line, "jit");
  EXPECT_EQ(jits, 1);
}

TEST_F(GateFormsTest, AProgramsPersistentWorkersRetreatAndResumeExactlyOnce) {
  if (!ProgramsBuilt()) GTEST_SKIP() << "no nvcc: gate_forms not built";
  ASSERT_NO_FATAL_FAILURE(Start(Config("persistent", "add_one", 2000)));
  InProcessColod& colod = *colod_;
  HandGateClient& high = *high_;
  // The service asks for the GPU every 1.5 ms for 0.3 ms while the
  // program's 16 launches (2 ms each whole) run: each asks running workers
  // to retreat.
  constexpr int kLaunches = 16;
  std::atomic<bool> stop{false};
  std::thread service([&] {
    for (int i = 0; i < 40000 && !stop; ++i) {
      std::this_thread::sleep_for(std::chrono::microseconds(1200));
      const uint64_t s = high.Issue();
      std::this_thread::sleep_for(std::chrono::microseconds(300));
      high.Done(s, 0, 0);
    }
  });
  const FormsRun run = RunForms(colod, "", kLaunches);
  stop = true;
  service.join();
  EXPECT_NE(run.out.find("forms_ok=1"), std::string::npos) << run.out;
  // Per launch, each persistent run starts where the one before stopped,
  // from 0 to 4096; a run stops short only when told to retreat.
  int launches = 0, runs = 0, retreated = 0;
  int64_t next = 0;
  for (const std::string& line : run.log) {
    EXPECT_FALSE(Starts(line, "whole") || Starts(line, "slice")) << line;
    if (Starts(line, "persistent")) {
      ++runs;
      EXPECT_EQ(Field(line, "first"), next) << line;
      EXPECT_EQ(Field(line, "total"), 4096) << line;
      // One wave of workers: 864 (above).
      EXPECT_EQ(Field(line, "workers"), 864) << line;
    } else if (Starts(line, "persistent_end")) {
      const int64_t stopped = Field(line, "next");
      EXPECT_GE(stopped, next) << line;
      EXPECT_EQ(Field(line, "ran"), stopped - next) << line;
      if (Field(line, "retreated") == 1) ++retreated;
      if (stopped < 4096) {
        EXPECT_EQ(Field(line, "retreated"), 1) << line;
      }
      next = stopped;
      if (next == 4096) {
        ++launches;
        next = 0;
      }
    }
  }
  EXPECT_EQ(launches, kLaunches);
  EXPECT_GT(retreated, 0) << "the service never made workers retreat";
  std::printf(
      "gate_forms persistent: %d launches, %d persistent runs, %d "
      "retreated and resumed\n",
      launches, runs, retreated);
  const nlohmann::json be = colod.Stats()["classes"]["best-effort"];
  EXPECT_EQ(be["persistent_grants"], runs);
  EXPECT_GE(be["retreats"].get<int>(), retreated);
}

TEST_F(GateFormsTest, AFormThatCannotBeBuiltRunsTheKernelWholeOnce) {
  // The fake's JIT refuses the forms' module: each launch runs whole at
  // its first slice, its other slices are answered at once, the data are
  // right (each block ran once per launch), and the reason is logged once.
  if (!ProgramsBuilt()) GTEST_SKIP() << "no nvcc: gate_forms not built";
  ASSERT_NO_FATAL_FAILURE(Start(Config("slices", "add_one", 2000)));
  InProcessColod& colod = *colod_;
  const FormsRun run = RunForms(colod, "FAKE_CUDART_JIT_FAIL=1");
  EXPECT_NE(run.out.find("forms_ok=1"), std::string::npos) << run.out;
  int whole = 0, slices = 0;
  for (const std::string& line : run.log) {
    whole += Starts(line, "whole");
    slices += Starts(line, "slice");
  }
  EXPECT_EQ(whole, 4);
  EXPECT_EQ(slices, 0);
  EXPECT_EQ(Count(run.out, "runs whole instead of the sliced form"), 1)
      << run.out;
  const nlohmann::json be = colod.Stats()["classes"]["best-effort"];
  EXPECT_GT(be["run_whole"].get<int>(), 4);  // every slice of every launch
  EXPECT_EQ(be["run_whole"], be["slice_grants"]);
}

}  // namespace
}  // namespace colo::runtime
