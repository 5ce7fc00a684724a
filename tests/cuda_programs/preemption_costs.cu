// Measures, on a real GPU, the costs the simulated GPU assumes for the
// kernel forms of the `priority` policy (docs/simulator.md, "Slices and
// persistent blocks") and for the driver's time slicing, so that SimGpu's
// defaults can be set from them (bench/calibrate_preemption.sh runs it).
// Kernels are compute-bound FMA loops (fma_kernels.h) of 256-thread blocks.
//
// Usage:
//   preemption_costs persistent BLOCK_US
//     A kernel of 16 full waves whose blocks take about BLOCK_US, whole and
//     as persistent workers (one wave) that fetch logical blocks from a
//     counter and check a retreat flag before each (flag in device memory;
//     and in mapped host memory). Prints block_us=, whole_us=,
//     persistent_us=, overhead= (persistent / whole - 1, device flag),
//     mapped_persistent_us=, mapped_overhead=, and per_block_us= (the
//     overhead in us per logical block and worker: the fixed cost it implies).
//   preemption_costs retreat BLOCK_US TRIALS
//     TRIALS times: persistent workers run logical blocks of about BLOCK_US;
//     after a random 2-8 ms the host asks them to retreat (sets the flag in
//     device memory by a 4-byte copy on its own stream: a flag in mapped host
//     memory costs about 1 ms a logical block, see `persistent`), and times
//     until the first worker saw the flag (seen_us: the flag's way there and
//     a mapped write's way back) and until the last worker left (exit_us).
//     Then relaunches the rest and checks that every logical block ran
//     exactly once. Prints the median, p90 and max of each, and
//     exactly_once=1 (or 0 and the first bad block).
//   preemption_costs slices BLOCK_US SLICES
//     A kernel of SLICES full waves whose blocks take about BLOCK_US, whole
//     and as SLICES one-wave slices: queued back to back on one stream, and
//     each launched by the host once it saw the previous one end (spinning on
//     an event). Prints whole_us=, the slices' summed time, and the GPU-side
//     gap between a slice's last block ending and the next one's first block
//     starting (%globaltimer), median and max, for both.
//   preemption_costs timeslice MS
//     One block spins for MS milliseconds reading %globaltimer; every jump of
//     more than 20 us is a time the context was off the GPU. Run two at once
//     (two processes, two contexts) to see the driver's time slicing: prints
//     off_count=, on_us_p50= (the run between two gaps: the quantum),
//     off_us_p50= (the other context's quantum plus two switches), and p10/p90
//     of each.
//   preemption_costs corun SVC_US BE_THREADS
//     A "service" kernel of k blocks per SM (k = 1, 2, 4, 8; the loop length
//     that makes k = 1 take about SVC_US), alone, and beside persistent
//     best-effort workers of BE_THREADS threads and the same FMA loop, 8 - k
//     per SM (launched first, on the lowest-priority stream; the service on
//     the highest): the issue-slot contention harvesting puts on the
//     service. Prints solo_us_k=, beside_us_k= (medians of 15; of 3 beside)
//     and *_span_us_k= (the first run's first block start to last block end,
//     %globaltimer: whether its blocks waited to start or ran slowly).
// Exits 3 on a CUDA error, 2 on bad arguments, 1 if a check fails.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "fma_kernels.h"

namespace {

constexpr int kThreads = 256;

__device__ unsigned long long GlobalNs() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

}  // namespace

__global__ void WholeFma(float* out, int iters) { FmaLoop(out, iters); }

// Logical blocks [first, first + gridDim.x); records the earliest start and
// the latest end of its blocks in span[0], span[1] (ns, %globaltimer).
__global__ void SliceFma(float* out, int iters, unsigned long long* span) {
  if (threadIdx.x == 0) atomicMin(&span[0], GlobalNs());
  FmaLoop(out, iters);
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(&span[1], GlobalNs());
}

