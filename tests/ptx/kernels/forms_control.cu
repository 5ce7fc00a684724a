// Kernels for tests/ptx/forms_on_interpreter_test.cc: control flow (loops,
// switch, divergent returns), local arrays, parameters passed by value,
// called functions, and the kernels whose forms must be refused.
#include <cooperative_groups.h>

// A switch of many dense cases (nvcc may make it a jump table) and a sparse
// one, inside a loop.
__global__ void switch_loop(const int* in, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  int acc = 0;
  for (int k = 0; k < 6; ++k) {
    switch ((v + k) & 7) {
      case 0:
        acc += 3;
        break;
      case 1:
        acc ^= v;
        break;
      case 2:
        acc -= k * 5;
        break;
      case 3:
        acc = acc * 3 + 1;
        break;
      case 4:
        acc += v >> 2;
        break;
      case 5:
        acc |= 0x40;
        break;
      case 6:
        acc = ~acc;
        break;
      default:
        acc += 7 * k;
        break;
    }
    switch (v % 1000) {
      case 17:
        acc += 1;
        break;
      case 250:
        acc -= 2;
        break;
      case 999:
        acc *= 5;
        break;
      default:
        break;
    }
    v = v * 1103515245 + 12345;
  }
  out[i] = acc;
}

// Each thread leaves its loop by a return at its own iteration (written
// result first); the loop length comes from the data.
__global__ void divergent_loop_return(const int* in, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned h = (unsigned)in[i];
  for (int k = 0; k < 64; ++k) {
    h = h * 2654435761u + (unsigned)k;
    if ((h >> 27) == (unsigned)(i & 31)) {
      out[i] = k;
      return;
    }
    if (k == (in[i] & 63)) break;
  }
  out[i] = -(int)(h & 0xffff);
}

// A local array indexed by runtime values: it lives in local memory.
__global__ void local_array(const int* in, int* out, int n, int k) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int a[32];
  for (int j = 0; j < 32; ++j) a[j] = in[(i + j) % n] ^ j;
  for (int j = 0; j < 32; ++j) {
    const int idx = (a[j] & 31);
    a[idx] += a[(j * k) & 31];
  }
  out[i] = a[in[i] & 31] + a[(i * k) & 31];
}

struct Params {
  float scale;
  int offset;
  const float* src;
  double bias;
  short small[3];
  unsigned char flags;
};

// A struct passed by value (a .param .b8 array) read field by field.
__global__ void struct_param(Params p, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = p.src[(i + p.offset) % n] * p.scale + (float)p.bias;
  if (p.flags & 1) v += p.small[i % 3];
  if (p.flags & 2) v = -v;
  out[i] = v;
}

// A called function that reads only %tid (and its arguments).
__device__ __noinline__ int mix_with_thread(int v) {
  return v * 31 + (int)(threadIdx.x * 7 + threadIdx.y);
}

__global__ void calls_thread_func(const int* in, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = mix_with_thread(in[i]) + mix_with_thread(i);
}

// A called function that reads %ctaid: both forms are refused (the rewrite
// changes %ctaid only in the kernel's own body).
__device__ __noinline__ int mix_with_block(int v) {
  return v + (int)(blockIdx.x * 1000 + gridDim.x);
}

__global__ void calls_block_func(const int* in, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = mix_with_block(in[i]);
}

// A grid-wide barrier through cooperative groups: both forms refused (a
// grid sync needs every block resident at once). Compiled, never run.
__global__ void coop_grid_sync(int* data, int n) {
  cooperative_groups::grid_group g = cooperative_groups::this_grid();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
  g.sync();
  if (i < n) data[i] += data[(i + 1) % n];
}

// Double precision: fma, division, square root, conversions.
__global__ void double_math(const double* in, double* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double x = in[i];
  const double y = in[(i + 1) % n];
  double r = fma(x, y, 0.5) / (fabs(y) + 1.0);
  r += sqrt(fabs(x) + 2.0);
  r -= (double)(long long)(x * 1000.0) * 1e-3;
  out[2 * i] = r;
  out[2 * i + 1] = (double)(float)r + fmin(x, y) - fmax(x, y);
}

