// The kernel forms (ptx/kernel_forms.h) checked on the CPU interpreter
// (ptx/ptx_interpreter.h) against the original kernels, bit for bit, for
// every case of kernel_cases.h: the test kernels of tests/ptx/kernels/forms_*
// and every kernel of tests/cuda_programs.
//
// For a case with n = gx * gy * gz blocks, the original runs once on fresh
// device memory; then, each on fresh memory with the same initial bytes:
//
//  - the sliced form, over several partitions of [0, n) into consecutive
//    ranges [first, end): one block per slice, random sizes, one slice of
//    all (the last partition also from the forms printed as PTX text and
//    read back, as a driver would get them). A slice launch runs exactly the
//    original's blocks L in [first, end) with the original's view of %ctaid /
//    %nctaid, so running the ranges of a partition in order runs every block
//    once, and (the blocks of these kernels being independent, or dependent
//    only through order-free atomics) leaves memory as the original does.
//
//  - the persistent form with W workers, W in {1, 2, 3, 7}, three
//    interleaving seeds each (one with only two workers resident at a time,
//    the others starting as those return), and retreats injected at random
//    steps (the hook sets PersistentControl::retreat), then resumed with
//    retreat cleared and the same control block until next_block >= n (once
//    more from the printed text read back). Once every worker of a launch
//    has returned, blocks [0, min(next_block, n)) have run exactly once and
//    no other block has begun; a launch that ends with next_block < n can
//    only have been stopped by the retreat. Each worker takes at most one
//    index past the end, so at the end n <= next_block <= n + W, and the
//    logical blocks of the launches, min(next_after, n) - min(next_before,
//    n) each, add up to n. Kernels that count their blocks' runs
//    (run_counter) show it directly after every launch.
//
// Every buffer a case compares must then equal the original's, byte for
// byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_cases.h"
#include "ptx/kernel_forms.h"
#include "ptx/ptx_interpreter.h"
#include "ptx/ptx_printer.h"
#include "ptx/ptx_reader.h"

