// forms_on_gpu: the kernel forms (ptx/kernel_forms.h) on a real GPU, each
// against its original, bit for bit, for every case of the catalog
// tests/ptx/kernel_cases.h whose PTX file exists; then the forms' costs
// (forms_on_gpu_costs.cc). The CPU interpreter checks the same forms
// (tests/ptx/forms_on_interpreter_test.cc); this program checks that the
// driver's JIT compiles them and that real warps, real barriers and real
// timing give the same memory.
//
// Each case's PTX file is read, every form is added (AddKernelForms),
// printed and loaded as one module (cuModuleLoadDataEx), so the driver
// compiles exactly the text colo would hand it. For a case of n =
// gx * gy * gz blocks, each run on fresh device memory with the catalog's
// initial bytes:
//  - the original, twice: the same output both times, else it is no fair
//    reference (reported);
//  - the sliced form over partitions of [0, n) into consecutive ranges
//    (one block each where n <= 64, all in one, random ranges, 64 equal
//    ranges where n > 64), launched back to back: every block once, with
//    the original's %ctaid / %nctaid, so memory ends as the original's;
//  - the persistent form with W workers (1, 2, 3, 7 and a full GPU: SMs x
//    the form's occupancy), the host raising PersistentControl::retreat
//    every N us of each launch (--retreat-every-us; the first launch of a
//    run is cut at 0, N/3 or 2N/3 us, so that kernels shorter than N are
//    cut too), and launching again with retreat cleared until next_block
//    >= n. After every launch: next_block did not go back; a launch that
//    ended short of n was asked to retreat; the case's run counter shows
//    blocks [0, min(next_block, n)) run once each and no other. At the
//    end: next_block <= n + W, the launches' logical blocks add up to n,
//    and memory equals the original's.
// Plus one long case: forms_grid/block_run_counter_1d with --long-blocks
// blocks (default 200000), so that retreats land in a kernel that runs
// for milliseconds.
//
// Every wait has a deadline (--case-timeout-s per case): a kernel that has
// not ended by then is reported as a hang naming the case and the form,
// and the program exits 1 at once (the hung kernel dies with the process).
// A CUDA error that leaves the context unusable ends the run the same way.
//
// Usage: forms_on_gpu [KERNEL_DIR] [--retreat-every-us N] [--case-timeout-s S]
//          [--only SUBSTRING] [--long-blocks N] [--no-costs | --costs-only]
//          [--cost-waves N] [--cost-block-us US]
//   KERNEL_DIR: where the build put <stem>.ptx (default: this build's
//   COLO_PTX_KERNEL_DIR).
// Prints one line per case ("ok", "FAIL", "skip"), a summary line
// "forms_on_gpu: ...", and `cost ...` lines. Exits 0 when everything
// matched, 1 on a mismatch, a hang or a CUDA error, 2 on bad arguments,
// 77 without a GPU ("forms_on_gpu: needs a GPU: <cuda error>").
#include "forms_on_gpu.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernel_cases.h"
#include "ptx/kernel_forms.h"

#ifndef COLO_PTX_KERNEL_DIR
#define COLO_PTX_KERNEL_DIR "tests/ptx/kernels"
#endif

namespace colo::forms_on_gpu {
namespace {

using ptx::cases::BlockCount;
using ptx::cases::BufferSpec;
using ptx::cases::CountsDifference;
using ptx::cases::Difference;
using ptx::cases::KernelCase;
using ptx::cases::Outputs;

struct Options {
  std::string kernel_dir = COLO_PTX_KERNEL_DIR;
  double retreat_every_us = 20;
  double case_timeout_s = 20;
  std::string only;
  uint32_t long_blocks = 200000;
  bool cases = true;
  bool costs = true;
  CostOptions cost;
};

// Retreats one persistent run may raise; launches after them run to the end.
constexpr int kMaxRetreatsPerRun = 400;

// A case's buffers in device memory, with the initial bytes, and the
// original's parameters with their addresses patched in.
class DeviceCase {
 public:
  explicit DeviceCase(const Gpu& gpu) : gpu_(gpu) {}
  ~DeviceCase() {
    // After a CUDA error these may fail too; nothing more to do then.
    for (CUdeviceptr b : buffers_) gpu_.cu->cuMemFree(b);
  }
  DeviceCase(const DeviceCase&) = delete;
  DeviceCase& operator=(const DeviceCase&) = delete;