// Persistent workers: before each logical block, thread 0 reads the retreat
// flag and, if it is clear, takes the next index from `next`; a worker that
// reads it set (or finds no block left) leaves. `runs` (optional) counts each
// logical block's runs; `seen` (mapped, optional) gets 1 from the first
// worker to see the flag; `left` (device, optional) counts workers that left
// and `all_left` (mapped, optional) gets 1 from the last.
__global__ void PersistentFma(float* out, int iters, unsigned* next,
                              unsigned end, const volatile int* flag,
                              unsigned* runs, volatile int* seen,
                              unsigned* left, volatile int* all_left) {
  __shared__ unsigned index;
  for (;;) {
    if (threadIdx.x == 0) {
      if (*flag != 0) {
        index = end;
        if (seen != nullptr) {
          *seen = 1;
          __threadfence_system();
        }
      } else {
        index = atomicAdd(next, 1u);
      }
    }
    __syncthreads();
    const unsigned mine = index;
    if (mine >= end) break;
    FmaLoop(out, iters);
    if (threadIdx.x == 0 && runs != nullptr) atomicAdd(&runs[mine], 1u);
    __syncthreads();
  }
  // The last worker to leave tells the host (one write over the bus: a
  // system-scope atomic from every worker would queue there, about 1 us each).
  if (threadIdx.x == 0 && left != nullptr &&
      atomicAdd(left, 1u) == gridDim.x - 1 && all_left != nullptr) {
    __threadfence_system();
    *all_left = 1;
  }
}

namespace {

using Clock = std::chrono::steady_clock;

double UsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

struct Gpu {
  int sms = 0;
  int whole_per_sm = 0;       // blocks of WholeFma resident per SM.
  int persistent_per_sm = 0;  // blocks of PersistentFma resident per SM.
};

int Describe(Gpu* g) {
  CUDA_CHECK(
      cudaDeviceGetAttribute(&g->sms, cudaDevAttrMultiProcessorCount, 0));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &g->whole_per_sm, WholeFma, kThreads, 0));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &g->persistent_per_sm, PersistentFma, kThreads, 0));
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  std::printf("gpu=%s\nsms=%d\nwhole_per_sm=%d\npersistent_per_sm=%d\n", p.name,
              g->sms, g->whole_per_sm, g->persistent_per_sm);
  cudaFuncAttributes w{}, q{};
  CUDA_CHECK(cudaFuncGetAttributes(&w, WholeFma));
  CUDA_CHECK(cudaFuncGetAttributes(&q, PersistentFma));
  std::printf(
      "whole_regs=%d\nwhole_smem=%zu\npersistent_regs=%d\npersistent_smem=%"
      "zu\n",
      w.numRegs, w.sharedSizeBytes, q.numRegs, q.sharedSizeBytes);
  return 0;
}

// Loop length for one wave of WholeFma taking about block_us.
int IterationsFor(const Gpu& g, float* out, double block_us, int* iters) {
  float ms = 0;
  const int grid = g.sms * g.whole_per_sm;
  auto launch = [&](int n) { WholeFma<<<grid, kThreads>>>(out, n); };
  return CalibrateIters(launch, block_us, iters, &ms);
}

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1,
                    static_cast<size_t>(q * (v.size() - 1) + 0.5))];
}

void PrintStats(const char* key, const std::vector<double>& v) {
  std::printf("%s_p50=%.2f\n%s_p90=%.2f\n%s_max=%.2f\n", key,
              Percentile(v, 0.5), key, Percentile(v, 0.9), key,
              Percentile(v, 1.0));
}

// Device memory for the persistent kernel's state and the flags.
struct Persistent {
  unsigned* next = nullptr;
  int* device_flag = nullptr;
  int* mapped_flag =
      nullptr;  // host pointer; device_mapped_flag is its device view.
  int* device_mapped_flag = nullptr;
  int* seen = nullptr;  // mapped
  int* device_seen = nullptr;
  unsigned* left = nullptr;  // device
  int* all_left = nullptr;   // mapped
  int* device_all_left = nullptr;
  int* one = nullptr;  // pinned, holds 1: the copy that sets the device flag.
};

int Allocate(Persistent* p) {
  CUDA_CHECK(cudaMalloc(&p->next, sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&p->device_flag, sizeof(int)));
  CUDA_CHECK(cudaHostAlloc(&p->mapped_flag, sizeof(int), cudaHostAllocMapped));
  CUDA_CHECK(
      cudaHostGetDevicePointer(&p->device_mapped_flag, p->mapped_flag, 0));
  CUDA_CHECK(cudaHostAlloc(&p->seen, sizeof(int), cudaHostAllocMapped));
  CUDA_CHECK(cudaHostGetDevicePointer(&p->device_seen, p->seen, 0));
  CUDA_CHECK(cudaMalloc(&p->left, sizeof(unsigned)));
  CUDA_CHECK(cudaHostAlloc(&p->all_left, sizeof(int), cudaHostAllocMapped));
  CUDA_CHECK(cudaHostGetDevicePointer(&p->device_all_left, p->all_left, 0));
  CUDA_CHECK(cudaHostAlloc(&p->one, sizeof(int), cudaHostAllocDefault));
  *p->one = 1;
  return 0;
}

