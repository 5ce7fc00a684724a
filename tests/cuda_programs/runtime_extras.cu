// Runtime calls programs use less often, unmodified CUDA: symbols, pitched
// memory, registered host memory, device flags, peer access, host callbacks,
// event records with flags, cudaLaunchKernelExC, cudaDeviceReset.
// Usage: runtime_extras
// Prints "name=V" lines (V: a cudaError_t, or a value the case names);
// exits 3 on an unexpected CUDA error in the set-up.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "cuda_check.h"

__constant__ float extras_table[16];
__device__ int extras_counter;

__global__ void extras_step(float* x) { x[threadIdx.x] = extras_table[0]; }

static int Code(cudaError_t e) {
  (void)cudaGetLastError();
  return static_cast<int>(e);
}

static void HostFn(void* data) { *static_cast<int*>(data) += 1; }
static void Callback(cudaStream_t, cudaError_t status, void* data) {
  *static_cast<int*>(data) += status == cudaSuccess ? 10 : 1000;
}

int main() {
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  // Symbols.
  float in[16], out[16] = {};
  for (int i = 0; i < 16; ++i) in[i] = 1.5f * i;
  std::printf("to_symbol=%d\n",
              Code(cudaMemcpyToSymbol(extras_table, in, sizeof(in))));
  std::printf("from_symbol=%d\n",
              Code(cudaMemcpyFromSymbol(out, extras_table, sizeof(out))));
  std::printf("symbol_round_trip=%d\n",
              std::memcmp(in, out, sizeof(in)) == 0 ? 1 : 0);
  std::printf("to_symbol_past_end=%d\n",
              Code(cudaMemcpyToSymbol(extras_table, in, 8, 60)));
  float not_a_symbol = 0;
  std::printf("not_a_symbol=%d\n",
              Code(cudaMemcpyToSymbol(not_a_symbol, in, 4)));
  std::printf(
      "to_symbol_wrong_kind=%d\n",
      Code(cudaMemcpyToSymbol(extras_table, in, 4, 0, cudaMemcpyDeviceToHost)));
  const int seven = 7;
  int back = 0;
  std::printf("to_symbol_async=%d\n",
              Code(cudaMemcpyToSymbolAsync(extras_counter, &seven, sizeof(int),
                                           0, cudaMemcpyHostToDevice, s)));
  std::printf("from_symbol_async=%d\n",
              Code(cudaMemcpyFromSymbolAsync(&back, extras_counter, sizeof(int),
                                             0, cudaMemcpyDeviceToHost, s)));
  CUDA_CHECK(cudaStreamSynchronize(s));
  std::printf("symbol_async_value=%d\n", back);
  void* address = nullptr;
  size_t size = 0;
  std::printf("symbol_address=%d\n",
              Code(cudaGetSymbolAddress(&address, extras_counter)));
  std::printf("symbol_address_set=%d\n", address != nullptr ? 1 : 0);
  cudaPointerAttributes symbol_attr;
  CUDA_CHECK(cudaPointerGetAttributes(&symbol_attr, address));
  std::printf("symbol_pointer_type=%d\n", static_cast<int>(symbol_attr.type));
  // Its address is device memory to the ordinary copies.
  std::printf(
      "copy_to_symbol_address=%d\n",
      Code(cudaMemcpy(address, &seven, sizeof(int), cudaMemcpyHostToDevice)));
  std::printf("symbol_size_err=%d\n",
              Code(cudaGetSymbolSize(&size, extras_table)));
  std::printf("symbol_size=%zu\n", size);
  // Pitched memory.
  char* pitched = nullptr;
  size_t pitch = 0;
  std::printf("malloc_pitch=%d\n",
              Code(cudaMallocPitch(reinterpret_cast<void**>(&pitched), &pitch,
                                   100, 10)));
  std::printf("pitch_bytes=%zu\n", pitch);
  std::printf("memset2d=%d\n", Code(cudaMemset2D(pitched, pitch, 7, 100, 10)));
  char rows[10][100];
  CUDA_CHECK(
      cudaMemcpy2D(rows, 100, pitched, pitch, 100, 10, cudaMemcpyDeviceToHost));
  bool sevens = true;
  for (auto& row : rows)
    for (char c : row) sevens = sevens && c == 7;
  std::printf("memset2d_rows=%d\n", sevens ? 1 : 0);
  std::printf("memset2d_wider_than_pitch=%d\n",
              Code(cudaMemset2D(pitched, pitch, 0, pitch + 1, 2)));
  std::printf("memset2d_past_end=%d\n",
              Code(cudaMemset2D(pitched, pitch, 0, 100, 11)));
  std::printf("memset2d_async=%d\n",
              Code(cudaMemset2DAsync(pitched, pitch, 1, 100, 10, s)));
  // Registered host memory.
  static char buffer[8192];
  std::printf("host_register=%d\n", Code(cudaHostRegister(buffer, 4096, 0)));
  std::printf("host_register_again=%d\n",
              Code(cudaHostRegister(buffer + 100, 100, 0)));
  void* mapped = nullptr;
  std::printf("host_device_pointer=%d\n",
              Code(cudaHostGetDevicePointer(&mapped, buffer + 10, 0)));
  std::printf("host_device_pointer_same=%d\n", mapped == buffer + 10 ? 1 : 0);
  cudaPointerAttributes attr;
  CUDA_CHECK(cudaPointerGetAttributes(&attr, buffer));
  std::printf("registered_type=%d\n", static_cast<int>(attr.type));
  std::printf("host_unregister=%d\n", Code(cudaHostUnregister(buffer)));
  std::printf("host_unregister_again=%d\n", Code(cudaHostUnregister(buffer)));
  // Device flags, versions, peers.
  std::printf("set_flags=%d\n",
              Code(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync)));
  unsigned flags = 0;
  CUDA_CHECK(cudaGetDeviceFlags(&flags));
  std::printf("flags_blocking_sync=%d\n",
              (flags & cudaDeviceScheduleBlockingSync) ? 1 : 0);
  std::printf("set_flags_bad=%d\n", Code(cudaSetDeviceFlags(3)));
  int driver = 0, runtime = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  std::printf("driver_at_least_runtime=%d\n",
              driver >= runtime && runtime > 0 ? 1 : 0);
  int peer = -1;
  std::printf("can_access_peer=%d\n",
              Code(cudaDeviceCanAccessPeer(&peer, 0, 0)));
  std::printf("peer_access=%d\n", peer);
  std::printf("can_access_peer_1=%d\n",
              Code(cudaDeviceCanAccessPeer(&peer, 0, 1)));
  // Host work in stream order, after a kernel.
  float* x = nullptr;
  CUDA_CHECK(cudaMalloc(&x, 4096));
  extras_step<<<1, 32, 0, s>>>(x);
  int ran = 0;
  std::printf("host_func=%d\n", Code(cudaLaunchHostFunc(s, HostFn, &ran)));
  std::printf("callback=%d\n",
              Code(cudaStreamAddCallback(s, Callback, &ran, 0)));
  CUDA_CHECK(cudaStreamSynchronize(s));
  std::printf("host_work_ran=%d\n", ran);
  // Event records with flags.
  cudaEvent_t e;
  CUDA_CHECK(cudaEventCreate(&e));
  std::printf("record_with_flags=%d\n",
              Code(cudaEventRecordWithFlags(e, s, 0)));
  std::printf("record_with_bad_flags=%d\n",
              Code(cudaEventRecordWithFlags(e, s, 5)));
  // A launch with a launch configuration.
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(2);
  config.blockDim = dim3(64);
  config.stream = s;
  std::printf("launch_ex=%d\n",
              Code(cudaLaunchKernelEx(&config, extras_step, x)));
  config.blockDim = dim3(2048);
  std::printf("launch_ex_too_big=%d\n",
              Code(cudaLaunchKernelEx(&config, extras_step, x)));
  CUDA_CHECK(cudaStreamSynchronize(s));
  // Reset: every allocation goes back (freeing one again is an error).
  std::printf("reset=%d\n", Code(cudaDeviceReset()));
  std::printf("free_after_reset=%d\n", Code(cudaFree(x)));
  return 0;
}
