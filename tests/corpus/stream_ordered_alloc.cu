// Stream-ordered memory: cudaMallocAsync / cudaFreeAsync on a stream, the
// memory used by kernels and an async memset in between, reused across
// iterations as a training loop's scratch is.
#include "corpus_check.h"

__global__ void Scale(const float* in, float* out, int n, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * k;
}
__global__ void Bump(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1.0f;
}

int main() {
  const int n = 10000;
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  float* result;
  CUDA_CHECK(cudaMallocHost(&result, n * sizeof(float)));
  for (int iter = 1; iter <= 3; ++iter) {
    float *scratch, *out;
    CUDA_CHECK(cudaMallocAsync(&scratch, n * sizeof(float), s));
    CUDA_CHECK(cudaMallocAsync(&out, n * sizeof(float), s));
    CUDA_CHECK(cudaMemsetAsync(scratch, 0, n * sizeof(float), s));
    Bump<<<(n + 255) / 256, 256, 0, s>>>(scratch, n);
    Scale<<<(n + 255) / 256, 256, 0, s>>>(scratch, out, n, (float)iter);
    CUDA_CHECK(cudaMemcpyAsync(result, out, n * sizeof(float),
                               cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaFreeAsync(scratch, s));
    CUDA_CHECK(cudaFreeAsync(out, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) EXPECT(result[i] == (float)iter);
  }
  CUDA_CHECK(cudaStreamDestroy(s));
  return CorpusOk();
}