int Reset(Persistent& p, unsigned next) {
  CUDA_CHECK(cudaMemcpy(p.next, &next, sizeof next, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(p.device_flag, 0, sizeof(int)));
  *reinterpret_cast<volatile int*>(p.mapped_flag) = 0;
  *reinterpret_cast<volatile int*>(p.seen) = 0;
  CUDA_CHECK(cudaMemset(p.left, 0, sizeof(unsigned)));
  *reinterpret_cast<volatile int*>(p.all_left) = 0;
  return 0;
}

int MeasurePersistent(double block_us) {
  Gpu g;
  if (int rc = Describe(&g); rc != 0) return rc;
  const int wave = g.sms * g.whole_per_sm;
  const unsigned blocks = 16u * wave;
  float* out = nullptr;
  CUDA_CHECK(cudaMalloc(&out, blocks * sizeof(float)));
  int iters = 0;
  if (int rc = IterationsFor(g, out, block_us, &iters); rc != 0) return rc;
  Persistent p;
  if (int rc = Allocate(&p); rc != 0) return rc;
  float whole_ms = 0, device_ms = 0, mapped_ms = 0;
  auto whole = [&](int n) { WholeFma<<<blocks, kThreads>>>(out, n); };
  if (int rc = MedianKernelMs(whole, iters, 7, &whole_ms); rc != 0) return rc;
  const int workers = g.sms * g.persistent_per_sm;
  for (const int* flag : {p.device_flag, p.device_mapped_flag}) {
    float* ms = flag == p.device_flag ? &device_ms : &mapped_ms;
    std::vector<float> t;
    for (int r = 0; r < 7; ++r) {
      if (int rc = Reset(p, 0); rc != 0) return rc;
      float x = 0;
      auto run = [&](int n) {
        PersistentFma<<<workers, kThreads>>>(
            out, n, p.next, blocks, flag, nullptr, nullptr, nullptr, nullptr);
      };
      if (int rc = MedianKernelMs(run, iters, 1, &x); rc != 0) return rc;
      t.push_back(x);
    }
    std::sort(t.begin(), t.end());
    *ms = t[t.size() / 2];
  }
  const double per_block = whole_ms * 1000.0 / 16;
  const double logical_per_worker = static_cast<double>(blocks) / workers;
  std::printf("iters=%d\nblocks=%u\nworkers=%d\nblock_us=%.2f\nwhole_us=%.1f\n",
              iters, blocks, workers, per_block, whole_ms * 1000.0);
  std::printf("persistent_us=%.1f\noverhead=%.4f\nper_block_us=%.3f\n",
              device_ms * 1000.0, device_ms / whole_ms - 1,
              (device_ms - whole_ms) * 1000.0 / logical_per_worker);
  std::printf(
      "mapped_persistent_us=%.1f\nmapped_overhead=%.4f\nmapped_per_block_us=%."
      "3f\n",
      mapped_ms * 1000.0, mapped_ms / whole_ms - 1,
      (mapped_ms - whole_ms) * 1000.0 / logical_per_worker);
  return 0;
}

int MeasureRetreat(double block_us, int trials) {
  Gpu g;
  if (int rc = Describe(&g); rc != 0) return rc;
  float* out = nullptr;
  CUDA_CHECK(cudaMalloc(&out, 1 << 20));
  int iters = 0;
  if (int rc = IterationsFor(g, out, block_us, &iters); rc != 0) return rc;
  const int workers = g.sms * g.persistent_per_sm;
  // Enough logical blocks for about 20 ms, so a retreat after 2-8 ms always
  // finds work left; at least 64 waves.
  const unsigned blocks = static_cast<unsigned>(
      workers * std::max(64.0, std::ceil(20000.0 / block_us)));
  unsigned* runs = nullptr;
  CUDA_CHECK(cudaMalloc(&runs, blocks * sizeof(unsigned)));
  Persistent p;
  if (int rc = Allocate(&p); rc != 0) return rc;
  cudaStream_t work, control;
  CUDA_CHECK(cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&control, cudaStreamNonBlocking));
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> delay_us(2000, 8000);
  std::vector<unsigned> host_runs(blocks);
  bool exactly_once = true;
  {
    std::vector<double> seen_us, exit_us;
    const int* flag = p.device_flag;
    for (int trial = 0; trial < trials; ++trial) {
      if (int rc = Reset(p, 0); rc != 0) return rc;
      CUDA_CHECK(cudaMemset(runs, 0, blocks * sizeof(unsigned)));
      CUDA_CHECK(cudaDeviceSynchronize());
      PersistentFma<<<workers, kThreads, 0, work>>>(out, iters, p.next, blocks,
                                                    flag, runs, p.device_seen,
                                                    p.left, p.device_all_left);
      CUDA_CHECK(cudaGetLastError());
      std::this_thread::sleep_for(std::chrono::microseconds(delay_us(rng)));
      const Clock::time_point t0 = Clock::now();
      CUDA_CHECK(cudaMemcpyAsync(p.device_flag, p.one, sizeof(int),
                                 cudaMemcpyHostToDevice, control));
      const volatile int* seen = p.seen;
      const volatile int* all_left = p.all_left;
      double seen_at = -1;
      while (*all_left == 0 && UsSince(t0) < 1e6) {
        if (seen_at < 0 && *seen != 0) seen_at = UsSince(t0);
      }
      const double exit_at = UsSince(t0);
      if (seen_at < 0) seen_at = exit_at;
      CUDA_CHECK(cudaStreamSynchronize(work));
      CUDA_CHECK(cudaStreamSynchronize(control));
      unsigned stopped_at = 0;
      CUDA_CHECK(cudaMemcpy(&stopped_at, p.next, sizeof stopped_at,
                            cudaMemcpyDeviceToHost));
      if (stopped_at >= blocks) {
        std::printf(
            "retreat: trial %d ran out of work before the retreat (%u "
            "blocks)\n",
            trial, blocks);
        return 1;
      }
      seen_us.push_back(seen_at);
      exit_us.push_back(exit_at);
      // The rest, from the block the workers stopped at.
      CUDA_CHECK(cudaMemset(p.device_flag, 0, sizeof(int)));
      PersistentFma<<<workers, kThreads, 0, work>>>(
          out, iters, p.next, blocks, flag, runs, nullptr, nullptr, nullptr);
      CUDA_CHECK(cudaStreamSynchronize(work));
      CUDA_CHECK(cudaMemcpy(host_runs.data(), runs, blocks * sizeof(unsigned),
                            cudaMemcpyDeviceToHost));
      for (unsigned b = 0; b < blocks && exactly_once; ++b) {
        if (host_runs[b] != 1) {
          std::printf("bad_block=%u runs=%u trial=%d\n", b, host_runs[b],
                      trial);
          exactly_once = false;
        }
      }
    }
    PrintStats("seen_us", seen_us);
    PrintStats("exit_us", exit_us);
  }
  std::printf(
      "iters=%d\nworkers=%d\nlogical_blocks=%u\nblock_us=%.1f\nexactly_once=%"
      "d\n",
      iters, workers, blocks, block_us, exactly_once ? 1 : 0);
  return exactly_once ? 0 : 1;
}