  Status Prepare(const KernelCase& c, const Outputs& initial) {
    const Gpu& gpu = gpu_;
    for (const std::vector<uint8_t>& bytes : initial) {
      CUdeviceptr p = 0;
      COLO_CU(cuMemAlloc(&p, std::max<size_t>(bytes.size(), 1)));
      buffers_.push_back(p);
      sizes_.push_back(bytes.size());
      if (!bytes.empty()) COLO_CU(cuMemcpyHtoD(p, bytes.data(), bytes.size()));
    }
    for (const ptx::cases::ParamSpec& param : c.params) {
      std::vector<uint8_t> bytes = param.bytes;
      for (const auto& patch : param.patches) {
        const uint64_t address = buffers_.at(patch.buffer);
        std::memcpy(bytes.data() + patch.offset, &address, 8);
      }
      args_.push_back(std::move(bytes));
    }
    // A copy from pageable memory may return before its DMA ends, on the
    // legacy stream, which the non-blocking work stream does not wait for.
    COLO_CU(cuCtxSynchronize());
    return OkStatus();
  }

  // One more device allocation, zeroed, freed with the case.
  Result<CUdeviceptr> AllocateZeroed(size_t size) {
    const Gpu& gpu = gpu_;
    CUdeviceptr p = 0;
    COLO_CU(cuMemAlloc(&p, size));
    buffers_.push_back(p);
    COLO_CU(cuMemsetD8(p, 0, size));
    COLO_CU(cuCtxSynchronize());  // the memset may return before it ran
    return p;
  }

  Result<std::vector<uint8_t>> Read(size_t index) const {
    const Gpu& gpu = gpu_;
    std::vector<uint8_t> bytes(sizes_.at(index));
    if (!bytes.empty())
      COLO_CU(cuMemcpyDtoH(bytes.data(), buffers_[index], bytes.size()));
    return bytes;
  }

  Result<Outputs> ReadAll() const {
    Outputs out;
    for (size_t b = 0; b < sizes_.size(); ++b) {
      Result<std::vector<uint8_t>> bytes = Read(b);
      if (!bytes.ok()) return bytes.status();
      out.push_back(std::move(bytes).value());
    }
    return out;
  }

  const Args& args() const { return args_; }

 private:
  const Gpu& gpu_;
  std::vector<CUdeviceptr> buffers_;
  std::vector<size_t> sizes_;
  Args args_;
};

struct LoadedModule {
  CUmodule module = nullptr;
  Status status;  // why it could not be loaded
};

// What one case gave: its mismatches (each a line), and what ran.
struct CaseRun {
  std::vector<std::string> failures;
  int partitions = 0;
  int persistent_runs = 0;
  int retreats = 0;
};

class CaseChecker {
 public:
  CaseChecker(const Gpu& gpu, const Options& options)
      : gpu_(gpu), options_(options) {}