namespace colo::ptx {
namespace {

using cases::BlockCount;
using cases::CountsDifference;
using cases::Difference;
using cases::KernelCase;
using cases::Outputs;
using cases::U32Bytes;
using cases::U64Bytes;

constexpr uint32_t kWorkerCounts[] = {1, 2, 3, 7};
// Launches of one persistent run that get a retreat injected; the launch
// after them runs to the end.
constexpr int kRetreatsPerRun = 3;

struct LoadedFile {
  Module original;
  Module with_forms;
  // with_forms printed and read back: the text a driver would compile.
  Module reprinted;
  std::vector<std::string> reasons;  // AddKernelForms' "kernel: reason"
};

// Reads COLO_PTX_KERNEL_DIR/<stem>.ptx and adds the forms; cached per stem.
Result<const LoadedFile*> Load(const std::string& stem) {
  static std::map<std::string, std::unique_ptr<LoadedFile>> cache;
  if (auto it = cache.find(stem); it != cache.end()) return it->second.get();
  const std::string path =
      std::string(COLO_PTX_KERNEL_DIR) + "/" + stem + ".ptx";
  std::ifstream in(path);
  if (!in) return NotFoundError("cannot open " + path);
  std::stringstream text;
  text << in.rdbuf();
  Result<Module> module = ReadPtx(text.str(), stem + ".ptx");
  if (!module.ok()) return module.status();
  auto file = std::make_unique<LoadedFile>();
  file->original = std::move(module).value();
  file->with_forms = AddKernelForms(file->original, &file->reasons);
  Result<Module> reprinted =
      ReadPtx(PrintPtx(file->with_forms), stem + ".ptx with forms");
  if (!reprinted.ok()) return reprinted.status();
  file->reprinted = std::move(reprinted).value();
  const LoadedFile* result = file.get();
  cache[stem] = std::move(file);
  return result;
}

// Device memory holding a case's buffers with their initial bytes, in the
// catalog's order, and the original launch with the buffers' addresses
// patched into the parameters.
struct Prepared {
  DeviceMemory memory;
  std::vector<uint64_t> addresses;
  LaunchConfig launch;
};

Result<std::unique_ptr<Prepared>> Prepare(const KernelCase& c) {
  auto p = std::make_unique<Prepared>();
  for (size_t b = 0; b < c.buffers.size(); ++b) {
    const std::vector<uint8_t> bytes =
        cases::InitialBytes(c.buffers[b], cases::HashSeed(c.label) + b);
    const uint64_t address =
        p->memory.Allocate(std::max<uint64_t>(bytes.size(), 1));
    if (!bytes.empty()) {
      if (Status s = p->memory.Write(address, bytes.data(), bytes.size());
          !s.ok())
        return s;
    }
    p->addresses.push_back(address);
  }
  p->launch.grid = c.grid;
  p->launch.block = c.block;
  p->launch.dynamic_shared_bytes = c.dynamic_shared_bytes;
  for (const cases::ParamSpec& param : c.params) {
    std::vector<uint8_t> bytes = param.bytes;
    for (const cases::ParamSpec::Patch& patch : param.patches) {
      std::memcpy(bytes.data() + patch.offset, &p->addresses.at(patch.buffer),
                  8);
    }
    p->launch.args.push_back(std::move(bytes));
  }
  return p;
}

Outputs ReadOutputs(const Prepared& p) {
  Outputs out;
  for (uint64_t address : p.addresses) {
    const std::vector<uint8_t>* bytes = p.memory.Allocation(address);
    out.push_back(bytes != nullptr ? *bytes : std::vector<uint8_t>{});
  }
  return out;
}

struct Totals {
  std::set<std::string> kernels_checked;  // "file:kernel", every form matched
  int slice_partitions = 0;
  int persistent_runs = 0;
  int retreats = 0;
  int refused_forms = 0;
};

// The original's output and its length in steps.
struct Reference {
  Outputs outputs;
  uint64_t steps = 0;
};

Result<Reference> RunOriginal(const KernelCase& c, const LoadedFile& file,
                              uint64_t seed) {
  Result<std::unique_ptr<Prepared>> p = Prepare(c);
  if (!p.ok()) return p.status();
  InterpreterOptions options;
  options.seed = seed;
  Result<RunStats> stats =
      RunKernel(file.original, c.kernel, (*p)->launch, (*p)->memory, options);
  if (!stats.ok())
    return stats.status().WithContext("original, seed " + std::to_string(seed));
  return Reference{ReadOutputs(**p), stats->steps};
}

// Ranges [first, end) covering [0, n) in order: each partition's.
std::vector<std::vector<std::pair<uint32_t, uint32_t>>> Partitions(
    const KernelCase& c) {
  const uint32_t n = BlockCount(c);
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> all;
  std::vector<std::pair<uint32_t, uint32_t>> singles;
  for (uint32_t b = 0; b < n; ++b) singles.push_back({b, b + 1});
  all.push_back(singles);
  if (n > 1) {
    all.push_back({{0, n}});
    std::mt19937_64 gen(cases::HashSeed(c.label) ^ 0x5a11ce);
    for (int k = 0; k < 4 && n > 2; ++k) {
      std::vector<std::pair<uint32_t, uint32_t>> ranges;
      for (uint32_t first = 0; first < n;) {
        const uint32_t size =
            1 + static_cast<uint32_t>(gen() % std::max<uint32_t>(1, n / 2));
        const uint32_t end = std::min(n, first + size);
        ranges.push_back({first, end});
        first = end;
      }
      all.push_back(ranges);
    }
  }
  return all;
}

// Runs the sliced form over `ranges`; "" or what went wrong.
std::string RunSlices(const KernelCase& c, const Module& forms,
                      const Reference& ref,
                      const std::vector<std::pair<uint32_t, uint32_t>>& ranges,
                      uint64_t seed) {
  Result<std::unique_ptr<Prepared>> p = Prepare(c);
  if (!p.ok()) return p.status().ToString();
  const std::string name = c.kernel + std::string(kSliceSuffix);
  for (const auto& [first, end] : ranges) {
    LaunchConfig launch = (*p)->launch;
    launch.grid = Dim3{end - first, 1, 1};
    launch.args.push_back(U32Bytes(first));
    launch.args.push_back(U32Bytes(c.grid.x));
    launch.args.push_back(U32Bytes(c.grid.y));
    launch.args.push_back(U32Bytes(c.grid.z));
    InterpreterOptions options;
    options.seed = seed + first;
    options.max_steps = 20 * ref.steps + 1000000;
    Result<RunStats> stats =
        RunKernel(forms, name, launch, (*p)->memory, options);
    if (!stats.ok()) {
      return "slice [" + std::to_string(first) + ", " + std::to_string(end) +
             "): " + stats.status().ToString();
    }
  }
  const std::string diff = Difference(c, ref.outputs, ReadOutputs(**p));
  if (!diff.empty()) return "after slices: " + diff;
  if (c.run_counter >= 0) {
    return CountsDifference(ReadOutputs(**p)[c.run_counter], BlockCount(c),
                            BlockCount(c));
  }
  return "";
}

struct PersistentRun {
  uint32_t workers = 1;
  uint64_t seed = 1;  // the interleavings and the retreat moments
  // Workers resident at once; the others start as those return.
  uint32_t resident_blocks = 8;
  // Launches that get a retreat injected; the launch after them runs to
  // the end.
  int max_retreats = 3;
};

// Runs the persistent form as `run` says, resuming until every block was
// taken; "" or what went wrong. Adds its retreats to *retreats.
std::string RunPersistent(const KernelCase& c, const Module& forms,
                          const Reference& ref, const PersistentRun& run,
                          int* retreats) {
  const uint32_t workers = run.workers;
  const uint64_t seed = run.seed;
  Result<std::unique_ptr<Prepared>> prepared = Prepare(c);
  if (!prepared.ok()) return prepared.status().ToString();
  Prepared& p = **prepared;
  const uint32_t n = BlockCount(c);
  // Allocated after the buffers, so the buffers sit where the original's did.
  const uint64_t control = p.memory.Allocate(sizeof(PersistentControl));
  const std::string name = c.kernel + std::string(kPersistentSuffix);
  std::mt19937_64 gen(seed * 7919 + cases::HashSeed(c.label));
  uint32_t next_before = 0;
  uint64_t logical_blocks = 0;
  for (int launch_index = 0;; ++launch_index) {
    LaunchConfig launch = p.launch;
    launch.grid = Dim3{workers, 1, 1};
    launch.args.push_back(U64Bytes(control));
    launch.args.push_back(U32Bytes(c.grid.x));
    launch.args.push_back(U32Bytes(c.grid.y));
    launch.args.push_back(U32Bytes(c.grid.z));
    InterpreterOptions options;
    options.seed = seed * 1000 + launch_index;
    options.resident_blocks = run.resident_blocks;
    options.max_steps = 20 * ref.steps + 1000000;
    bool retreat_set = false;
    Status hook_status;
    if (launch_index < run.max_retreats) {
      // A moment within the steps the rest of the work would take.
      const uint64_t left =
          std::max<uint64_t>(1, ref.steps * (n - std::min(next_before, n)) / n);
      options.hook_every = 1 + gen() % left;
      options.hook = [&](uint64_t, DeviceMemory& memory) {
        if (retreat_set) return;
        retreat_set = true;
        const uint32_t one = 1;
        hook_status = memory.Write(
            control + offsetof(PersistentControl, retreat), &one, 4);
      };
    }
    Result<RunStats> stats = RunKernel(forms, name, launch, p.memory, options);
    const std::string where = "W=" + std::to_string(workers) + " seed " +
                              std::to_string(seed) + " launch " +
                              std::to_string(launch_index);
    if (!stats.ok()) return where + ": " + stats.status().ToString();
    if (!hook_status.ok()) return where + ": " + hook_status.ToString();
    PersistentControl ctl;
    if (Status s = p.memory.Read(control, &ctl, sizeof ctl); !s.ok())
      return s.ToString();
    if (ctl.next_block < next_before) return where + ": next_block went back";
    logical_blocks += std::min(ctl.next_block, n) - std::min(next_before, n);
    next_before = ctl.next_block;
    if (c.run_counter >= 0) {
      // Blocks [0, min(next_block, n)) have run exactly once, no other.
      const std::string bad = CountsDifference(ReadOutputs(p)[c.run_counter],
                                               std::min(ctl.next_block, n), n);
      if (!bad.empty()) return where + ": " + bad;
    }
    if (ctl.next_block >= n) break;
    // Workers stop short of n only when asked to.
    if (!retreat_set) {
      return where + ": every worker returned with next_block " +
             std::to_string(ctl.next_block) + " < " + std::to_string(n) +
             " and no retreat";
    }
    ++*retreats;
    const uint32_t zero = 0;
    if (Status s = p.memory.Write(
            control + offsetof(PersistentControl, retreat), &zero, 4);
        !s.ok()) {
      return s.ToString();
    }
  }
  if (next_before > n + workers) {
    return "next_block " + std::to_string(next_before) +
           " > n + W = " + std::to_string(n + workers) +
           ": a worker took two indices past the end";
  }
  if (logical_blocks != n) {
    return "the launches ran " + std::to_string(logical_blocks) +
           " logical blocks, not " + std::to_string(n);
  }
  const std::string diff = Difference(c, ref.outputs, ReadOutputs(p));
  if (!diff.empty())
    return "W=" + std::to_string(workers) + " seed " + std::to_string(seed) +
           ": " + diff;
  return "";
}

TEST(FormsOnInterpreterTest, CatalogNamesEveryKernelOnce) {
  // Every .entry of forms_*.ptx and cuda_programs_*.ptx has a case (run or
  // only analyzed), and every case names a kernel that exists.
  std::set<std::string> catalog, labels;
  for (const KernelCase& c : cases::KernelCases()) {
    EXPECT_TRUE(labels.insert(c.label).second) << "label twice: " << c.label;
    catalog.insert(c.file + ":" + c.kernel);
  }
  // The stems the build compiles (tests/ptx/CMakeLists.txt), read back from
  // the directory: ours (forms_*) and the programs' (cuda_programs_*).
  std::set<std::string> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(COLO_PTX_KERNEL_DIR)) {
    const std::string stem = entry.path().stem().string();
    if (entry.path().extension() == ".ptx" &&
        (stem.rfind("forms_", 0) == 0 ||
         stem.rfind("cuda_programs_", 0) == 0)) {
      files.insert(stem);
    }
  }
  EXPECT_GE(files.size(), 30u);
  std::set<std::string> entries;
  for (const std::string& stem : files) {
    Result<const LoadedFile*> file = Load(stem);
    ASSERT_TRUE(file.ok()) << stem << ": " << file.status().ToString();
    for (const TopLevel& item : (*file)->original.items) {
      const Function* f = std::get_if<Function>(&item);
      if (f != nullptr && f->is_entry) entries.insert(stem + ":" + f->name);
    }
  }
  for (const std::string& e : entries)
    EXPECT_TRUE(catalog.count(e)) << "no case for " << e;
  for (const std::string& k : catalog)
    EXPECT_TRUE(entries.count(k)) << "no such kernel " << k;
}

TEST(FormsOnInterpreterTest, AnalysisAcceptsAndRefusesAsTheCatalogSays) {
  for (const KernelCase& c : cases::KernelCases()) {
    SCOPED_TRACE(c.label);
    Result<const LoadedFile*> file = Load(c.file);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    const Transformability t = AnalyzeKernel((*file)->original, c.kernel);
    EXPECT_EQ(t.slice, c.slice) << t.reason;
    EXPECT_EQ(t.persistent, c.persistent) << t.reason;
    if (!c.slice || !c.persistent) {
      EXPECT_NE(t.reason.find(c.refusal_mentions), std::string::npos)
          << "reason '" << t.reason << "' does not mention "
          << c.refusal_mentions;
    } else {
      EXPECT_EQ(t.reason, "");
    }
    // The forms are built exactly when they can be, and added to the module.
    const Result<Function> slice = MakeSliceForm((*file)->original, c.kernel);
    const Result<Function> persistent =
        MakePersistentForm((*file)->original, c.kernel);
    EXPECT_EQ(slice.ok(), c.slice) << slice.status().ToString();
    EXPECT_EQ(persistent.ok(), c.persistent) << persistent.status().ToString();
    if (!c.slice) {
      EXPECT_EQ(slice.status().code(), StatusCode::kFailedPrecondition);
    }
    if (!c.persistent) {
      EXPECT_EQ(persistent.status().code(), StatusCode::kFailedPrecondition);
    }
    const Module& forms = (*file)->with_forms;
    EXPECT_EQ(
        FindFunction(forms, c.kernel + std::string(kSliceSuffix)) != nullptr,
        c.slice);
    EXPECT_EQ(FindFunction(forms, c.kernel + std::string(kPersistentSuffix)) !=
                  nullptr,
              c.persistent);
    // AddKernelForms says why it left a form out: "kernel: reason".
    const bool listed = std::any_of(
        (*file)->reasons.begin(), (*file)->reasons.end(),
        [&](const std::string& r) { return r.rfind(c.kernel + ":", 0) == 0; });
    EXPECT_EQ(listed, !c.slice || !c.persistent);
    if (slice.ok()) {
      EXPECT_EQ(slice->name, c.kernel + std::string(kSliceSuffix));
    }
    if (persistent.ok()) {
      EXPECT_EQ(persistent->name, c.kernel + std::string(kPersistentSuffix));
    }
  }
  const Transformability missing = AnalyzeKernel(Module{}, "nope");
  EXPECT_FALSE(missing.slice);
  EXPECT_NE(missing.reason.find("no kernel named"), std::string::npos)
      << missing.reason;
}

TEST(FormsOnInterpreterTest, EveryFormLeavesMemoryAsTheOriginalDoes) {
  Totals totals;
  std::vector<std::string> refused, not_run;
  int runnable_program_kernels = 0;
  for (const KernelCase& c : cases::KernelCases()) {
    SCOPED_TRACE(c.label);
    const auto start = std::chrono::steady_clock::now();
    totals.refused_forms += (c.slice ? 0 : 1) + (c.persistent ? 0 : 1);
    if (!c.slice || !c.persistent) {
      Result<const LoadedFile*> file = Load(c.file);
      const std::string reason =
          file.ok() ? AnalyzeKernel((*file)->original, c.kernel).reason
                    : file.status().ToString();
      refused.push_back(c.label + (c.slice ? "" : " (slice)") +
                        (c.persistent ? "" : " (persistent)") + ": " + reason);
    }
    if (!c.run) {
      not_run.push_back(c.label + ": " + c.why_not_run);
      continue;
    }
    const bool from_program = c.file.rfind("cuda_programs_", 0) == 0;
    if (from_program && (c.slice || c.persistent)) ++runnable_program_kernels;
    if (!c.slice && !c.persistent) continue;
    Result<const LoadedFile*> loaded = Load(c.file);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    const LoadedFile& file = **loaded;
    // The original, under two interleavings: a case whose output depends on
    // the order would not be a fair reference.
    Result<Reference> ref = RunOriginal(c, file, 1);
    if (!ref.ok()) {
      ADD_FAILURE() << c.label << ": " << ref.status().ToString();
      continue;
    }
    Result<Reference> again = RunOriginal(c, file, 2);
    if (!again.ok()) {
      ADD_FAILURE() << c.label << ": " << again.status().ToString();
      continue;
    }
    const std::string order = Difference(c, ref->outputs, again->outputs);
    EXPECT_EQ(order, "")
        << c.label << ": the original's output depends on the interleaving";
    if (c.run_counter >= 0) {
      EXPECT_EQ(CountsDifference(ref->outputs[c.run_counter], BlockCount(c),
                                 BlockCount(c)),
                "");
    }
    bool all_match = order.empty();
    if (c.slice) {
      uint64_t seed = 100;
      const auto partitions = Partitions(c);
      for (const auto& ranges : partitions) {
        const std::string bad =
            RunSlices(c, file.with_forms, *ref, ranges, seed++);
        EXPECT_EQ(bad, "") << c.label << " sliced, " << ranges.size()
                           << " slices";
        all_match = all_match && bad.empty();
        ++totals.slice_partitions;
      }
      // The last partition again, from the printed text read back.
      const std::string bad =
          RunSlices(c, file.reprinted, *ref, partitions.back(), seed);
      EXPECT_EQ(bad, "") << c.label << " sliced, printed and read back";
      all_match = all_match && bad.empty();
      ++totals.slice_partitions;
    }
    if (c.persistent) {
      // Every worker count with three seeds; the third with two workers
      // resident at a time, so that the others start late.
      for (uint32_t w : kWorkerCounts) {
        for (uint64_t k = 1; k <= 3; ++k) {
          PersistentRun run;
          run.workers = w;
          run.seed = 10 * k + w;
          run.resident_blocks = k == 3 ? 2 : 8;
          run.max_retreats = kRetreatsPerRun;
          const std::string bad =
              RunPersistent(c, file.with_forms, *ref, run, &totals.retreats);
          EXPECT_EQ(bad, "") << c.label << " persistent";
          all_match = all_match && bad.empty();
          ++totals.persistent_runs;
        }
      }
      // Three workers again, from the printed text read back.
      PersistentRun run;
      run.workers = 3;
      run.seed = 99;
      const std::string bad =
          RunPersistent(c, file.reprinted, *ref, run, &totals.retreats);
      EXPECT_EQ(bad, "") << c.label << " persistent, printed and read back";
      all_match = all_match && bad.empty();
      ++totals.persistent_runs;
    }
    if (all_match) totals.kernels_checked.insert(c.file + ":" + c.kernel);
    const double ms = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count();
    std::printf("  %-52s %3u blocks %9llu steps %8.0f ms%s\n", c.label.c_str(),
                BlockCount(c), static_cast<unsigned long long>(ref->steps), ms,
                all_match ? "" : "  MISMATCH");
  }
  for (const std::string& r : refused)
    std::printf("  refused: %s\n", r.c_str());
  for (const std::string& r : not_run)
    std::printf("  not run: %s\n", r.c_str());
  std::printf(
      "forms on the interpreter: %zu kernels checked, %d slice partitions, "
      "%d persistent runs with %d retreats; %d forms refused\n",
      totals.kernels_checked.size(), totals.slice_partitions,
      totals.persistent_runs, totals.retreats, totals.refused_forms);
  // Our 30+ kernels and every program kernel that can run must all pass.
  EXPECT_GE(totals.kernels_checked.size(), 30u + runnable_program_kernels);
  // Retreats were injected and some stopped workers short of the end.
  EXPECT_GT(totals.retreats, 0);
}

TEST(FormsOnInterpreterTest, PersistentRunsEachBlockOnceAcrossManyRetreats) {
  // block_run_counter over 48 blocks, up to 12 retreats per run: after
  // every launch exactly blocks [0, min(next_block, 48)) have counted one
  // run.
  const KernelCase* counter = nullptr;
  for (const KernelCase& c : cases::KernelCases()) {
    if (c.label == "forms_grid/block_run_counter_1d") counter = &c;
  }
  ASSERT_NE(counter, nullptr);
  Result<const LoadedFile*> file = Load(counter->file);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  Result<Reference> ref = RunOriginal(*counter, **file, 1);
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  int retreats = 0;
  for (uint32_t w : kWorkerCounts) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      PersistentRun run;
      run.workers = w;
      run.seed = 100 * w + seed;
      run.max_retreats = 12;
      EXPECT_EQ(
          RunPersistent(*counter, (*file)->with_forms, *ref, run, &retreats),
          "")
          << "W=" << w << " seed " << seed;
    }
  }
  // Each retreat is drawn within the steps the remaining blocks take, so
  // most land before the last block is taken.
  std::printf("block_run_counter_1d: 12 persistent runs, %d retreats\n",
              retreats);
  EXPECT_GE(retreats, 12 * 4 * 3 / 4);
}

}  // namespace
}  // namespace colo::ptx
