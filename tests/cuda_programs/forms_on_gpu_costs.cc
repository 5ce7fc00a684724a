// The kernel forms' costs on a real GPU (forms_on_gpu.h, MeasureCosts), for
// the forms colo builds of gpu_trainer's kernel (trainer_step: FMA blocks of
// 256 threads, one wave = 8 blocks per SM), against what the simulated GPU
// and the priority policy assume. tests/cuda_programs/preemption_costs
// measured the same costs for hand-written forms
// (docs/measurements/preemption-costs-h100.md); these are colo's own.
//
// The kernel: W_k = `waves` full waves of blocks of about `block_us` (the
// loop length calibrated on one wave), n = waves x 8 x SMs blocks.
//  - slice launch gap: the kernel as `waves` one-wave slices, queued back
//    to back, and launched each once the host saw the one before end; the
//    time beyond the whole kernel, per gap between slices.
//  - persistent overhead: the persistent form with a full GPU of workers
//    (SMs x its occupancy) over the whole kernel; per logical block as the
//    GPU sees it ((persistent - whole) / n) and as its worker sees it
//    (x workers: the time added to each block it runs).
//  - retreat latency: workers run the kernel; at a random 20-70% of its
//    time the host raises `retreat` (a 4-byte copy on the side stream,
//    behind an event there); the time from that event to the persistent
//    launch's end event is flag + the last worker's way out, about one
//    logical block by the simulator's model. Each request must stop the
//    kernel short of n, and the rest runs on resumption.
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "forms_on_gpu.h"
#include "ptx/kernel_forms.h"

namespace colo::forms_on_gpu {
namespace {

constexpr char kStem[] = "cuda_programs_gpu_trainer";
constexpr char kKernel[] = "_Z12trainer_stepPfi";
constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;  // gpu_trainer's wave

// What the simulated GPU and the priority policy assume
// (sim/measured_preemption.h, sched/policy.h).
constexpr double kSimSliceGapUs = 10;              // slice_launch_gap
constexpr double kSimPersistentOverhead = 0.02;    // x the block time
constexpr double kSimPersistentBlockCostUs = 0.2;  // + per logical block
constexpr double kSimRetreatFlagUs = 18;           // then ~0.94 block

class Costs {
 public:
  Costs(const Gpu& gpu, const CostOptions& o) : gpu_(gpu), o_(o) {}
  ~Costs() {
    if (out_ != 0) gpu_.cu->cuMemFree(out_);
    if (control_ != 0) gpu_.cu->cuMemFree(control_);
    for (CUevent e : {start_, end_, request_})
      if (e != nullptr) gpu_.cu->cuEventDestroy(e);
  }
  Costs(const Costs&) = delete;
  Costs& operator=(const Costs&) = delete;

  Status Run() {
    const Gpu& gpu = gpu_;
    deadline_ = Clock::now() + std::chrono::microseconds(
                                   static_cast<int64_t>(o_.deadline_s * 1e6));
    Result<CUmodule> module = LoadFormsModule(gpu, o_.kernel_dir, kStem);
    if (!module.ok()) return module.status();
    whole_ = FindKernel(gpu, *module, kKernel);
    slice_ = FindKernel(gpu, *module, kKernel + std::string(ptx::kSliceSuffix));
    persistent_ =
        FindKernel(gpu, *module, kKernel + std::string(ptx::kPersistentSuffix));
    if (whole_ == nullptr || slice_ == nullptr || persistent_ == nullptr) {
      return FailedPreconditionError(std::string(kStem) +
                                     ".ptx: trainer_step or a form missing");
    }
    int occupancy = 0;
    COLO_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&occupancy, persistent_,
                                                        kThreads, 0));
    wave_ = static_cast<uint32_t>(gpu.sms * kBlocksPerSm);
    n_ = wave_ * static_cast<uint32_t>(o_.waves);
    workers_ = static_cast<uint32_t>(gpu.sms * occupancy);
    COLO_CU(cuMemAlloc(&out_, n_ * sizeof(float)));
    COLO_CU(cuMemAlloc(&control_, sizeof(ptx::PersistentControl)));
    COLO_CU(cuEventCreate(&start_, CU_EVENT_DEFAULT));
    COLO_CU(cuEventCreate(&end_, CU_EVENT_DEFAULT));
    COLO_CU(cuEventCreate(&request_, CU_EVENT_DEFAULT));

    COLO_RETURN_IF_ERROR(Calibrate());
    std::printf(
        "cost kernel: trainer_step, %u blocks of %d threads (%d waves of %u), "
        "%d FMA iterations: %.1f us a block (wanted %.0f); persistent form: "
        "%d workers per SM, %u in all\n",
        n_, kThreads, o_.waves, wave_, iters_, block_us_, o_.block_us,
        occupancy, workers_);
    Result<double> whole = Median(5, [&] { return EnqueueWhole(); });
    if (!whole.ok()) return whole.status();
    whole_us_ = *whole;
    COLO_RETURN_IF_ERROR(SliceGap());
    COLO_RETURN_IF_ERROR(PersistentOverhead());
    return RetreatLatency();
  }

