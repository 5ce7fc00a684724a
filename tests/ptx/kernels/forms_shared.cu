// Kernels for tests/ptx/forms_on_interpreter_test.cc: shared memory (static
// and dynamic), barriers, early returns around barriers and atomics on
// shared and global memory. Deterministic: shared values are read only after
// the barrier that orders their writes, and atomics are integer, or float
// sums of multiples of 1/4 small enough to be exact in any order.

// Reverses each block's part of data through dynamic shared memory (one int
// per thread; launched with blockDim.x * 4 bytes).
__global__ void dyn_shared_reverse(int* data, int n) {
  extern __shared__ int buf[];
  const int base = blockIdx.x * blockDim.x;
  const int i = base + threadIdx.x;
  const int count = min((int)blockDim.x, n - base);
  if (threadIdx.x < count) buf[threadIdx.x] = data[i];
  __syncthreads();
  if (threadIdx.x < count)
    data[i] = buf[count - 1 - threadIdx.x] + (int)blockIdx.x;
}

// Dynamic shared memory seen as two arrays: ints then floats (launched with
// blockDim.x * 8 bytes); each thread mixes its neighbours' values.
__global__ void dyn_shared_two_views(const int* a, const float* b, float* out) {
  extern __shared__ unsigned char raw[];
  int* ints = reinterpret_cast<int*>(raw);
  float* floats = reinterpret_cast<float*>(raw + blockDim.x * sizeof(int));
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  ints[threadIdx.x] = a[i];
  floats[threadIdx.x] = b[i];
  __syncthreads();
  const unsigned j = (threadIdx.x + 5) % blockDim.x;
  const unsigned k = (threadIdx.x * 7 + 3) % blockDim.x;
  out[i] = floats[j] * (float)ints[k] + floats[threadIdx.x];
}

