// Kernels for tests/ptx/forms_on_interpreter_test.cc: warp shuffles and
// votes. Launched with whole warps (blockDim.x a multiple of 32), so the
// full mask names only threads that exist; lanes that leave a shuffle's
// mask do so by a branch the whole warp agrees on.

// Each kind of shuffle on int data: out[4 * i + k], k = up, down, xor, idx.
__global__ void warp_shuffles(const int* in, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[i];
  const unsigned lane = threadIdx.x & 31;
  out[4 * i + 0] = __shfl_up_sync(0xffffffffu, v, 3);
  out[4 * i + 1] = __shfl_down_sync(0xffffffffu, v, 5);
  out[4 * i + 2] = __shfl_xor_sync(0xffffffffu, v, 9);
  out[4 * i + 3] = __shfl_sync(0xffffffffu, v, (lane * 7 + blockIdx.x) & 31);
}

// Shuffles of sub-warp width (8 and 16) and of 64-bit and float values.
__global__ void warp_shuffle_widths(const long long* in, long long* out,
                                    float* fout) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const long long v = in[i];
  out[3 * i + 0] = __shfl_down_sync(0xffffffffu, v, 2, 8);
  out[3 * i + 1] = __shfl_xor_sync(0xffffffffu, v, 5, 16);
  out[3 * i + 2] = __shfl_sync(0xffffffffu, v, 3, 8);
  fout[i] = __shfl_up_sync(0xffffffffu, (float)v * 0.5f, 1, 16);
}

// A warp reduction of floats by shuffles (a fixed tree: the same order in
// every run), then one float per warp.
__global__ void warp_reduce_float(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int off = 16; off > 0; off >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0) out[i / 32] = v;
}

// Votes: ballot, all, any, and a ballot inside a branch with a partial
// mask (the lanes that take the branch, found by a ballot before it).
__global__ void warp_votes(const int* in, unsigned* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[i];
  const unsigned ballot = __ballot_sync(0xffffffffu, v > 0);
  const int all = __all_sync(0xffffffffu, v > -900);
  const int any = __any_sync(0xffffffffu, v > 900);
  const unsigned mask = __ballot_sync(0xffffffffu, v & 1);
  unsigned inner = 0;
  if (v & 1) {
    inner = __ballot_sync(mask, v > 100) | (mask << 1);
  }
  out[4 * i + 0] = ballot;
  out[4 * i + 1] = all;
  out[4 * i + 2] = any;
  out[4 * i + 3] = inner ^ __popc(ballot);
}

// A warp-level inclusive scan with __shfl_up_sync, then a per-block scan of
// the warp totals through shared memory and a barrier.
__global__ void warp_block_scan(const unsigned* in, unsigned* out) {
  __shared__ unsigned totals[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned v = in[i];
  for (int off = 1; off < 32; off <<= 1) {
    const unsigned up = __shfl_up_sync(0xffffffffu, v, off);
    if (lane >= off) v += up;
  }
  if (lane == 31) totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    const unsigned warps = blockDim.x >> 5;
    unsigned t = lane < warps ? totals[lane] : 0;
    for (int off = 1; off < 32; off <<= 1) {
      const unsigned up = __shfl_up_sync(0xffffffffu, t, off);
      if (lane >= off) t += up;
    }
    if (lane < warps) totals[lane] = t;
  }
  __syncthreads();
  out[i] = v + (warp > 0 ? totals[warp - 1] : 0);
}

// Warps that leave early (the whole warp together) before a barrier that the
// other warps of the block meet; then a vote among the survivors.
__global__ void warp_leaves_before_sync(const int* in, int* out) {
  __shared__ int s[128];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int warp = threadIdx.x >> 5;
  if (in[blockIdx.x * blockDim.x + warp * 32] < 0) return;
  s[threadIdx.x] = in[i];
  __syncthreads();
  const int partner = s[threadIdx.x ^ 1];
  out[i] = partner + __popc(__ballot_sync(0xffffffffu, partner > 0));
}
