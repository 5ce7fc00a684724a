// Cooperative groups within a block: thread_block sync, a tiled_partition
// of 32 reduced with shfl, and a tile of 4 — no grid-wide sync (that needs
// a cooperative launch).
#include <cooperative_groups.h>

#include "corpus_check.h"

namespace cg = cooperative_groups;

__global__ void TileSums(const int* in, int* warp_sums, int* quad_sums) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  cg::thread_block_tile<4> quad = cg::tiled_partition<4>(block);
  int v = in[block.thread_rank()];
  int w = v;
  for (int o = warp.size() / 2; o > 0; o /= 2) w += warp.shfl_down(w, o);
  int q = v;
  for (int o = quad.size() / 2; o > 0; o /= 2) q += quad.shfl_down(q, o);
  block.sync();
  if (warp.thread_rank() == 0) warp_sums[block.thread_rank() / 32] = w;
  if (quad.thread_rank() == 0) quad_sums[block.thread_rank() / 4] = q;
}

int main() {
  const int n = 256;
  int *in, *warp_sums, *quad_sums;
  CUDA_CHECK(cudaMallocManaged(&in, n * sizeof(int)));
  CUDA_CHECK(cudaMallocManaged(&warp_sums, n / 32 * sizeof(int)));
  CUDA_CHECK(cudaMallocManaged(&quad_sums, n / 4 * sizeof(int)));
  for (int i = 0; i < n; ++i) in[i] = (i * 31) % 17;
  TileSums<<<1, n>>>(in, warp_sums, quad_sums);
  CUDA_CHECK(cudaDeviceSynchronize());
  for (int w = 0; w < n / 32; ++w) {
    int s = 0;
    for (int i = 0; i < 32; ++i) s += in[32 * w + i];
    EXPECT(warp_sums[w] == s);
  }
  for (int q = 0; q < n / 4; ++q)
    EXPECT(quad_sums[q] ==
           in[4 * q] + in[4 * q + 1] + in[4 * q + 2] + in[4 * q + 3]);
  return CorpusOk();
}