  // Mismatches go into *run; a non-OK Status is a hang or a CUDA error
  // (the caller stops).
  Status CheckCase(const KernelCase& c, CUmodule module, CaseRun* run) {
    deadline_ = Clock::now() + std::chrono::microseconds(static_cast<int64_t>(
                                   options_.case_timeout_s * 1e6));
    initial_.clear();
    for (size_t b = 0; b < c.buffers.size(); ++b) {
      initial_.push_back(ptx::cases::InitialBytes(
          c.buffers[b], ptx::cases::HashSeed(c.label) + b));
    }
    CUfunction original = FindKernel(gpu_, module, c.kernel);
    CUfunction slice =
        FindKernel(gpu_, module, c.kernel + std::string(ptx::kSliceSuffix));
    CUfunction persistent = FindKernel(
        gpu_, module, c.kernel + std::string(ptx::kPersistentSuffix));
    if (original == nullptr) {
      run->failures.push_back("no kernel " + c.kernel + " in the module");
      return OkStatus();
    }
    if ((slice != nullptr) != c.slice ||
        (persistent != nullptr) != c.persistent) {
      run->failures.push_back(
          std::string("forms in the module: slice ") +
          (slice != nullptr ? "yes" : "no") + ", persistent " +
          (persistent != nullptr ? "yes" : "no") + "; the catalog says " +
          (c.slice ? "yes" : "no") + ", " + (c.persistent ? "yes" : "no"));
    }
    Result<Outputs> ref = RunOriginal(c, original);
    if (!ref.ok()) return ref.status();
    Result<Outputs> again = RunOriginal(c, original);
    if (!again.ok()) return again.status();
    if (std::string d = Difference(c, *ref, *again); !d.empty()) {
      run->failures.push_back("the original gave two outputs: " + d);
    }
    if (c.run_counter >= 0) {
      const std::string d =
          CountsDifference((*ref)[c.run_counter], BlockCount(c), BlockCount(c));
      if (!d.empty()) run->failures.push_back("original: " + d);
    }
    if (slice != nullptr) {
      for (const auto& ranges : Partitions(c)) {
        Result<std::string> bad = RunSlices(c, slice, *ref, ranges);
        if (!bad.ok()) return bad.status();
        if (!bad->empty()) {
          run->failures.push_back("sliced, " + std::to_string(ranges.size()) +
                                  " slices: " + *bad);
        }
        ++run->partitions;
      }
    }
    if (persistent != nullptr) {
      int occupancy = 0;
      COLO_RETURN_IF_ERROR(
          Check(gpu_.cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(
                    &occupancy, persistent, c.block.x * c.block.y * c.block.z,
                    c.dynamic_shared_bytes),
                "cuOccupancyMaxActiveBlocksPerMultiprocessor"));
      const uint32_t full =
          static_cast<uint32_t>(std::max(1, occupancy * gpu_.sms));
      std::vector<uint32_t> workers = {1, 2, 3, 7, full};
      // A long case: one worker per SM and a full GPU (one worker alone
      // would take seconds).
      if (BlockCount(c) > 4096)
        workers = {static_cast<uint32_t>(gpu_.sms), full};
      for (uint32_t w : workers) {
        for (int k = 0; k < 3; ++k) {
          const double first_delay = options_.retreat_every_us * k / 3.0;
          Result<std::string> bad = RunPersistent(c, persistent, *ref, w,
                                                  first_delay, &run->retreats);
          if (!bad.ok()) return bad.status();
          if (!bad->empty()) {
            char where[96];
            std::snprintf(where, sizeof where,
                          "persistent, W=%u, first retreat at %.1f us: ", w,
                          first_delay);
            run->failures.push_back(where + *bad);
          }
          ++run->persistent_runs;
        }
      }
    }
    return OkStatus();
  }

 private:
  Status Wait(CUstream stream, const std::string& what) {
    return WaitStream(gpu_, stream, deadline_, what);
  }

  Result<Outputs> RunOriginal(const KernelCase& c, CUfunction f) {
    DeviceCase d(gpu_);
    COLO_RETURN_IF_ERROR(d.Prepare(c, initial_));
    Args args = d.args();
    COLO_RETURN_IF_ERROR(Launch(gpu_, f, {c.grid.x, c.grid.y, c.grid.z},
                                {c.block.x, c.block.y, c.block.z},
                                c.dynamic_shared_bytes, args, gpu_.work));
    COLO_RETURN_IF_ERROR(Wait(gpu_.work, "the original"));
    return d.ReadAll();
  }

  // Consecutive ranges [first, end) covering [0, n), one list a partition.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> Partitions(
      const KernelCase& c) const {
    const uint32_t n = BlockCount(c);
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> all;
    if (n <= 64) {
      std::vector<std::pair<uint32_t, uint32_t>> singles;
      for (uint32_t b = 0; b < n; ++b) singles.push_back({b, b + 1});
      all.push_back(singles);
    } else {
      std::vector<std::pair<uint32_t, uint32_t>> equal;
      for (uint32_t k = 0; k < 64; ++k)
        equal.push_back({n * static_cast<uint64_t>(k) / 64,
                         n * static_cast<uint64_t>(k + 1) / 64});
      all.push_back(equal);
    }
    if (n > 1) all.push_back({{0, n}});
    std::mt19937_64 gen(ptx::cases::HashSeed(c.label) ^ 0x5a11ceull);
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
    return all;
  }