 private:
  Args FmaArgs() const { return {U64Bytes(out_), U32Bytes(iters_)}; }

  Status EnqueueGrid(CUfunction f, uint32_t grid, Args args) {
    return Launch(gpu_, f, {grid, 1, 1}, {kThreads, 1, 1}, 0, args, gpu_.work);
  }
  Status EnqueueWhole() { return EnqueueGrid(whole_, n_, FmaArgs()); }
  Status EnqueueSlice(uint32_t first, uint32_t count) {
    Args args = FmaArgs();
    args.push_back(U32Bytes(first));
    args.push_back(U32Bytes(n_));
    args.push_back(U32Bytes(1));
    args.push_back(U32Bytes(1));
    return EnqueueGrid(slice_, count, args);
  }
  Status EnqueuePersistent() {
    Args args = FmaArgs();
    args.push_back(U64Bytes(control_));
    args.push_back(U32Bytes(n_));
    args.push_back(U32Bytes(1));
    args.push_back(U32Bytes(1));
    return EnqueueGrid(persistent_, workers_, args);
  }
  Status ClearControl() {
    const Gpu& gpu = gpu_;
    COLO_CU(cuMemsetD32Async(control_, 0, 2, gpu.work));
    return OkStatus();
  }
  Result<ptx::PersistentControl> ReadControl() {
    const Gpu& gpu = gpu_;
    ptx::PersistentControl ctl;
    COLO_CU(cuMemcpyDtoH(&ctl, control_, sizeof ctl));
    return ctl;
  }