// A tree reduction in a static shared array with a barrier per level:
// out[blockIdx.x] = the sum of the block's inputs (integers: exact).
__global__ void block_reduce_sum(const int* in, int* out, int n) {
  __shared__ int s[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned step = blockDim.x / 2; step > 0; step >>= 1) {
    if (threadIdx.x < step) s[threadIdx.x] += s[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

// An inclusive Hillis-Steele scan per block with a double buffer.
__global__ void block_scan(const int* in, int* out) {
  __shared__ int buf[2][128];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int cur = 0;
  buf[0][threadIdx.x] = in[i];
  __syncthreads();
  for (unsigned off = 1; off < blockDim.x; off <<= 1) {
    int v = buf[cur][threadIdx.x];
    if (threadIdx.x >= off) v += buf[cur][threadIdx.x - off];
    buf[1 - cur][threadIdx.x] = v;
    cur = 1 - cur;
    __syncthreads();
  }
  out[i] = buf[cur][threadIdx.x];
}

// The `if (i >= n) return;` pattern before a barrier: the threads past n
// leave, the others meet at __syncthreads and read only their living
// neighbours' shared values.
__global__ void early_return_before_sync(const int* in, int* out, int n) {
  __shared__ int s[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[threadIdx.x] = in[i] * 3;
  __syncthreads();
  const int living = min((int)blockDim.x, n - (int)(blockIdx.x * blockDim.x));
  out[i] = s[threadIdx.x] - s[(threadIdx.x + 1) % living];
}

// A return after a barrier, then barriers among the threads left; a
// leaver's shared value stays what it was when it left.
__global__ void early_return_after_sync(const int* in, int* out, int n) {
  __shared__ int s[128];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  const int mine = s[threadIdx.x];
  const int other = s[(threadIdx.x + 3) % blockDim.x];
  __syncthreads();
  if (i >= n || (mine & 7) == 0) return;
  s[threadIdx.x] = mine + other;
  __syncthreads();
  out[i] = s[threadIdx.x] ^ s[(threadIdx.x + 1) % blockDim.x];
}

// Threads leave a loop that holds two barriers at different iterations (a
// divergent return inside the loop); the others go on meeting the barriers.
// A leaver's shared value stays as it left it.
__global__ void return_inside_sync_loop(const int* in, int* out, int rounds) {
  __shared__ int s[128];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    const int next = s[(threadIdx.x + 1) % blockDim.x];
    __syncthreads();
    v = v + next + r;
    if ((v & 15) == (int)(blockIdx.x & 15)) {
      out[i] = -v;
      return;
    }
    s[threadIdx.x] = v;
    __syncthreads();
  }
  out[i] = v;
}

// A loop whose barrier count depends on the block (uniform within it):
// blocks of different lengths in one grid.
__global__ void block_dependent_loop(const int* rounds, int* out) {
  __shared__ int s[64];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i;
  const int count = rounds[blockIdx.x] & 7;
  __syncthreads();
  for (int r = 0; r < count; ++r) {
    const int v = s[(threadIdx.x + r + 1) % blockDim.x];
    __syncthreads();
    s[threadIdx.x] = v * 2 + r;
    __syncthreads();
  }
  out[i] = s[threadIdx.x];
}

// A 256-bin histogram of bytes: shared atomics, then global atomics.
__global__ void byte_histogram(const unsigned char* in, unsigned* hist, int n) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    atomicAdd(&local[in[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    if (local[b] != 0) atomicAdd(&hist[b], local[b]);
}

// Float atomics on shared and global memory. The inputs are multiples of
// 1/4 in [-64, 64] and there are few of them, so every partial sum is exact
// and the order of the additions does not change the result: out[b] is the
// block's sum, out[gridDim.x] the grid's.
__global__ void float_atomic_sums(const float* in, float* out, int n) {
  __shared__ float sum;
  if (threadIdx.x == 0) sum = 0.0f;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&sum, in[i]);
  __syncthreads();
  if (threadIdx.x == 0) {
    out[blockIdx.x] = sum;
    atomicAdd(&out[gridDim.x], sum);
  }
}

// Integer atomics of every kind on global memory (order-independent) and a
// float maximum through atomicCAS.
__global__ void int_atomics(const int* in, int* r, float* fmax, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int v = in[i];
  atomicAdd(&r[0], v);
  atomicMax(&r[1], v);
  atomicMin(&r[2], v);
  atomicOr(&r[3], v & 0x7fff);
  atomicAnd(&r[4], v | 0x10000);
  atomicXor(&r[5], v);
  atomicAdd(reinterpret_cast<unsigned*>(&r[6]), (unsigned)v * 2654435761u);
  atomicMax(reinterpret_cast<unsigned*>(&r[7]), (unsigned)v);
  atomicSub(&r[8], v & 0xff);
  if ((v & 3) == 0) atomicExch(&r[9 + (i & 3)], 1);
  const float f = (float)v * 0.25f;
  int* addr = reinterpret_cast<int*>(fmax);
  int old = *addr;
  while (__int_as_float(old) < f) {
    const int seen = atomicCAS(addr, old, __float_as_int(f));
    if (seen == old) break;
    old = seen;
  }
}

// __syncthreads_count and __syncthreads_or (bar.red): the sliced form can
// be built, the persistent form cannot (it rewrites every barrier into its
// own and keeps none of the program's reductions).
__global__ void sync_count_or(const int* in, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[i];
  const int positives = __syncthreads_count(v > 0);
  const int any_big = __syncthreads_or(v > 900);
  const int all_small = __syncthreads_and(v < 1000);
  out[i] = v * 4 + positives + any_big * 10000 + all_small * 20000;
}

// Named barriers (bar.arrive / bar.sync 1, 64): warp 0 produces into shared
// memory, warp 1 consumes; barrier 0 closes the block. The sliced form can
// be built; the persistent form cannot (it rewrites only barrier 0 with no
// thread count).
__global__ void named_barrier_pipeline(const int* in, int* out) {
  __shared__ int stage[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (warp == 0) {
    stage[lane] = in[i] * 5 + (int)blockIdx.x;
    asm volatile("bar.arrive 1, 64;" ::: "memory");
  } else if (warp == 1) {
    asm volatile("bar.sync 1, 64;" ::: "memory");
    out[i] = stage[31 - lane] - in[i];
  }
  __syncthreads();
  if (warp == 0) out[i] = stage[lane] ^ 0x55;
}

// The "last block" reduction: every block stores its partial sum, fences,
// and takes a ticket; the block that draws the last ticket (gridDim.x - 1)
// adds the partials in index order. Which block is last depends on the
// order, the result does not.
__global__ void last_block_reduce(const int* in, int* partials,
                                  unsigned* ticket, int* total) {
  __shared__ int s[128];
  __shared__ bool last;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[i];
  __syncthreads();
  for (unsigned step = blockDim.x / 2; step > 0; step >>= 1) {
    if (threadIdx.x < step) s[threadIdx.x] += s[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = s[0];
    __threadfence();
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    int sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b)
      sum += ((volatile int*)partials)[b];
    *total = sum;
  }
}