  // "" or what differs.
  Result<std::string> RunSlices(
      const KernelCase& c, CUfunction f, const Outputs& ref,
      const std::vector<std::pair<uint32_t, uint32_t>>& ranges) {
    DeviceCase d(gpu_);
    COLO_RETURN_IF_ERROR(d.Prepare(c, initial_));
    for (const auto& [first, end] : ranges) {
      Args args = d.args();
      args.push_back(U32Bytes(first));
      args.push_back(U32Bytes(c.grid.x));
      args.push_back(U32Bytes(c.grid.y));
      args.push_back(U32Bytes(c.grid.z));
      COLO_RETURN_IF_ERROR(Launch(gpu_, f, {end - first, 1, 1},
                                  {c.block.x, c.block.y, c.block.z},
                                  c.dynamic_shared_bytes, args, gpu_.work));
    }
    COLO_RETURN_IF_ERROR(
        Wait(gpu_.work,
             "the sliced form (" + std::to_string(ranges.size()) + " slices)"));
    Result<Outputs> got = d.ReadAll();
    if (!got.ok()) return got.status();
    if (std::string diff = Difference(c, ref, *got); !diff.empty()) return diff;
    if (c.run_counter >= 0)
      return CountsDifference((*got)[c.run_counter], BlockCount(c),
                              BlockCount(c));
    return std::string();
  }

  // Raises `retreat` of the control block at `control` through the side
  // stream (a copy from pinned memory: the copy engine, not an SM).
  Status RaiseRetreat(CUdeviceptr control) {
    const Gpu& gpu = gpu_;
    COLO_CU(
        cuMemcpyHtoDAsync(control + offsetof(ptx::PersistentControl, retreat),
                          gpu.pinned_one, 4, gpu.side));
    return OkStatus();
  }

