// What a framework asks the runtime before and between its kernels (PyTorch
// at start-up and in its caching allocator): the stream priority range, a
// stream's priority and flags, the thread's capture mode, device limits, and
// what kind of memory a pointer is. Unmodified CUDA.
// Usage: framework_queries
// Prints key=value lines (see the test); exits 3 on an unexpected CUDA error.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#include "cuda_check.h"

int main() {
  int least = 99, greatest = 99;
  CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  std::printf("priority_least=%d\npriority_greatest=%d\n", least, greatest);
  cudaStream_t high, low;
  CUDA_CHECK(cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, -100));
  CUDA_CHECK(cudaStreamCreateWithPriority(&low, cudaStreamDefault, 0));
  int p = 99;
  unsigned flags = 99;
  CUDA_CHECK(cudaStreamGetPriority(high, &p));
  CUDA_CHECK(cudaStreamGetFlags(high, &flags));
  std::printf("high_priority=%d\nhigh_flags=%u\n", p, flags);
  CUDA_CHECK(cudaStreamGetPriority(low, &p));
  std::printf("low_priority=%d\n", p);

  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
  std::printf("previous_capture_mode=%d\n", (int)mode);  // global (0)
  CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
  std::printf("restored_from=%d\n", (int)mode);  // relaxed (2)

  size_t v = 0;
  CUDA_CHECK(cudaDeviceGetLimit(&v, cudaLimitStackSize));
  std::printf("stack_default=%zu\n", v);
  CUDA_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
  CUDA_CHECK(cudaDeviceGetLimit(&v, cudaLimitStackSize));
  std::printf("stack_set=%zu\n", v);
  std::printf("bad_limit=%d\n", (int)cudaDeviceGetLimit(&v, (cudaLimit)77));
  (void)cudaGetLastError();

  float* dev = nullptr;
  float* managed = nullptr;
  float* pinned = nullptr;
  static float plain[16];
  CUDA_CHECK(cudaMalloc(&dev, 1024));
  CUDA_CHECK(cudaMallocManaged(&managed, 1024));
  CUDA_CHECK(cudaMallocHost(&pinned, 1024));
  cudaPointerAttributes a;
  CUDA_CHECK(cudaPointerGetAttributes(&a, dev + 10));  // inside the buffer
  std::printf("dev_type=%d\ndev_device=%d\ndev_ptr_ok=%d\n", (int)a.type,
              a.device, a.devicePointer == dev + 10 ? 1 : 0);
  CUDA_CHECK(cudaPointerGetAttributes(&a, managed));
  std::printf("managed_type=%d\n", (int)a.type);
  CUDA_CHECK(cudaPointerGetAttributes(&a, pinned));
  std::printf("pinned_type=%d\npinned_host_ok=%d\n", (int)a.type,
              a.hostPointer == pinned ? 1 : 0);
  CUDA_CHECK(cudaPointerGetAttributes(&a, plain));
  std::printf("plain_type=%d\nplain_device=%d\n", (int)a.type, a.device);
  CUDA_CHECK(cudaFreeHost(pinned));
  CUDA_CHECK(cudaPointerGetAttributes(&a, pinned));
  std::printf("freed_pinned_type=%d\n", (int)a.type);
  CUDA_CHECK(cudaFree(dev));
  CUDA_CHECK(cudaFree(managed));
  CUDA_CHECK(cudaStreamDestroy(high));
  CUDA_CHECK(cudaStreamDestroy(low));
  return 0;
}
