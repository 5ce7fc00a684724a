// Device-side printf, as "hello world" and debugging prints use it: the
// lines appear on the program's stdout by the next synchronization, with
// the formats' conversions applied.
#include "corpus_check.h"

__global__ void Hello(int base, float f) {
  printf("hello from block %d thread %d: %d %.2f %s\n", blockIdx.x, threadIdx.x,
         base + threadIdx.x, f * threadIdx.x, "ok");
}

int main() {
  Hello<<<2, 2>>>(40, 1.5f);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::fflush(stdout);
  return CorpusOk();
}
