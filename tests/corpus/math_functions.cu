// The math library on the device: sinf, cosf, expf, logf, sqrtf, powf,
// rsqrtf, fmaf, double sin/exp, and integer intrinsics (__popc, __clz,
// __brev), each against the host within the documented ulp bounds.
#include <cmath>

#include "corpus_check.h"

__global__ void Math(const float* x, float* out, double* dout, unsigned* iout,
                     int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  out[8 * i + 0] = sinf(v);
  out[8 * i + 1] = cosf(v);
  out[8 * i + 2] = expf(v * 0.1f);
  out[8 * i + 3] = logf(v + 1.0f);
  out[8 * i + 4] = sqrtf(v);
  out[8 * i + 5] = powf(v, 1.5f);
  out[8 * i + 6] = rsqrtf(v + 1.0f);
  out[8 * i + 7] = fmaf(v, 2.0f, 1.0f);
  dout[2 * i] = sin((double)v);
  dout[2 * i + 1] = exp((double)v * 0.01);
  unsigned u = (unsigned)(i * 2654435761u);
  iout[3 * i] = __popc(u);
  iout[3 * i + 1] = __clz(u | 1);
  iout[3 * i + 2] = __brev(u);
}

int main() {
  const int n = 200;
  float *x, *out;
  double* dout;
  unsigned* iout;
  CUDA_CHECK(cudaMallocManaged(&x, n * sizeof(float)));
  CUDA_CHECK(cudaMallocManaged(&out, 8 * n * sizeof(float)));
  CUDA_CHECK(cudaMallocManaged(&dout, 2 * n * sizeof(double)));
  CUDA_CHECK(cudaMallocManaged(&iout, 3 * n * sizeof(unsigned)));
  for (int i = 0; i < n; ++i) x[i] = 0.05f * i;
  Math<<<(n + 63) / 64, 64>>>(x, out, dout, iout, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) {
    float v = x[i];
    // CUDA's single-precision functions are within a few ulp (Programming
    // Guide, "Mathematical Functions"): 1e-5 relative covers them here.
    EXPECT(Near(out[8 * i + 0], std::sin(v)));
    EXPECT(Near(out[8 * i + 1], std::cos(v)));
    EXPECT(Near(out[8 * i + 2], std::exp(v * 0.1f)));
    EXPECT(Near(out[8 * i + 3], std::log(v + 1.0f)));
    EXPECT(out[8 * i + 4] == std::sqrt(v));  // IEEE-rounded
    EXPECT(Near(out[8 * i + 5], std::pow(v, 1.5f)));
    EXPECT(Near(out[8 * i + 6], 1.0f / std::sqrt(v + 1.0f)));
    EXPECT(out[8 * i + 7] == std::fma(v, 2.0f, 1.0f));
    EXPECT(Near(dout[2 * i], std::sin((double)v), 1e-14));
    EXPECT(Near(dout[2 * i + 1], std::exp((double)v * 0.01), 1e-14));
    unsigned u = (unsigned)(i * 2654435761u);
    EXPECT(iout[3 * i] == (unsigned)__builtin_popcount(u));
    EXPECT(iout[3 * i + 1] == (unsigned)__builtin_clz(u | 1));
    unsigned r = 0;
    for (int b = 0; b < 32; ++b) r |= ((u >> b) & 1u) << (31 - b);
    EXPECT(iout[3 * i + 2] == r);
  }
  return CorpusOk();
}