  // One persistent run, resumed until every block was taken; "" or what
  // went wrong. Adds its retreats to *retreats.
  Result<std::string> RunPersistent(const KernelCase& c, CUfunction f,
                                    const Outputs& ref, uint32_t workers,
                                    double first_delay_us, int* retreats) {
    const Gpu& gpu = gpu_;
    DeviceCase d(gpu_);
    COLO_RETURN_IF_ERROR(d.Prepare(c, initial_));
    Result<CUdeviceptr> control =
        d.AllocateZeroed(sizeof(ptx::PersistentControl));
    if (!control.ok()) return control.status();
    const uint32_t n = BlockCount(c);
    uint32_t next_before = 0;
    uint64_t logical_blocks = 0;
    int run_retreats = 0;
    const std::string form =
        "the persistent form (W=" + std::to_string(workers) + ")";
    for (int launch = 0;; ++launch) {
      Args args = d.args();
      args.push_back(U64Bytes(*control));
      args.push_back(U32Bytes(c.grid.x));
      args.push_back(U32Bytes(c.grid.y));
      args.push_back(U32Bytes(c.grid.z));
      const Clock::time_point start = Clock::now();
      COLO_RETURN_IF_ERROR(Launch(gpu_, f, {workers, 1, 1},
                                  {c.block.x, c.block.y, c.block.z},
                                  c.dynamic_shared_bytes, args, gpu_.work));
      bool raised = false;
      if (run_retreats < kMaxRetreatsPerRun) {
        const double delay_us =
            launch == 0 ? first_delay_us : options_.retreat_every_us;
        const Clock::time_point at =
            start +
            std::chrono::nanoseconds(static_cast<int64_t>(delay_us * 1e3));
        // Spin to the moment, unless the launch ends first.
        bool ended = false;
        while (Clock::now() < at) {
          const CUresult r = gpu.cu->cuStreamQuery(gpu.work);
          if (r == CUDA_SUCCESS) {
            ended = true;
            break;
          }
          if (r != CUDA_ERROR_NOT_READY) return Check(r, "cuStreamQuery");
        }
        if (!ended) {
          COLO_RETURN_IF_ERROR(RaiseRetreat(*control));
          raised = true;
        }
      }
      COLO_RETURN_IF_ERROR(Wait(gpu.work, form));
      COLO_RETURN_IF_ERROR(Wait(gpu.side, "the retreat copy"));
      ptx::PersistentControl ctl;
      COLO_CU(cuMemcpyDtoH(&ctl, *control, sizeof ctl));
      const std::string where = "launch " + std::to_string(launch);
      if (ctl.next_block < next_before) return where + ": next_block went back";
      logical_blocks += std::min(ctl.next_block, n) - std::min(next_before, n);
      next_before = ctl.next_block;
      if (c.run_counter >= 0) {
        Result<std::vector<uint8_t>> counts = d.Read(c.run_counter);
        if (!counts.ok()) return counts.status();
        const std::string bad =
            CountsDifference(*counts, std::min(ctl.next_block, n), n);
        if (!bad.empty()) return where + ": " + bad;
      }
      if (ctl.next_block >= n) break;
      if (!raised) {
        return where + ": every worker returned with next_block " +
               std::to_string(ctl.next_block) + " < " + std::to_string(n) +
               " and no retreat";
      }
      ++run_retreats;
      ++*retreats;
      // Cleared on the work stream, so before the next launch.
      COLO_CU(cuMemcpyHtoDAsync(
          *control + offsetof(ptx::PersistentControl, retreat), gpu.pinned_zero,
          4, gpu.work));
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
    Result<Outputs> got = d.ReadAll();
    if (!got.ok()) return got.status();
    return Difference(c, ref, *got);
  }

  const Gpu& gpu_;
  const Options& options_;
  Clock::time_point deadline_;
  Outputs initial_;
};

// forms_grid/block_run_counter_1d with `blocks` blocks: its buffers are one
// counter per block (counts), one sum (checksum) and one word per thread
// (work, 32 a block), so they scale with the grid.
bool LongCase(uint32_t blocks, KernelCase* out) {
  for (const KernelCase& c : ptx::cases::KernelCases()) {
    if (c.label != "forms_grid/block_run_counter_1d") continue;
    const uint32_t n = BlockCount(c);
    *out = c;
    out->label = c.label + " x" + std::to_string(blocks);
    out->grid = {blocks, 1, 1};
    for (BufferSpec& b : out->buffers) {
      if (b.count % n == 0 && b.count >= n) b.count = b.count / n * blocks;
    }
    return true;
  }
  return false;
}

bool ParseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](double* v) {
      if (i + 1 >= argc) return false;
      char* end = nullptr;
      *v = std::strtod(argv[++i], &end);
      return end != argv[i] && *end == 0;
    };
    double v = 0;
    if (a == "--retreat-every-us") {
      if (!value(&v) || v < 0) return false;
      o->retreat_every_us = v;
    } else if (a == "--case-timeout-s") {
      if (!value(&v) || v <= 0) return false;
      o->case_timeout_s = v;
    } else if (a == "--long-blocks") {
      if (!value(&v) || v < 0 || v > 1e8) return false;
      o->long_blocks = static_cast<uint32_t>(v);
    } else if (a == "--cost-waves") {
      if (!value(&v) || v < 2 || v > 1000) return false;
      o->cost.waves = static_cast<int>(v);
    } else if (a == "--cost-block-us") {
      if (!value(&v) || v <= 0) return false;
      o->cost.block_us = v;
    } else if (a == "--only" && i + 1 < argc) {
      o->only = argv[++i];
    } else if (a == "--no-costs") {
      o->costs = false;
    } else if (a == "--costs-only") {
      o->cases = false;
    } else if (!a.empty() && a[0] != '-') {
      o->kernel_dir = a;
    } else {
      return false;
    }
  }
  o->cost.kernel_dir = o->kernel_dir;
  return o->cases || o->costs;
}

// Stops the program: a hang or a broken context leaves nothing to go on
// with, and exiting ends the hung kernel with the process.
[[noreturn]] void Stop(const std::string& label, const Status& status) {
  std::printf("  FAIL %s: %s\n", label.c_str(), status.message().c_str());
  std::printf("forms_on_gpu: stopped at %s: %s\n", label.c_str(),
              status.code() == StatusCode::kUnavailable ? "a kernel hung"
                                                        : "a CUDA error");
  std::fflush(stdout);
  std::_Exit(1);
}