int MeasureSlices(double block_us, int slices) {
  Gpu g;
  if (int rc = Describe(&g); rc != 0) return rc;
  const int wave = g.sms * g.whole_per_sm;
  float* out = nullptr;
  CUDA_CHECK(
      cudaMalloc(&out, static_cast<size_t>(wave) * slices * sizeof(float)));
  int iters = 0;
  if (int rc = IterationsFor(g, out, block_us, &iters); rc != 0) return rc;
  float whole_ms = 0;
  auto whole = [&](int n) { WholeFma<<<wave * slices, kThreads>>>(out, n); };
  if (int rc = MedianKernelMs(whole, iters, 7, &whole_ms); rc != 0) return rc;
  unsigned long long* spans = nullptr;
  CUDA_CHECK(cudaMalloc(&spans, 2 * slices * sizeof(unsigned long long)));
  std::vector<unsigned long long> init(2 * slices);
  for (int i = 0; i < slices; ++i) init[2 * i] = ~0ull, init[2 * i + 1] = 0;
  std::vector<unsigned long long> host(2 * slices);
  cudaEvent_t done;
  CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  for (const bool queued : {true, false}) {
    std::vector<double> gaps, totals;
    for (int rep = 0; rep < 5; ++rep) {
      CUDA_CHECK(cudaMemcpy(spans, init.data(), init.size() * sizeof(init[0]),
                            cudaMemcpyHostToDevice));
      for (int i = 0; i < slices; ++i) {
        SliceFma<<<wave, kThreads>>>(out, iters, spans + 2 * i);
        CUDA_CHECK(cudaGetLastError());
        if (!queued) {
          CUDA_CHECK(cudaEventRecord(done));
          while (cudaEventQuery(done) == cudaErrorNotReady) {
          }
        }
      }
      CUDA_CHECK(cudaDeviceSynchronize());
      CUDA_CHECK(cudaMemcpy(host.data(), spans, host.size() * sizeof(host[0]),
                            cudaMemcpyDeviceToHost));
      for (int i = 0; i + 1 < slices; ++i)
        gaps.push_back((host[2 * i + 2] - host[2 * i + 1]) / 1e3);
      totals.push_back((host[2 * slices - 1] - host[0]) / 1e3);
    }
    const char* prefix = queued ? "queued_" : "on_completion_";
    std::printf("%sslices_us=%.1f\n", prefix, Percentile(totals, 0.5));
    PrintStats((std::string(prefix) + "gap_us").c_str(), gaps);
  }
  std::printf("iters=%d\nslices=%d\nblock_us=%.1f\nwhole_us=%.1f\n", iters,
              slices, block_us, whole_ms * 1000.0);
  return 0;
}

}  // namespace

