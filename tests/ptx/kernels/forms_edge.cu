// Kernels for tests/ptx/forms_on_interpreter_test.cc: PTX that nvcc writes
// only for inline assembly or less common C++, which a rewrite of %ctaid /
// %nctaid and of the kernel's exits must still get right.

// `exit` (not `ret`) before a barrier, once plain and once guarded inside a
// scope with its own predicate register: the persistent form must end the
// logical block for those threads as it does for `ret`.
__global__ void exit_before_sync(const int* in, int* out, int n) {
  __shared__ int s[128];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) asm volatile("exit;");
  s[threadIdx.x] = in[i];
  // Leavers have written their shared value: the others may read it.
  asm volatile(
      "{\n\t.reg .pred q;\n\tsetp.eq.s32 q, %0, -7;\n\t@q exit;\n\t}" ::"r"(
          in[i] % 8));
  __syncthreads();
  const int living = min((int)blockDim.x, n - (int)(blockIdx.x * blockDim.x));
  out[i] = s[threadIdx.x] * 2 + s[(threadIdx.x + 1) % living];
}

// Special registers read by cvt and mov.b32 (inline assembly), not only by
// nvcc's mov.u32.
__global__ void special_regs_in_asm(unsigned long long* out) {
  unsigned long long bx, by, bz;
  unsigned gx, gy, gz;
  asm volatile("cvt.u64.u32 %0, %%ctaid.x;" : "=l"(bx));
  asm volatile("cvt.u64.u32 %0, %%ctaid.y;" : "=l"(by));
  asm volatile("cvt.u64.u32 %0, %%ctaid.z;" : "=l"(bz));
  asm volatile("mov.b32 %0, %%nctaid.x;" : "=r"(gx));
  asm volatile("mov.b32 %0, %%nctaid.y;" : "=r"(gy));
  asm volatile("mov.b32 %0, %%nctaid.z;" : "=r"(gz));
  const unsigned long long block = bx + gx * (by + gy * bz);
  const unsigned long long slot = block * blockDim.x + threadIdx.x;
  out[2 * slot] = (bx << 40) | (by << 20) | bz;
  out[2 * slot + 1] =
      ((unsigned long long)gx << 40) | ((unsigned long long)gy << 20) | gz;
}

struct Weights {
  int scale;
  int bias;
  float ratio;
  int table[5];
};

// A struct parameter passed by reference to a called function (nvcc copies
// it or takes the parameter's address).
__device__ __noinline__ int apply_weights(const Weights& w, int v, int i) {
  return v * w.scale + w.bias + w.table[i % 5] +
         (int)(w.ratio * (float)(i & 15));
}

__global__ void struct_by_reference(Weights w, const int* in, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = apply_weights(w, in[i], i);
}

// A kernel whose body starts with a loop label and has several returns in
// different places, the last through a `ret` the compiler keeps.
__global__ void many_returns(const unsigned* in, unsigned* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = i < n ? in[i] : 0;
  for (;;) {
    if (i >= n) return;
    if (v < 16) {
      out[i] = v;
      return;
    }
    if ((v & 3) == 1) {
      out[i] = ~v;
      return;
    }
    v = (v >> 1) ^ (v * 3u);
    if (v == 0x12345678u) break;
  }
  out[i] = 0;
}
