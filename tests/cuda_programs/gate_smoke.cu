// Unmodified CUDA, for gate mode (colod's `device: cuda`): asks for the
// device count, allocates, asks for free memory, launches a kernel that adds 1
// to every element, synchronizes and copies back, then allocates and frees
// stream-ordered (cudaMallocAsync / cudaFreeAsync on the default stream; one
// allocation within the limit, one of 2 MiB), then asks whether memory pools
// and cooperative launches are supported (and the warp size, an attribute the
// real runtime answers) and for the default memory pool. Between those, on a
// stream of its own, a second kernel with a host function and a stream
// callback behind it, then a __device__ variable written and read back by
// symbol copies and a 2D memset of the array. Prints key=value lines: the
// errors of each
// step and kernel_ran=1 only if the copy shows every element incremented
// (a kernel really ran: never in sim mode, where kernels are not executed).
// Exits 0 whatever the errors (the test reads them).
#include <cuda_runtime.h>

#include <cstdio>

__global__ void add_one(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

__device__ int shift;

static void MarkRan(void* p) { *static_cast<int*>(p) = 1; }

struct StreamSeen {
  cudaStream_t expected;
  int ok;
};
static void CUDART_CB SeeStream(cudaStream_t s, cudaError_t status, void* p) {
  auto* seen = static_cast<StreamSeen*>(p);
  seen->ok = s == seen->expected && status == cudaSuccess;
}

int main() {
  constexpr int kN = 1024;
  int count = -1;
  std::printf("device_count_error=%d\n", (int)cudaGetDeviceCount(&count));
  std::printf("device_count=%d\n", count);
  int* d = nullptr;
  const cudaError_t m = cudaMalloc(&d, kN * sizeof(int));
  std::printf("malloc_error=%d\n", (int)m);
  if (m == cudaSuccess) cudaMemset(d, 0, kN * sizeof(int));
  size_t mem_free = 0, mem_total = 0;
  std::printf("mem_info_error=%d\n",
              (int)cudaMemGetInfo(&mem_free, &mem_total));
  std::printf("mem_free=%zu\nmem_total=%zu\n", mem_free, mem_total);
  add_one<<<kN / 256, 256>>>(d, kN);
  std::printf("launch_error=%d\n", (int)cudaGetLastError());
  std::printf("sync_error=%d\n", (int)cudaDeviceSynchronize());
  int ran = 0;
  if (m == cudaSuccess) {
    static int h[kN];
    if (cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost) == cudaSuccess) {
      ran = 1;
      for (int i = 0; i < kN; ++i) ran &= h[i] == 1;
    }
    // Host work behind a kernel ("host_func_ran", "callback_stream_ok": 1
    // if the function ran and the callback got this stream, by the sync).
    cudaStream_t hs = nullptr;
    std::printf("stream_error=%d\n", (int)cudaStreamCreate(&hs));
    add_one<<<kN / 256, 256, 0, hs>>>(d, kN);
    int host_ran = 0;
    StreamSeen seen{hs, 0};
    std::printf("host_func_error=%d\n",
                (int)cudaLaunchHostFunc(hs, MarkRan, &host_ran));
    std::printf("callback_error=%d\n",
                (int)cudaStreamAddCallback(hs, SeeStream, &seen, 0));
    std::printf("host_sync_error=%d\n", (int)cudaStreamSynchronize(hs));
    std::printf("host_func_ran=%d\ncallback_stream_ok=%d\n", host_ran, seen.ok);
    cudaStreamDestroy(hs);
    // "symbol_round_trip": 1 if the variable reads back what was written;
    // "memset2d_rows": 1 if two rows of 64 ints had their first 16 set to
    // -1 and the rest left at 2 (two add_one kernels).
    const int value = 41;
    int back = 0;
    std::printf("to_symbol_error=%d\n",
                (int)cudaMemcpyToSymbol(shift, &value, sizeof(value)));
    std::printf("from_symbol_error=%d\n",
                (int)cudaMemcpyFromSymbol(&back, shift, sizeof(back)));
    std::printf("symbol_round_trip=%d\n", back == value);
    std::printf(
        "memset2d_error=%d\n",
        (int)cudaMemset2D(d, 64 * sizeof(int), 0xff, 16 * sizeof(int), 2));
    static int rows[128];
    int rows_ok = cudaMemcpy(rows, d, sizeof(rows), cudaMemcpyDeviceToHost) ==
                  cudaSuccess;
    for (int i = 0; i < 128; ++i) rows_ok &= rows[i] == (i % 64 < 16 ? -1 : 2);
    std::printf("memset2d_rows=%d\n", rows_ok);
    cudaFree(d);
  }
  int* e = nullptr;
  std::printf("malloc_async_error=%d\n", (int)cudaMallocAsync(&e, 8192, 0));
  cudaMemGetInfo(&mem_free, &mem_total);
  std::printf("mem_free_async=%zu\n", mem_free);
  int* big = nullptr;
  std::printf("malloc_async_big_error=%d\n",
              (int)cudaMallocAsync(&big, 2 << 20, 0));
  std::printf("free_async_error=%d\n", (int)cudaFreeAsync(e, 0));
  std::printf("free_async_again_error=%d\n", (int)cudaFreeAsync(e, 0));
  // What colod cannot gate: hidden and refused whatever the GPU has.
  int pools = -1, cooperative = -1, warp = -1;
  std::printf(
      "pools_attr_error=%d\n",
      (int)cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0));
  cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, 0);
  cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0);
  std::printf("pools_attr=%d\ncooperative_attr=%d\nwarp_attr=%d\n", pools,
              cooperative, warp);
  cudaMemPool_t pool = nullptr;
  std::printf("default_pool_error=%d\n",
              (int)cudaDeviceGetDefaultMemPool(&pool, 0));
  std::printf("kernel_ran=%d\n", ran);
  return 0;
}
