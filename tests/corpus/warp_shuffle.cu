// Warp-level primitives: a sum with __shfl_down_sync, a ballot, and
// __any_sync / __all_sync, as reductions and stream compaction use them.
#include "corpus_check.h"

__global__ void WarpOps(const int* in, int* sums, unsigned* ballots,
                        int* any_all) {
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int v = in[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  unsigned ballot = __ballot_sync(0xffffffffu, in[threadIdx.x] % 3 == 0);
  int any = __any_sync(0xffffffffu, in[threadIdx.x] > 90);
  int all = __all_sync(0xffffffffu, in[threadIdx.x] >= 0);
  if (lane == 0) {
    sums[warp] = v;
    ballots[warp] = ballot;
    any_all[2 * warp] = any;
    any_all[2 * warp + 1] = all;
  }
}

int main() {
  const int n = 128;
  int in[n];
  for (int i = 0; i < n; ++i) in[i] = (i * 13) % 97;
  int *d_in, *d_sums, *d_any_all;
  unsigned* d_ballots;
  CUDA_CHECK(cudaMalloc(&d_in, sizeof(in)));
  CUDA_CHECK(cudaMalloc(&d_sums, 4 * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_ballots, 4 * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&d_any_all, 8 * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_in, in, sizeof(in), cudaMemcpyHostToDevice));
  WarpOps<<<1, n>>>(d_in, d_sums, d_ballots, d_any_all);
  int sums[4], any_all[8];
  unsigned ballots[4];
  CUDA_CHECK(cudaMemcpy(sums, d_sums, sizeof(sums), cudaMemcpyDeviceToHost));
  CUDA_CHECK(
      cudaMemcpy(ballots, d_ballots, sizeof(ballots), cudaMemcpyDeviceToHost));
  CUDA_CHECK(
      cudaMemcpy(any_all, d_any_all, sizeof(any_all), cudaMemcpyDeviceToHost));
  for (int w = 0; w < 4; ++w) {
    int sum = 0, any = 0;
    unsigned ballot = 0;
    for (int l = 0; l < 32; ++l) {
      int v = in[w * 32 + l];
      sum += v;
      if (v % 3 == 0) ballot |= 1u << l;
      if (v > 90) any = 1;
    }
    EXPECT(sums[w] == sum);
    EXPECT(ballots[w] == ballot);
    EXPECT(any_all[2 * w] == any);
    EXPECT(any_all[2 * w + 1] == 1);
  }
  return CorpusOk();
}
