// Device selection as the samples' helper does it: count the devices, read
// each one's properties and compute mode through cudaDeviceGetAttribute
// (CUDA 13's cudaDeviceProp has no computeMode), pick the one with the most
// SMs, and check what the properties and the memory report agree.
#include "corpus_check.h"

int main() {
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  EXPECT(count >= 1);
  int best = -1, best_sms = 0;
  for (int d = 0; d < count; ++d) {
    int mode = -1, sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, d));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d));
    if (mode != cudaComputeModeProhibited && sms > best_sms)
      best = d, best_sms = sms;
  }
  EXPECT(best >= 0);
  CUDA_CHECK(cudaSetDevice(best));
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, best));
  EXPECT(prop.multiProcessorCount == best_sms);
  EXPECT(prop.major >= 7);
  EXPECT(prop.warpSize == 32);
  EXPECT(prop.maxThreadsPerBlock >= 1024);
  EXPECT(prop.totalGlobalMem > (size_t)1 << 30);
  EXPECT(prop.sharedMemPerBlock >= 48 * 1024);
  EXPECT(prop.totalConstMem == 64 * 1024);
  int major = 0, overlap = 0, unified = 0;
  CUDA_CHECK(
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, best));
  CUDA_CHECK(cudaDeviceGetAttribute(&overlap, cudaDevAttrGpuOverlap, best));
  CUDA_CHECK(
      cudaDeviceGetAttribute(&unified, cudaDevAttrUnifiedAddressing, best));
  EXPECT(major == prop.major);
  EXPECT(overlap == 1);
  EXPECT(unified == 1);
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  EXPECT(total_bytes == prop.totalGlobalMem);
  EXPECT(free_bytes <= total_bytes);
  int driver = 0, runtime = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  EXPECT(runtime >= 12000);
  EXPECT(driver >= runtime);
  int can_access = -1;
  CUDA_CHECK(cudaDeviceCanAccessPeer(&can_access, best, best));
  EXPECT(can_access == 0);  // a device is not its own peer
  return CorpusOk();
}
