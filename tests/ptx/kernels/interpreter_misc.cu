// A mix of what nvcc emits around ordinary kernels, for the interpreter's
// tests: a non-inlined device function with a local array indexed at run
// time (local memory, .param passing), 64-bit division and remainder, a
// __constant__ table, a __device__ counter, warp votes, bit intrinsics, a
// float atomic maximum built on atomicCAS, double-precision sqrt and
// division, float <-> int and float -> half conversions, and the CUDA math
// library's sinf / expf / logf (their slow paths included).
#include <cuda_fp16.h>

__constant__ int kTable[8] = {3, 1, 4, 1, 5, 9, 2, 6};
__device__ unsigned g_calls = 0;

__device__ __noinline__ unsigned long long Mix(unsigned long long x,
                                               int rounds) {
  unsigned long long buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = x * (i + 1) + kTable[i];
  unsigned long long acc = 0;
  for (int r = 0; r < rounds; ++r)
    acc += buf[(x + r) & 7] / (r + 1) + buf[r & 7] % 7;
  atomicAdd(&g_calls, 1u);
  return acc;
}

__device__ void AtomicMaxFloat(float* address, float value) {
  int* word = reinterpret_cast<int*>(address);
  int old = *word;
  while (__int_as_float(old) < value) {
    int seen = atomicCAS(word, old, __float_as_int(value));
    if (seen == old) break;
    old = seen;
  }
}

struct MiscOut {
  unsigned long long mix;
  unsigned bits;    // ballot ^ popc ^ brev ^ clz ^ byte_perm ^ funnelshift
  int rounded;      // __float2int_rn(f)
  float converted;  // __uint2float_rz(u)
  unsigned short half;
  double root;  // sqrt(d) / 3
  float sine, exponential, logarithm;
};

extern "C" __global__ void misc(const unsigned* in, const float* fin,
                                MiscOut* out, float* fmaximum, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  bool valid = g < n;
  unsigned u = valid ? in[g] : 0;
  float f = valid ? fin[g] : 0.0f;
  unsigned ballot = __ballot_sync(0xffffffffu, valid && (u & 1));
  if (!valid) return;
  MiscOut o;
  o.mix = Mix(u, static_cast<int>(u % 13));
  o.bits = ballot ^ __popc(u) ^ __brev(u) ^ __clz(u) ^
           __byte_perm(u, ~u, 0x6251) ^ __funnelshift_l(u, ~u, u & 31);
  o.rounded = __float2int_rn(f);
  o.converted = __uint2float_rz(u);
  o.half = __half_as_ushort(__float2half_rn(f));
  o.root = sqrt(static_cast<double>(u)) / 3.0;
  o.sine = sinf(f);
  o.exponential = expf(f / 64.0f);
  o.logarithm = logf(fabsf(f) + 1.0f);
  out[g] = o;
  AtomicMaxFloat(fmaximum, f);
}