// Outside the anonymous namespace, whose mangled name carries a hash of
// the path nvcc was given: tests/ptx/kernel_cases.cc names this kernel.
__global__ void SpinAndWatch(unsigned long long ms, unsigned long long* jumps,
                             int max_jumps, int* count) {
  if (threadIdx.x != 0) return;
  const unsigned long long start = GlobalNs();
  const unsigned long long end = start + ms * 1000000ull;
  unsigned long long prev = start;
  int n = 0;
  for (;;) {
    const unsigned long long now = GlobalNs();
    if (now - prev > 20000 && n < max_jumps) {
      jumps[2 * n] = prev;
      jumps[2 * n + 1] = now;
      ++n;
    }
    prev = now;
    if (now >= end) break;
  }
  *count = n;
}

namespace {

int MeasureTimeSlice(int ms) {
  constexpr int kMaxJumps = 1 << 16;
  unsigned long long* jumps = nullptr;
  int* count = nullptr;
  CUDA_CHECK(cudaMalloc(&jumps, 2 * kMaxJumps * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMalloc(&count, sizeof(int)));
  SpinAndWatch<<<1, 32>>>(1, jumps, kMaxJumps, count);  // warm up: module load
  CUDA_CHECK(cudaDeviceSynchronize());
  SpinAndWatch<<<1, 32>>>(ms, jumps, kMaxJumps, count);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  int n = 0;
  CUDA_CHECK(cudaMemcpy(&n, count, sizeof n, cudaMemcpyDeviceToHost));
  std::vector<unsigned long long> j(2 * static_cast<size_t>(n));
  if (n > 0) {
    CUDA_CHECK(cudaMemcpy(j.data(), jumps, j.size() * sizeof(j[0]),
                          cudaMemcpyDeviceToHost));
  }
  std::vector<double> on, off;
  for (int i = 0; i < n; ++i) {
    off.push_back((j[2 * i + 1] - j[2 * i]) / 1e3);
    if (i > 0) on.push_back((j[2 * i] - j[2 * i - 1]) / 1e3);
  }
  std::printf("off_count=%d\n", n);
  std::printf("on_us_p10=%.1f\non_us_p50=%.1f\non_us_p90=%.1f\n",
              Percentile(on, 0.1), Percentile(on, 0.5), Percentile(on, 0.9));
  std::printf("off_us_p10=%.1f\noff_us_p50=%.1f\noff_us_p90=%.1f\n",
              Percentile(off, 0.1), Percentile(off, 0.5), Percentile(off, 0.9));
  for (int i = 0; i < std::min(n, 6); ++i) {
    std::printf("off %d: at %.1f us for %.1f us\n", i, (j[2 * i] - j[0]) / 1e3,
                (j[2 * i + 1] - j[2 * i]) / 1e3);
  }
  return 0;
}

int MeasureCorun(double svc_us, int be_threads) {
  Gpu g;
  if (int rc = Describe(&g); rc != 0) return rc;
  const int slots = g.whole_per_sm;
  float* out = nullptr;
  CUDA_CHECK(
      cudaMalloc(&out, static_cast<size_t>(g.sms) * slots * sizeof(float)));
  int iters = 0;
  float ms = 0;
  auto one_per_sm = [&](int n) { WholeFma<<<g.sms, kThreads>>>(out, n); };
  if (int rc = CalibrateIters(one_per_sm, svc_us, &iters, &ms); rc != 0)
    return rc;
  Persistent p;
  if (int rc = Allocate(&p); rc != 0) return rc;
  int lo = 0, hi = 0;
  CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
  cudaStream_t svc, be;
  CUDA_CHECK(cudaStreamCreateWithPriority(&svc, cudaStreamNonBlocking, hi));
  CUDA_CHECK(cudaStreamCreateWithPriority(&be, cudaStreamNonBlocking, lo));
  cudaEvent_t a, b;
  CUDA_CHECK(cudaEventCreate(&a));
  CUDA_CHECK(cudaEventCreate(&b));
  unsigned long long* span = nullptr;
  CUDA_CHECK(cudaMalloc(&span, 2 * sizeof(unsigned long long)));
  std::printf("iters=%d\nbe_threads=%d\n", iters, be_threads);
  for (int k : {1, 2, 4, 8}) {
    if (k > slots) break;
    for (const bool beside : {false, true}) {
      if (beside && k == slots) break;
      if (beside) {
        if (int rc = Reset(p, 0); rc != 0) return rc;
        CUDA_CHECK(cudaDeviceSynchronize());
        PersistentFma<<<g.sms*(slots - k), be_threads, 0, be>>>(
            out, iters, p.next, 0xffffffffu, p.device_flag, nullptr, nullptr,
            nullptr, nullptr);
        CUDA_CHECK(cudaGetLastError());
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      // Beside workers that saturate the SMs a run can take seconds: 3 then.
      std::vector<double> t;
      double first_span_us = 0;
      const int reps = beside ? 3 : 15;
      for (int r = 0; r < reps; ++r) {
        const unsigned long long init[2] = {~0ull, 0};
        CUDA_CHECK(cudaMemcpy(span, init, sizeof init, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaEventRecord(a, svc));
        SliceFma<<<g.sms * k, kThreads, 0, svc>>>(out, iters, span);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaEventRecord(b, svc));
        CUDA_CHECK(cudaEventSynchronize(b));
        float x = 0;
        CUDA_CHECK(cudaEventElapsedTime(&x, a, b));
        t.push_back(x * 1000.0);
        if (r == 0) {
          unsigned long long got[2];
          CUDA_CHECK(cudaMemcpy(got, span, sizeof got, cudaMemcpyDeviceToHost));
          first_span_us = (got[1] - got[0]) / 1e3;
        }
      }
      if (beside) {
        CUDA_CHECK(cudaMemcpyAsync(p.device_flag, p.one, sizeof(int),
                                   cudaMemcpyHostToDevice, svc));
        CUDA_CHECK(cudaDeviceSynchronize());
      }
      const char* key = beside ? "beside" : "solo";
      std::printf("%s_us_%d=%.1f\n%s_span_us_%d=%.1f\n", key, k,
                  Percentile(t, 0.5), key, k, first_span_us);
    }
  }
  return 0;
}

int Usage() {
  std::fprintf(
      stderr,
      "usage: preemption_costs persistent BLOCK_US | retreat BLOCK_US TRIALS |"
      " slices BLOCK_US SLICES | timeslice MS | corun SVC_US BE_THREADS\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF,
               0);  // what was measured survives a timeout
  if (argc < 3) return Usage();
  const double a = std::atof(argv[2]);
  const int b = argc > 3 ? std::atoi(argv[3]) : 0;
  if (a <= 0) return Usage();
  if (std::strcmp(argv[1], "persistent") == 0) return MeasurePersistent(a);
  if (std::strcmp(argv[1], "retreat") == 0 && b > 0)
    return MeasureRetreat(a, b);
  if (std::strcmp(argv[1], "slices") == 0 && b > 1) return MeasureSlices(a, b);
  if (std::strcmp(argv[1], "corun") == 0 && b > 0) return MeasureCorun(a, b);
  if (std::strcmp(argv[1], "timeslice") == 0)
    return MeasureTimeSlice(static_cast<int>(a));
  return Usage();
}