  // GPU time of what `enqueue` puts on the work stream, in us.
  template <typename Enqueue>
  Result<double> Time(Enqueue enqueue) {
    const Gpu& gpu = gpu_;
    COLO_CU(cuEventRecord(start_, gpu.work));
    COLO_RETURN_IF_ERROR(enqueue());
    COLO_CU(cuEventRecord(end_, gpu.work));
    COLO_RETURN_IF_ERROR(WaitStream(gpu, gpu.work, deadline_, "cost kernels"));
    float ms = 0;
    COLO_CU(cuEventElapsedTime(&ms, start_, end_));
    return ms * 1e3;
  }
  template <typename Enqueue>
  Result<double> Median(int reps, Enqueue enqueue) {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
      Result<double> us = Time(enqueue);
      if (!us.ok()) return us.status();
      t.push_back(*us);
    }
    return forms_on_gpu::Median(t);
  }

  // The loop length for one wave of block_us (three proportional
  // corrections), and the block time it gives.
  Status Calibrate() {
    iters_ = 4096;
    for (int round = 0; round < 4; ++round) {
      Result<double> us =
          Median(3, [&] { return EnqueueGrid(whole_, wave_, FmaArgs()); });
      if (!us.ok()) return us.status();
      block_us_ = *us;
      if (round == 3) break;
      iters_ = std::max<uint32_t>(
          1, static_cast<uint32_t>(iters_ * o_.block_us / *us));
    }
    return OkStatus();
  }

  Status SliceGap() {
    const Gpu& gpu = gpu_;
    const int slices = o_.waves;
    Result<double> queued = Median(5, [&]() -> Status {
      for (int k = 0; k < slices; ++k)
        COLO_RETURN_IF_ERROR(EnqueueSlice(k * wave_, wave_));
      return OkStatus();
    });
    if (!queued.ok()) return queued.status();
    // Each slice launched once the host saw the previous one end, as colod
    // launches them.
    Result<double> on_end = Median(3, [&]() -> Status {
      for (int k = 0; k < slices; ++k) {
        COLO_RETURN_IF_ERROR(EnqueueSlice(k * wave_, wave_));
        if (k + 1 < slices) {
          COLO_RETURN_IF_ERROR(
              WaitStream(gpu, gpu.work, deadline_, "a cost slice"));
        }
      }
      return OkStatus();
    });
    if (!on_end.ok()) return on_end.status();
    const double gaps = slices - 1;
    std::printf(
        "cost slice_gap_us: queued %.2f, launched on the previous end %.2f "
        "(%d one-wave slices: %.0f / %.0f us, whole kernel %.0f us); the "
        "priority policy assumes %.0f us\n",
        (*queued - whole_us_) / gaps, (*on_end - whole_us_) / gaps, slices,
        *queued, *on_end, whole_us_, kSimSliceGapUs);
    return OkStatus();
  }

  Status PersistentOverhead() {
    std::vector<double> t;
    for (int r = 0; r < 5; ++r) {
      COLO_RETURN_IF_ERROR(ClearControl());
      Result<double> us = Time([&] { return EnqueuePersistent(); });
      if (!us.ok()) return us.status();
      t.push_back(*us);
      Result<ptx::PersistentControl> ctl = ReadControl();
      if (!ctl.ok()) return ctl.status();
      if (ctl->next_block < n_ || ctl->next_block > n_ + workers_) {
        return InternalError("persistent run: next_block " +
                             std::to_string(ctl->next_block) +
                             " outside [n, n + W] = [" + std::to_string(n_) +
                             ", " + std::to_string(n_ + workers_) + "]");
      }
    }
    const double persistent_us = forms_on_gpu::Median(t);
    const double extra = persistent_us - whole_us_;
    const double per_block_worker = extra * workers_ / n_;
    std::printf(
        "cost persistent: %.0f us vs whole %.0f us (%+.1f%%); per logical "
        "block %.3f us of GPU time, %.2f us on its worker; the simulated GPU "
        "assumes %.0f%% + %.1f us a block = %.2f us at %.1f us blocks\n",
        persistent_us, whole_us_, 100 * (persistent_us / whole_us_ - 1),
        extra / n_, per_block_worker, 100 * kSimPersistentOverhead,
        kSimPersistentBlockCostUs,
        kSimPersistentOverhead * block_us_ + kSimPersistentBlockCostUs,
        block_us_);
    return OkStatus();
  }

  Status RetreatLatency() {
    const Gpu& gpu = gpu_;
    std::mt19937_64 gen(20261127);
    std::vector<double> gpu_us, host_us;
    int late = 0;
    for (int trial = 0; trial < o_.trials; ++trial) {
      COLO_RETURN_IF_ERROR(ClearControl());
      COLO_CU(cuEventRecord(start_, gpu.work));
      COLO_RETURN_IF_ERROR(EnqueuePersistent());
      COLO_CU(cuEventRecord(end_, gpu.work));
      const double at_us =
          whole_us_ * (0.2 + 0.5 * static_cast<double>(gen() % 1000) / 1000);
      const Clock::time_point launched = Clock::now();
      const Clock::time_point at =
          launched +
          std::chrono::nanoseconds(static_cast<int64_t>(at_us * 1e3));
      while (Clock::now() < at) {
      }
      const Clock::time_point requested = Clock::now();
      COLO_CU(cuEventRecord(request_, gpu.side));
      COLO_CU(cuMemcpyHtoDAsync(
          control_ + offsetof(ptx::PersistentControl, retreat), gpu.pinned_one,
          4, gpu.side));
      COLO_RETURN_IF_ERROR(WaitStream(gpu, gpu.work, deadline_,
                                      "persistent workers told to retreat"));
      const Clock::time_point seen = Clock::now();
      COLO_RETURN_IF_ERROR(
          WaitStream(gpu, gpu.side, deadline_, "the retreat copy"));
      Result<ptx::PersistentControl> ctl = ReadControl();
      if (!ctl.ok()) return ctl.status();
      if (ctl->next_block >= n_) {
        ++late;  // the kernel was done before the flag: no retreat to time
        continue;
      }
      float ms = 0;
      COLO_CU(cuEventElapsedTime(&ms, request_, end_));
      gpu_us.push_back(ms * 1e3);
      host_us.push_back(
          std::chrono::duration<double, std::micro>(seen - requested).count());
      // Resumption: the rest of the blocks, then every one was taken.
      COLO_CU(
          cuMemsetD32Async(control_ + offsetof(ptx::PersistentControl, retreat),
                           0, 1, gpu.work));
      COLO_RETURN_IF_ERROR(EnqueuePersistent());
      COLO_RETURN_IF_ERROR(
          WaitStream(gpu, gpu.work, deadline_, "resumed workers"));
      Result<ptx::PersistentControl> after = ReadControl();
      if (!after.ok()) return after.status();
      if (after->next_block < n_) {
        return InternalError("resumed persistent run ended at next_block " +
                             std::to_string(after->next_block) + " < " +
                             std::to_string(n_));
      }
    }
    if (gpu_us.empty()) {
      return InternalError("no retreat request came before the kernel's end (" +
                           std::to_string(late) + " late)");
    }
    auto quantiles = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      char text[96];
      std::snprintf(text, sizeof text, "p50 %.1f / p90 %.1f / max %.1f",
                    v[v.size() / 2], v[(v.size() * 9) / 10], v.back());
      return std::string(text);
    };
    std::vector<double> beyond;
    for (double us : gpu_us) beyond.push_back(us - block_us_);
    std::printf(
        "cost retreat_us (request to last worker out, %zu requests, %d too "
        "late): GPU events %s; host %s; beyond one %.1f us block %s; the "
        "simulated GPU assumes %.0f + 0.94 x block = %.1f us\n",
        gpu_us.size(), late, quantiles(gpu_us).c_str(),
        quantiles(host_us).c_str(), block_us_, quantiles(beyond).c_str(),
        kSimRetreatFlagUs, kSimRetreatFlagUs + 0.94 * block_us_);
    return OkStatus();
  }

  const Gpu& gpu_;
  const CostOptions& o_;
  Clock::time_point deadline_;
  CUfunction whole_ = nullptr, slice_ = nullptr, persistent_ = nullptr;
  CUdeviceptr out_ = 0, control_ = 0;
  CUevent start_ = nullptr, end_ = nullptr, request_ = nullptr;
  uint32_t wave_ = 0, n_ = 0, workers_ = 0, iters_ = 0;
  double block_us_ = 0, whole_us_ = 0;
};

}  // namespace

Status MeasureCosts(const Gpu& gpu, const CostOptions& options) {
  Costs costs(gpu, options);
  return costs.Run();
}

}  // namespace colo::forms_on_gpu
