// Memory calls CUDA refuses, unmodified CUDA: each must come back as the
// error CUDA gives, with nothing written and the program alive (in sim mode
// device memory is host memory, so an unchecked copy would write past an
// allocation or into freed memory, and an unchecked cudaFreeHost would hand
// the C library a pointer it never allocated).
// Usage: bad_memory
// Prints "name=E" per case (E: the cudaError_t), "pinned_page_aligned=0|1",
// "intact=0|1" (the bytes around the refused writes are unchanged); exits 3
// on an unexpected CUDA error in the set-up.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_check.h"

static int Code(cudaError_t e) {
  (void)cudaGetLastError();
  return static_cast<int>(e);
}

int main() {
  char host[4096];
  std::memset(host, 7, sizeof(host));
  char* small = nullptr;
  char* big = nullptr;
  CUDA_CHECK(cudaMalloc(&small, 1000));
  CUDA_CHECK(cudaMalloc(&big, 8192));
  CUDA_CHECK(cudaMemset(big, 1, 8192));
  // Copies that would run past an allocation, or start outside any.
  std::printf("h2d_past_end=%d\n",
              Code(cudaMemcpy(small, host, 2000, cudaMemcpyHostToDevice)));
  std::printf("d2h_past_end=%d\n",
              Code(cudaMemcpy(host, small + 900, 200, cudaMemcpyDeviceToHost)));
  std::printf("d2d_past_end=%d\n",
              Code(cudaMemcpy(big, small, 4096, cudaMemcpyDeviceToDevice)));
  std::printf("default_past_end=%d\n",
              Code(cudaMemcpy(small, host, 1001, cudaMemcpyDefault)));
  std::printf("h2d_to_host=%d\n",
              Code(cudaMemcpy(host, host + 8, 8, cudaMemcpyHostToDevice)));
  std::printf("bad_kind=%d\n",
              Code(cudaMemcpy(small, host, 8, static_cast<cudaMemcpyKind>(7))));
  std::printf("memset_past_end=%d\n", Code(cudaMemset(small, 0, 1001)));
  int on_stack = 5;
  std::printf("memset_host=%d\n",
              Code(cudaMemset(&on_stack, 0, sizeof(on_stack))));
  std::printf("pitched_past_end=%d\n",
              Code(cudaMemcpy2D(small, 512, host, 512, 100, 3,
                                cudaMemcpyHostToDevice)));
  // What fits is copied: the whole allocation, and host to host by default.
  std::printf("h2d_exact=%d\n",
              Code(cudaMemcpy(small, host, 1000, cudaMemcpyHostToDevice)));
  std::printf("default_host_to_host=%d\n",
              Code(cudaMemcpy(host + 1000, host, 8, cudaMemcpyDefault)));
  // Async: a stream that was destroyed.
  cudaStream_t gone;
  CUDA_CHECK(cudaStreamCreate(&gone));
  CUDA_CHECK(cudaStreamDestroy(gone));
  std::printf(
      "async_destroyed_stream=%d\n",
      Code(cudaMemcpyAsync(small, host, 8, cudaMemcpyHostToDevice, gone)));
  std::printf("memset_async_destroyed_stream=%d\n",
              Code(cudaMemsetAsync(small, 0, 8, gone)));
  std::printf(
      "async_past_end=%d\n",
      Code(cudaMemcpyAsync(host, big + 8000, 400, cudaMemcpyDeviceToHost, 0)));
  // Freed memory.
  char* freed = nullptr;
  CUDA_CHECK(cudaMalloc(&freed, 64));
  CUDA_CHECK(cudaFree(freed));
  std::printf("d2h_freed=%d\n",
              Code(cudaMemcpy(host, freed, 4, cudaMemcpyDeviceToHost)));
  std::printf("memset_freed=%d\n", Code(cudaMemset(freed, 0, 64)));
  std::printf("free_twice=%d\n", Code(cudaFree(freed)));
  // A graph whose copy's memory was freed after the capture: refused when
  // the graph is launched, not written.
  char* captured = nullptr;
  CUDA_CHECK(cudaMalloc(&captured, 256));
  cudaStream_t cs;
  CUDA_CHECK(cudaStreamCreate(&cs));
  CUDA_CHECK(cudaStreamBeginCapture(cs, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaMemcpyAsync(captured, host, 256, cudaMemcpyHostToDevice, cs));
  cudaGraph_t graph;
  CUDA_CHECK(cudaStreamEndCapture(cs, &graph));
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  std::printf("graph_copy=%d\n", Code(cudaGraphLaunch(exec, cs)));
  CUDA_CHECK(cudaStreamSynchronize(cs));
  CUDA_CHECK(cudaFree(captured));
  std::printf("graph_copy_freed=%d\n", Code(cudaGraphLaunch(exec, cs)));
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(cs));
  // cudaFreeHost of what cudaMallocHost did not give, or twice.
  std::printf("free_host_device=%d\n", Code(cudaFreeHost(small)));
  std::printf("free_host_stack=%d\n", Code(cudaFreeHost(&on_stack)));
  void* heap = std::malloc(100);
  std::printf("free_host_malloc=%d\n", Code(cudaFreeHost(heap)));
  std::free(heap);
  void* pinned = nullptr;
  CUDA_CHECK(cudaMallocHost(&pinned, 100));
  std::printf("pinned_page_aligned=%d\n",
              reinterpret_cast<uintptr_t>(pinned) % 4096 == 0 ? 1 : 0);
  CUDA_CHECK(cudaFreeHost(pinned));
  std::printf("free_host_twice=%d\n", Code(cudaFreeHost(pinned)));
  void* managed = nullptr;
  std::printf("managed_zero=%d\n", Code(cudaMallocManaged(&managed, 0)));
  std::printf("set_device_1=%d\n", Code(cudaSetDevice(1)));
  // Nothing was written where a copy was refused.
  bool intact = true;
  char back[8192];
  CUDA_CHECK(cudaMemcpy(back, big, 8192, cudaMemcpyDeviceToHost));
  for (char c : back) intact = intact && c == 1;
  for (int i = 8; i < 1000; ++i) intact = intact && host[i] == 7;
  intact = intact && on_stack == 5;
  std::printf("intact=%d\n", intact ? 1 : 0);
  // The device allocation cudaFreeHost refused is still there to free.
  CUDA_CHECK(cudaFree(small));
  CUDA_CHECK(cudaFree(big));
  return 0;
}
