// Atomics beyond add: a compare-and-swap loop (a float max), atomicMax,
// atomicMin, atomicExch, atomicInc with wrap, float atomicAdd, and
// atomicOr bits.
#include "corpus_check.h"

__device__ float AtomicMaxFloat(float* addr, float v) {
  int* a = (int*)addr;
  int old = *a, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= v) break;
    old = atomicCAS(a, assumed, __float_as_int(v));
  } while (assumed != old);
  return __int_as_float(old);
}

struct Results {
  float fmax;
  int imax, imin, exch_seen;
  unsigned inc, bits;
  float fsum;
};

__global__ void Atomics(Results* r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  AtomicMaxFloat(&r->fmax, (float)((i * 37) % 1001) * 0.5f);
  atomicMax(&r->imax, (i * 53) % 997);
  atomicMin(&r->imin, 500 - (i * 53) % 997);
  atomicExch(&r->exch_seen, 1);
  atomicInc(&r->inc, 9);  // counts 0..9 and wraps to 0
  atomicOr(&r->bits, 1u << (i % 32));
  atomicAdd(&r->fsum, 0.5f);
}

int main() {
  const int n = 1000;
  Results* r;
  CUDA_CHECK(cudaMallocManaged(&r, sizeof(Results)));
  *r = Results{-1.f, -1, 1 << 30, 0, 0, 0, 0.f};
  Atomics<<<(n + 127) / 128, 128>>>(r, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  float fmax = -1;
  int imax = -1, imin = 1 << 30;
  for (int i = 0; i < n; ++i) {
    fmax = std::fmax(fmax, ((i * 37) % 1001) * 0.5f);
    imax = std::max(imax, (i * 53) % 997);
    imin = std::min(imin, 500 - (i * 53) % 997);
  }
  EXPECT(r->fmax == fmax);
  EXPECT(r->imax == imax);
  EXPECT(r->imin == imin);
  EXPECT(r->exch_seen == 1);
  EXPECT(r->inc == n % 10);
  EXPECT(r->bits == 0xffffffffu);
  EXPECT(r->fsum == 0.5f * n);  // exact: halves sum exactly in float here
  return CorpusOk();
}
