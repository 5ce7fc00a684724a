// Kernels for tests/ptx/forms_on_interpreter_test.cc: grid and block shapes
// of one to three dimensions, grid-stride loops and the per-block execution
// counter that checks "every logical block ran exactly once". Deterministic:
// each output element has one writer, or is written through an integer atomic
// whose result does not depend on the order.

// Every thread writes what it sees of the launch: its block (x, y, z), the
// grid (x, y, z), its thread (x, y, z) and the block's shape, into one slot
// of 12 words at its global linear index.
__global__ void grid3d_ids(unsigned* out) {
  const unsigned block =
      blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned thread =
      threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned per_block = blockDim.x * blockDim.y * blockDim.z;
  unsigned* slot = out + 12u * (block * per_block + thread);
  slot[0] = blockIdx.x;
  slot[1] = blockIdx.y;
  slot[2] = blockIdx.z;
  slot[3] = gridDim.x;
  slot[4] = gridDim.y;
  slot[5] = gridDim.z;
  slot[6] = threadIdx.x;
  slot[7] = threadIdx.y;
  slot[8] = threadIdx.z;
  slot[9] = blockDim.x;
  slot[10] = blockDim.y;
  slot[11] = blockDim.z;
}

// Counts the runs of each logical block: thread (0,0,0) adds 1 to
// counts[linear block index]; every thread also adds its block's linear
// index to a checksum and does a little work between two barriers, so that
// a worker can be asked to retreat in the middle of a block.
__global__ void block_run_counter(unsigned* counts,
                                  unsigned long long* checksum,
                                  unsigned* work) {
  __shared__ unsigned partial[256];
  const unsigned block =
      blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned thread =
      threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned per_block = blockDim.x * blockDim.y * blockDim.z;
  if (thread == 0) atomicAdd(&counts[block], 1u);
  unsigned v = work[block * per_block + thread];
  for (unsigned k = 0; k < 8; ++k) v = v * 3u + (k ^ thread);
  partial[thread] = v;
  __syncthreads();
  const unsigned other = partial[(thread + 1) % per_block];
  __syncthreads();
  work[block * per_block + thread] = v ^ other;
  atomicAdd(checksum, (unsigned long long)block + 1ull);
}

// y[i] = a * x[i] + y[i] over a grid-stride loop (gridDim.x * blockDim.x).
__global__ void grid_stride_saxpy(float a, const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    y[i] = a * x[i] + y[i];
  }
}

// A 2-D grid-stride loop over a w x h image (gridDim.x/y, blockDim.x/y).
__global__ void grid_stride_2d(const int* in, int* out, int w, int h) {
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h;
       y += gridDim.y * blockDim.y) {
    for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < w;
         x += gridDim.x * blockDim.x) {
      const int left = x > 0 ? in[y * w + x - 1] : 0;
      const int up = y > 0 ? in[(y - 1) * w + x] : 0;
      out[y * w + x] = in[y * w + x] * 2 + left - up;
    }
  }
}

// A tiled transpose through a static shared tile (32 x 33) with a barrier;
// the tile edge of a partial block is guarded, not returned from.
__global__ void transpose_tiled(const float* in, float* out, int w, int h) {
  __shared__ float tile[32][33];
  const int x = blockIdx.x * 32 + threadIdx.x;
  for (int j = threadIdx.y; j < 32; j += blockDim.y) {
    const int y = blockIdx.y * 32 + j;
    if (x < w && y < h) tile[j][threadIdx.x] = in[y * w + x];
  }
  __syncthreads();
  const int tx = blockIdx.y * 32 + threadIdx.x;
  for (int j = threadIdx.y; j < 32; j += blockDim.y) {
    const int ty = blockIdx.x * 32 + j;
    if (tx < h && ty < w) out[ty * h + tx] = tile[threadIdx.x][j];
  }
}

// A 7-point stencil over an nx x ny x nz volume, 3-D grid and 3-D block.
__global__ void stencil_3d(const float* in, float* out, int nx, int ny,
                           int nz) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  const int i = (z * ny + y) * nx + x;
  float s = 6.0f * in[i];
  if (x > 0) s -= in[i - 1];
  if (x + 1 < nx) s -= in[i + 1];
  if (y > 0) s -= in[i - nx];
  if (y + 1 < ny) s -= in[i + nx];
  if (z > 0) s -= in[i - nx * ny];
  if (z + 1 < nz) s -= in[i + nx * ny];
  out[i] = s;
}

// A 2-D grid of 3-D blocks that sums along the block's z with a shared
// array and a barrier: out[(by * gx + bx) * 16 + ty * 4 + tx].
__global__ void block_z_sum(const int* in, int* out) {
  __shared__ int slab[4][4][4];
  const int gx = gridDim.x;
  const int b = blockIdx.y * gx + blockIdx.x;
  slab[threadIdx.z][threadIdx.y][threadIdx.x] =
      in[b * 64 + threadIdx.z * 16 + threadIdx.y * 4 + threadIdx.x];
  __syncthreads();
  if (threadIdx.z == 0) {
    int s = 0;
    for (int z = 0; z < 4; ++z)
      s += slab[z][threadIdx.y][threadIdx.x] * (z + 1 + blockIdx.y);
    out[b * 16 + threadIdx.y * 4 + threadIdx.x] = s;
  }
}

// The grid's shape seen from every block, summed with 64-bit atomics:
// sums[0] += gridDim.x * gridDim.y * gridDim.z, sums[1] += the linear block
// index, sums[2] += blockIdx.z * 1000 + blockIdx.y (order-independent).
__global__ void grid_shape_sums(unsigned long long* sums) {
  if (threadIdx.x != 0) return;
  atomicAdd(&sums[0], (unsigned long long)gridDim.x * gridDim.y * gridDim.z);
  atomicAdd(
      &sums[1],
      (unsigned long long)(blockIdx.x +
                           gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)));
  atomicAdd(&sums[2], (unsigned long long)blockIdx.z * 1000ull + blockIdx.y);
}
