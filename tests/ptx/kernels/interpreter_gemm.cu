// Tiled matrix products for the interpreter's tests
// (ptx_interpreter_kernels_test): 2-D blocks of kTile x kTile threads stage
// tiles of A and B in shared memory between two barriers; each thread
// accumulates its output in the order k = 0, 1, ... with explicit fmaf, so a
// host loop with std::fma gives the same bits.
constexpr int kTile = 16;

extern "C" __global__ void gemm_f32(const float* a, const float* b, float* c,
                                    int m, int n, int k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  int row = blockIdx.y * kTile + threadIdx.y;
  int col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < k; t += kTile) {
    as[threadIdx.y][threadIdx.x] =
        (row < m && t + threadIdx.x < k) ? a[row * k + t + threadIdx.x] : 0.0f;
    bs[threadIdx.y][threadIdx.x] = (col < n && t + threadIdx.y < k)
                                       ? b[(t + threadIdx.y) * n + col]
                                       : 0.0f;
    __syncthreads();
    for (int i = 0; i < kTile; ++i)
      acc = fmaf(as[threadIdx.y][i], bs[i][threadIdx.x], acc);
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}

// The same with 32-bit integers (wrapping): exact on any order.
extern "C" __global__ void gemm_u32(const unsigned* a, const unsigned* b,
                                    unsigned* c, int m, int n, int k) {
  __shared__ unsigned as[kTile][kTile];
  __shared__ unsigned bs[kTile][kTile];
  int row = blockIdx.y * kTile + threadIdx.y;
  int col = blockIdx.x * kTile + threadIdx.x;
  unsigned acc = 0;
  for (int t = 0; t < k; t += kTile) {
    as[threadIdx.y][threadIdx.x] =
        (row < m && t + threadIdx.x < k) ? a[row * k + t + threadIdx.x] : 0;
    bs[threadIdx.y][threadIdx.x] =
        (col < n && t + threadIdx.y < k) ? b[(t + threadIdx.y) * n + col] : 0;
    __syncthreads();
    for (int i = 0; i < kTile; ++i)
      acc += as[threadIdx.y][i] * bs[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}