// 64-bit integers: multiply, high half, division, shifts, 64-bit atomics.
__global__ void int64_math(const long long* in, long long* out,
                           unsigned long long* acc, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const long long x = in[i];
  const long long y = in[(i + 7) % n] | 1;
  out[4 * i + 0] = x * y + (x >> 13);
  out[4 * i + 1] = x / y + x % y;
  out[4 * i + 2] =
      (long long)__umul64hi((unsigned long long)x, (unsigned long long)y);
  out[4 * i + 3] = (long long)((unsigned long long)x >> (y & 63)) ^ (x << 5);
  atomicAdd(&acc[0], (unsigned long long)x);
  atomicMax(reinterpret_cast<long long*>(&acc[1]), x);
  atomicMin(&acc[2], (unsigned long long)x);
  atomicOr(&acc[3], (unsigned long long)x);
}

// Byte and 16-bit arrays: loads, stores and arithmetic at those widths.
__global__ void narrow_types(const unsigned char* a, const unsigned short* b,
                             unsigned short* out16, unsigned char* out8,
                             signed char* outs, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned char x = a[i];
  const unsigned short y = b[i];
  out16[i] = (unsigned short)(y * x + (y >> 3));
  out8[i] = (unsigned char)(x + (unsigned char)y) ^ a[(i + 1) % n];
  outs[i] = (signed char)(x - 128) / 3;
}

// Rounding modes and conversions of float, saturation, intrinsics.
__global__ void float_rounding(const float* in, float* out, int* iout, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = in[i];
  const float y = in[(i + 3) % n];
  out[8 * i + 0] = __fadd_rz(x, y);
  out[8 * i + 1] = __fmul_ru(x, y);
  out[8 * i + 2] = __fdiv_rn(x, y + 1000.0f);
  out[8 * i + 3] = __fsqrt_rn(fabsf(x));
  out[8 * i + 4] = __saturatef(x * 0.01f);
  out[8 * i + 5] = __fmaf_rd(x, y, 1.0f);
  out[8 * i + 6] = fminf(x, y) * fmaxf(x, -y);
  out[8 * i + 7] = __int2float_rz(__float_as_int(x) >> 3);
  iout[4 * i + 0] = __float2int_rn(x * 3.5f);
  iout[4 * i + 1] = __float2int_rz(x * 3.5f);
  iout[4 * i + 2] = __float2int_ru(x * 3.5f);
  iout[4 * i + 3] = (int)__float2uint_rd(fabsf(x) * 2.5f);
}

// Bit operations: population count, leading zeros, bit reverse, find first
// set, byte permute, funnel shift, bit field extract.
__global__ void bit_ops(const unsigned* in, unsigned* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned x = in[i];
  const unsigned y = in[(i + 1) % n];
  out[6 * i + 0] = __popc(x) + (__clz(y) << 8);
  out[6 * i + 1] = __brev(x);
  out[6 * i + 2] = __ffs(x) + (__popcll((unsigned long long)x * y) << 16);
  out[6 * i + 3] = __byte_perm(x, y, 0x5140 + (i & 7));
  out[6 * i + 4] =
      __funnelshift_l(x, y, i & 31) ^ __funnelshift_r(y, x, (i * 3) & 31);
  out[6 * i + 5] = (x >> (y & 15)) & ((1u << (y >> 28)) - 1u);
}

__constant__ int kTable[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
__device__ int kOffsets[4] = {100, 200, 300, 400};

// Module-scope .const and .global variables with initializers, read.
__global__ void constant_table(const int* in, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int v = in[i];
  out[i] = kTable[v & 15] * v + kOffsets[(v >> 4) & 3];
}

// A small shared-memory matrix multiply (16 x 16 tiles, 2-D grid).
__global__ void matmul_tiled(const float* a, const float* b, float* c, int n) {
  __shared__ float ta[16][16], tb[16][16];
  const int row = blockIdx.y * 16 + threadIdx.y,
            col = blockIdx.x * 16 + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < n; t += 16) {
    ta[threadIdx.y][threadIdx.x] =
        (row < n && t + threadIdx.x < n) ? a[row * n + t + threadIdx.x] : 0.0f;
    tb[threadIdx.y][threadIdx.x] = (col < n && t + threadIdx.y < n)
                                       ? b[(t + threadIdx.y) * n + col]
                                       : 0.0f;
    __syncthreads();
    for (int k = 0; k < 16; ++k)
      acc = fmaf(ta[threadIdx.y][k], tb[k][threadIdx.x], acc);
    __syncthreads();
  }
  if (row < n && col < n) c[row * n + col] = acc;
}
