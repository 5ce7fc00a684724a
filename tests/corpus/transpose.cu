// A matrix transpose through a padded shared-memory tile (no bank
// conflicts), with a 2D grid over a non-square matrix.
#include <vector>

#include "corpus_check.h"

constexpr int kTile = 32, kRows = 8;

__global__ void Transpose(float* out, const float* in, int w, int h) {
  __shared__ float tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x,
      y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows)
    if (x < w && y + j < h)
      tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows)
    if (x < h && y + j < w)
      out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
  const int w = 70, h = 45;
  std::vector<float> in(w * h), out(w * h);
  for (int i = 0; i < w * h; ++i) in[i] = (float)i;
  float *d_in, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, in.size() * 4));
  CUDA_CHECK(cudaMalloc(&d_out, out.size() * 4));
  CUDA_CHECK(
      cudaMemcpy(d_in, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
  Transpose<<<dim3((w + kTile - 1) / kTile, (h + kTile - 1) / kTile),
              dim3(kTile, kRows)>>>(d_out, d_in, w, h);
  CUDA_CHECK(
      cudaMemcpy(out.data(), d_out, out.size() * 4, cudaMemcpyDeviceToHost));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) EXPECT(out[x * h + y] == in[y * w + x]);
  return CorpusOk();
}
