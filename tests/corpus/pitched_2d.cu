// Pitched 2D memory: cudaMallocPitch, cudaMemcpy2D in and out, a kernel
// that walks rows by the pitch, cudaMemset2D on a sub-rectangle.
#include "corpus_check.h"

__global__ void Transform(float* p, size_t pitch, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x,
      y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float* row = (float*)((char*)p + y * pitch);
    row[x] = row[x] * 2 + y;
  }
}

int main() {
  const int w = 100, h = 37;
  static float host[h][w], back[h][w];
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) host[y][x] = x;
  float* d;
  size_t pitch = 0;
  CUDA_CHECK(cudaMallocPitch(&d, &pitch, w * sizeof(float), h));
  EXPECT(pitch >= w * sizeof(float));
  CUDA_CHECK(cudaMemcpy2D(d, pitch, host, w * sizeof(float), w * sizeof(float),
                          h, cudaMemcpyHostToDevice));
  dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
  Transform<<<grid, block>>>(d, pitch, w, h);
  CUDA_CHECK(cudaMemset2D((char*)d + 10 * pitch, pitch, 0, 4 * sizeof(float),
                          2));  // rows 10-11, x 0..3
  CUDA_CHECK(cudaMemcpy2D(back, w * sizeof(float), d, pitch, w * sizeof(float),
                          h, cudaMemcpyDeviceToHost));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const bool zeroed = (y == 10 || y == 11) && x < 4;
      EXPECT(back[y][x] == (zeroed ? 0.f : 2.f * x + y));
    }
  CUDA_CHECK(cudaFree(d));
  return CorpusOk();
}
