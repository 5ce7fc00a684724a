// Reductions for the interpreter's tests: each thread sums a grid-stride
// slice, a warp folds its lanes with __shfl_down_sync (offsets 16, 8, 4,
// 2, 1), warp 0 folds the warps' sums staged in shared memory, and lane 0
// writes the block's partial (floats) or adds it atomically (integers).
extern "C" __global__ void reduce_f32(const float* in, float* partial, int n) {
  __shared__ float warp_sums[32];
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    v += in[i];
  }
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x >> 5) ? warp_sums[lane] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0) partial[blockIdx.x] = v;
  }
}

// Integers: a butterfly (__shfl_xor_sync) leaves the warp's sum in every
// lane; warp sums go through shared memory to warp 0, whose lane 0 adds
// the block's sum to *total and the block's maximum to *maximum.
extern "C" __global__ void reduce_u32(const unsigned* in,
                                      unsigned long long* total,
                                      unsigned* maximum, int n) {
  __shared__ unsigned sums[32];
  __shared__ unsigned maxima[32];
  unsigned s = 0, m = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    s += in[i];
    m = max(m, in[i]);
  }
  for (int o = 1; o < 32; o <<= 1) {
    s += __shfl_xor_sync(0xffffffffu, s, o);
    m = max(m, __shfl_xor_sync(0xffffffffu, m, o));
  }
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) {
    sums[warp] = s;
    maxima[warp] = m;
  }
  __syncthreads();
  if (warp == 0) {
    bool has = lane < (blockDim.x >> 5);
    s = has ? sums[lane] : 0;
    m = has ? maxima[lane] : 0;
    s = __reduce_add_sync(0xffffffffu, s);
    m = __reduce_max_sync(0xffffffffu, m);
    if (lane == 0) {
      atomicAdd(total, static_cast<unsigned long long>(s));
      atomicMax(maximum, m);
    }
  }
}
