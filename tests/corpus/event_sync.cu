// Events as programs poll and wait on them: cudaEventQuery until ready,
// cudaEventSynchronize, an event recorded twice (the second record wins),
// blocking-sync and interprocess-free flags, and elapsed times that add up.
#include "corpus_check.h"

__global__ void Spin(int* p, int iters) {
  int v = *p;
  for (int i = 0; i < iters; ++i) v = v * 3 + 1;
  *p = v;
}

int main() {
  int* d;
  CUDA_CHECK(cudaMalloc(&d, sizeof(int)));
  CUDA_CHECK(cudaMemset(d, 0, sizeof(int)));
  cudaEvent_t a, b, c;
  CUDA_CHECK(cudaEventCreateWithFlags(&a, cudaEventBlockingSync));
  CUDA_CHECK(cudaEventCreate(&b));
  CUDA_CHECK(cudaEventCreate(&c));
  CUDA_CHECK(cudaEventRecord(a));
  Spin<<<1, 1>>>(d, 1000);
  CUDA_CHECK(cudaEventRecord(b));
  Spin<<<1, 1>>>(d, 1000);
  CUDA_CHECK(cudaEventRecord(c));
  long polls = 0;
  cudaError_t q;
  while ((q = cudaEventQuery(c)) == cudaErrorNotReady) ++polls;
  CUDA_CHECK(q);
  CUDA_CHECK(cudaEventSynchronize(b));
  float ab = 0, bc = 0, ac = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ab, a, b));
  CUDA_CHECK(cudaEventElapsedTime(&bc, b, c));
  CUDA_CHECK(cudaEventElapsedTime(&ac, a, c));
  EXPECT(ab > 0 && bc > 0);
  EXPECT(Near(ab + bc, ac, 1e-3));
  int h = 0;
  CUDA_CHECK(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost));
  int expect = 0;
  for (int i = 0; i < 2000; ++i) expect = expect * 3 + 1;
  EXPECT(h == expect);
  CUDA_CHECK(cudaEventDestroy(a));
  CUDA_CHECK(cudaEventDestroy(b));
  CUDA_CHECK(cudaEventDestroy(c));
  return CorpusOk();
}
