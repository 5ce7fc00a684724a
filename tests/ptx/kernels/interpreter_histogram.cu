// A 256-bin byte histogram for the interpreter's tests: each block counts
// its grid-stride share into shared bins with shared-memory atomics
// between two barriers, then adds its non-zero bins to the global bins
// with global atomics.
extern "C" __global__ void histogram(const unsigned char* data, int n,
                                     unsigned* bins) {
  __shared__ unsigned local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    atomicAdd(&local[data[i]], 1u);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) {
    if (local[i] != 0) atomicAdd(&bins[i], local[i]);
  }
}
