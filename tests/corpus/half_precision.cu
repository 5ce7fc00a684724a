// Half precision as mixed-precision training uses it: float to __half and
// back, __hadd / __hmul, __half2 arithmetic, accumulation in float.
#include <cuda_fp16.h>

#include "corpus_check.h"

__global__ void HalfOps(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half a = __float2half(in[i]);
  __half b = __float2half(0.5f);
  __half sum = __hadd(a, b);
  __half prod = __hmul(a, b);
  __half2 pair = __halves2half2(a, b);
  __half2 twice = __hadd2(pair, pair);
  out[4 * i] = __half2float(sum);
  out[4 * i + 1] = __half2float(prod);
  out[4 * i + 2] = __low2float(twice);
  out[4 * i + 3] = __high2float(twice);
}

int main() {
  const int n = 64;
  float *in, *out;
  CUDA_CHECK(cudaMallocManaged(&in, n * sizeof(float)));
  CUDA_CHECK(cudaMallocManaged(&out, 4 * n * sizeof(float)));
  for (int i = 0; i < n; ++i) in[i] = i * 0.25f;  // exact in half
  HalfOps<<<1, n>>>(in, out, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) {
    EXPECT(out[4 * i] == in[i] + 0.5f);
    EXPECT(out[4 * i + 1] == in[i] * 0.5f);
    EXPECT(out[4 * i + 2] == 2 * in[i]);
    EXPECT(out[4 * i + 3] == 1.0f);
  }
  return CorpusOk();
}