int RunCases(const Gpu& gpu, const Options& options) {
  std::vector<KernelCase> all = ptx::cases::KernelCases();
  KernelCase long_case;
  if (options.long_blocks > 0 && LongCase(options.long_blocks, &long_case))
    all.push_back(long_case);
  std::map<std::string, LoadedModule> modules;
  std::map<std::string, int> missing;
  CaseChecker checker(gpu, options);
  int checked = 0, failed = 0, partitions = 0, runs = 0, retreats = 0;
  for (const KernelCase& c : all) {
    if (!options.only.empty() &&
        c.label.find(options.only) == std::string::npos)
      continue;
    const std::string path = options.kernel_dir + "/" + c.file + ".ptx";
    if (!std::filesystem::exists(path)) {
      ++missing[c.file];
      continue;
    }
    if (!c.run) {
      std::printf("  skip %s: %s\n", c.label.c_str(), c.why_not_run.c_str());
      continue;
    }
    auto it = modules.find(c.file);
    if (it == modules.end()) {
      LoadedModule m;
      Result<CUmodule> loaded =
          LoadFormsModule(gpu, options.kernel_dir, c.file);
      if (loaded.ok())
        m.module = *loaded;
      else
        m.status = loaded.status();
      it = modules.emplace(c.file, m).first;
    }
    if (!it->second.status.ok()) {
      std::printf("  FAIL %s: %s\n", c.label.c_str(),
                  it->second.status.message().c_str());
      ++failed;
      continue;
    }
    if (!c.slice && !c.persistent) {
      std::printf("  whole %s: no forms, as the catalog says\n",
                  c.label.c_str());
      continue;
    }
    const Clock::time_point start = Clock::now();
    CaseRun run;
    if (Status s = checker.CheckCase(c, it->second.module, &run); !s.ok()) {
      // A CUDA error that left the context usable fails this case only.
      if (s.code() == StatusCode::kUnavailable ||
          gpu.cu->cuCtxSynchronize() != CUDA_SUCCESS) {
        Stop(c.label, s);
      }
      run.failures.push_back(s.message());
    }
    ++checked;
    partitions += run.partitions;
    runs += run.persistent_runs;
    retreats += run.retreats;
    const double ms =
        std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (run.failures.empty()) {
      std::printf(
          "  ok   %-52s %7u blocks %3d partitions %3d runs %5d retreats %7.0f "
          "ms\n",
          c.label.c_str(), BlockCount(c), run.partitions, run.persistent_runs,
          run.retreats, ms);
    } else {
      ++failed;
      for (const std::string& f : run.failures)
        std::printf("  FAIL %s: %s\n", c.label.c_str(), f.c_str());
    }
    std::fflush(stdout);
  }
  for (const auto& [stem, count] : missing)
    std::printf("  missing %s/%s.ptx: %d cases not run\n",
                options.kernel_dir.c_str(), stem.c_str(), count);
  std::printf(
      "forms_on_gpu: %d cases checked, %d failed; %d slice partitions, %d "
      "persistent runs with %d retreats (every %.0f us)\n",
      checked, failed, partitions, runs, retreats, options.retreat_every_us);
  if (checked == 0) {
    std::printf("forms_on_gpu: no case ran (no PTX under %s?)\n",
                options.kernel_dir.c_str());
    return 1;
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace colo::forms_on_gpu

int main(int argc, char** argv) {
  using namespace colo::forms_on_gpu;
  Options options;
  if (!ParseOptions(argc, argv, &options)) {
    std::fprintf(stderr,
                 "usage: forms_on_gpu [KERNEL_DIR] [--retreat-every-us N] "
                 "[--case-timeout-s S] [--only SUBSTRING] [--long-blocks N] "
                 "[--no-costs | --costs-only] [--cost-waves N] "
                 "[--cost-block-us US]\n");
    return 2;
  }
  colo::Result<const Driver*> cu = OpenDriver();
  if (!cu.ok()) {
    std::printf("forms_on_gpu: needs a GPU: %s\n",
                cu.status().message().c_str());
    return 77;
  }
  colo::Result<Gpu> gpu = OpenGpu(*cu);
  if (!gpu.ok()) {
    std::printf("forms_on_gpu: needs a GPU: %s\n",
                gpu.status().message().c_str());
    return 77;
  }
  int version = 0;
  (*cu)->cuDriverGetVersion(&version);
  std::printf("forms_on_gpu: %s, %d SMs, driver API %d; PTX from %s\n",
              gpu->name.c_str(), gpu->sms, version, options.kernel_dir.c_str());
  std::fflush(stdout);
  int rc = 0;
  if (options.cases) rc = RunCases(*gpu, options);
  if (options.costs) {
    if (colo::Status s = MeasureCosts(*gpu, options.cost); !s.ok()) {
      std::printf("cost: FAIL: %s\n", s.message().c_str());
      std::fflush(stdout);
      if (s.code() == colo::StatusCode::kUnavailable) std::_Exit(1);
      rc = 1;
    }
  }
  std::fflush(stdout);
  // Without the driver's exit-time teardown: nothing of it is needed.
  std::_Exit(rc);
}
