// Stream-ordered allocation and managed-memory prefetch and advice,
// unmodified CUDA: cudaMallocAsync, a kernel on the memory, cudaFreeAsync,
// cudaMemPrefetchAsync and cudaMemAdvise, with what CUDA refuses (null
// pointer, destroyed stream, double or unknown free, prefetch or advice on
// non-managed memory, bad location, flags or advice, the calls in a stream
// capture).
// Usage: stream_alloc [DIR]
// Prints "name=V" lines (V: a cudaError_t, or a value the case names);
// exits 3 on an unexpected CUDA error in the set-up. With DIR, at each
// checkpoint it prints "<name>_checkpoint=1" and waits (up to 20 s) for the
// file DIR/<name> before going on, so that a test can read colod's
// accounting while the program holds (or has returned) its memory.
#include <cuda_runtime.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "cuda_check.h"

__global__ void stream_alloc_step(int* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}

static int Code(cudaError_t e) {
  (void)cudaGetLastError();
  return static_cast<int>(e);
}

static const char* g_dir = nullptr;

static void Checkpoint(const char* name) {
  std::printf("%s_checkpoint=1\n", name);
  std::fflush(stdout);
  if (g_dir == nullptr) return;
  const std::string go = std::string(g_dir) + "/" + name;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (access(go.c_str(), F_OK) != 0 &&
         std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

static cudaMemLocation Location(cudaMemLocationType type, int id) {
  cudaMemLocation l = {};
  l.type = type;
  l.id = id;
  return l;
}

int main(int argc, char** argv) {
  if (argc > 1) g_dir = argv[1];
  constexpr int kN = 1 << 18;  // 1 MiB of ints
  constexpr size_t kBytes = kN * sizeof(int);
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));

  // Allocated on a stream, written, used by a kernel, read back on it.
  int* a = nullptr;
  std::printf("malloc_async=%d\n", Code(cudaMallocAsync(&a, kBytes, s)));
  std::printf("malloc_async_set=%d\n", a != nullptr ? 1 : 0);
  cudaPointerAttributes attr;
  CUDA_CHECK(cudaPointerGetAttributes(&attr, a));
  std::printf("malloc_async_type=%d\n", static_cast<int>(attr.type));
  static int in[kN], out[kN];
  for (int i = 0; i < kN; ++i) in[i] = 3 * i;
  CUDA_CHECK(cudaMemcpyAsync(a, in, kBytes, cudaMemcpyHostToDevice, s));
  stream_alloc_step<<<kN / 256, 256, 0, s>>>(a, kN);
  std::printf("launch=%d\n", Code(cudaGetLastError()));
  CUDA_CHECK(cudaMemcpyAsync(out, a, kBytes, cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  // Sim mode runs no kernel: the data come back as they went (a GPU adds 1).
  bool same = true, plus_one = true;
  for (int i = 0; i < kN; ++i) {
    same = same && out[i] == in[i];
    plus_one = plus_one && out[i] == in[i] + 1;
  }
  std::printf("round_trip=%d\n", same || plus_one ? 1 : 0);

  // On the default stream (the thread's own in a per-thread build).
  int* b = nullptr;
  std::printf("malloc_async_default=%d\n",
              Code(cudaMallocAsync(&b, 2 * kBytes, 0)));
  // What CUDA refuses, or gives nothing for.
  std::printf("malloc_async_null=%d\n", Code(cudaMallocAsync(nullptr, 16, s)));
  int* zero = a;
  std::printf("malloc_async_zero=%d\n", Code(cudaMallocAsync(&zero, 0, s)));
  std::printf("malloc_async_zero_null=%d\n", zero == nullptr ? 1 : 0);
  int* big = a;
  std::printf("malloc_async_over_limit=%d\n",
              Code(cudaMallocAsync(&big, size_t{256} << 20, s)));
  std::printf("malloc_async_over_limit_null=%d\n", big == nullptr ? 1 : 0);
  cudaStream_t gone;
  CUDA_CHECK(cudaStreamCreate(&gone));
  CUDA_CHECK(cudaStreamDestroy(gone));
  int* c = nullptr;
  std::printf("malloc_async_destroyed_stream=%d\n",
              Code(cudaMallocAsync(&c, 64, gone)));
  std::printf("free_async_destroyed_stream=%d\n", Code(cudaFreeAsync(b, gone)));

  // In a capture: an allocation node of the capture's graph (its memory
  // charged only when an instantiated graph runs); a free in a capture
  // frees only a graph allocation (1 for `b`, the capture goes on).
  cudaStream_t cap;
  CUDA_CHECK(cudaStreamCreate(&cap));
  CUDA_CHECK(cudaStreamBeginCapture(cap, cudaStreamCaptureModeGlobal));
  std::printf("malloc_async_in_capture=%d\n",
              Code(cudaMallocAsync(&c, 64, cap)));
  cudaGraph_t graph = nullptr;
  std::printf("end_capture_after_malloc=%d\n",
              Code(cudaStreamEndCapture(cap, &graph)));
  if (graph != nullptr) CUDA_CHECK(cudaGraphDestroy(graph));
  graph = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(cap, cudaStreamCaptureModeGlobal));
  std::printf("free_async_in_capture=%d\n", Code(cudaFreeAsync(b, cap)));
  std::printf("end_capture_after_free=%d\n",
              Code(cudaStreamEndCapture(cap, &graph)));
  if (graph != nullptr) CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(cap));
  Checkpoint("allocated");  // a and b held: 3 MiB

  // Freed behind a kernel on the stream: returned once the kernel ended.
  stream_alloc_step<<<kN / 256, 256, 0, s>>>(a, kN);
  const auto t0 = std::chrono::steady_clock::now();
  std::printf("free_async=%d\n", Code(cudaFreeAsync(a, s)));
  const double free_ms = std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - t0)
                             .count();
  std::printf("free_async_ms=%.3f\n", free_ms);
  std::printf("free_async_again=%d\n", Code(cudaFreeAsync(a, s)));
  int not_allocated[4];
  std::printf("free_async_unknown=%d\n", Code(cudaFreeAsync(not_allocated, s)));
  std::printf("free_async_null=%d\n", Code(cudaFreeAsync(nullptr, s)));
  std::printf("free_after_free_async=%d\n", Code(cudaFree(a)));
  Checkpoint("one_freed");  // b held: 2 MiB

  // Prefetch: managed memory only, to a device that exists or the host.
  char* m = nullptr;
  CUDA_CHECK(cudaMallocManaged(&m, 8192));
  std::memset(m, 5, 8192);
  std::printf("prefetch_device=%d\n",
              Code(cudaMemPrefetchAsync(
                  m, 8192, Location(cudaMemLocationTypeDevice, 0), 0, s)));
  std::printf("prefetch_host=%d\n",
              Code(cudaMemPrefetchAsync(
                  m + 4096, 4096, Location(cudaMemLocationTypeHost, 0), 0, s)));
  std::printf("prefetch_default_stream=%d\n",
              Code(cudaMemPrefetchAsync(
                  m, 8192, Location(cudaMemLocationTypeDevice, 0), 0, 0)));
  std::printf("prefetch_bad_flags=%d\n",
              Code(cudaMemPrefetchAsync(
                  m, 8192, Location(cudaMemLocationTypeDevice, 0), 1, s)));
  std::printf("prefetch_other_device=%d\n",
              Code(cudaMemPrefetchAsync(
                  m, 8192, Location(cudaMemLocationTypeDevice, 1), 0, s)));
  std::printf("prefetch_bad_location=%d\n",
              Code(cudaMemPrefetchAsync(
                  m, 8192, Location(cudaMemLocationTypeInvalid, 0), 0, s)));
  std::printf(
      "prefetch_past_end=%d\n",
      Code(cudaMemPrefetchAsync(m + 4096, 8192,
                                Location(cudaMemLocationTypeDevice, 0), 0, s)));
  std::printf("prefetch_device_memory=%d\n",
              Code(cudaMemPrefetchAsync(
                  b, 64, Location(cudaMemLocationTypeDevice, 0), 0, s)));
  std::printf("prefetch_host_memory=%d\n",
              Code(cudaMemPrefetchAsync(
                  in, 64, Location(cudaMemLocationTypeDevice, 0), 0, s)));
  std::printf("prefetch_destroyed_stream=%d\n",
              Code(cudaMemPrefetchAsync(
                  m, 8192, Location(cudaMemLocationTypeDevice, 0), 0, gone)));
  // Advice: managed memory only; the location matters for all but
  // read-mostly.
  std::printf("advise_read_mostly=%d\n",
              Code(cudaMemAdvise(m, 8192, cudaMemAdviseSetReadMostly,
                                 Location(cudaMemLocationTypeInvalid, 0))));
  std::printf("advise_preferred_device=%d\n",
              Code(cudaMemAdvise(m, 4096, cudaMemAdviseSetPreferredLocation,
                                 Location(cudaMemLocationTypeDevice, 0))));
  std::printf("advise_accessed_by_host=%d\n",
              Code(cudaMemAdvise(m + 4096, 4096, cudaMemAdviseSetAccessedBy,
                                 Location(cudaMemLocationTypeHost, 0))));
  std::printf("advise_unset_accessed_by=%d\n",
              Code(cudaMemAdvise(m, 8192, cudaMemAdviseUnsetAccessedBy,
                                 Location(cudaMemLocationTypeDevice, 0))));
  std::printf("advise_unknown=%d\n",
              Code(cudaMemAdvise(m, 8192, static_cast<cudaMemoryAdvise>(99),
                                 Location(cudaMemLocationTypeDevice, 0))));
  std::printf("advise_other_device=%d\n",
              Code(cudaMemAdvise(m, 8192, cudaMemAdviseSetPreferredLocation,
                                 Location(cudaMemLocationTypeDevice, 1))));
  std::printf("advise_bad_location=%d\n",
              Code(cudaMemAdvise(m, 8192, cudaMemAdviseSetAccessedBy,
                                 Location(cudaMemLocationTypeInvalid, 0))));
  std::printf("advise_past_end=%d\n",
              Code(cudaMemAdvise(m + 4096, 8192, cudaMemAdviseSetReadMostly,
                                 Location(cudaMemLocationTypeDevice, 0))));
  std::printf("advise_empty=%d\n",
              Code(cudaMemAdvise(m, 0, cudaMemAdviseSetReadMostly,
                                 Location(cudaMemLocationTypeDevice, 0))));
  std::printf("advise_device_memory=%d\n",
              Code(cudaMemAdvise(b, 64, cudaMemAdviseSetReadMostly,
                                 Location(cudaMemLocationTypeDevice, 0))));
  CUDA_CHECK(cudaStreamSynchronize(s));
  std::printf("managed_intact=%d\n", m[0] == 5 && m[8191] == 5 ? 1 : 0);
  CUDA_CHECK(cudaFree(m));
  std::printf("free_async_default=%d\n", Code(cudaFreeAsync(b, 0)));
  CUDA_CHECK(cudaStreamSynchronize(s));
  Checkpoint("freed");  // nothing held
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
