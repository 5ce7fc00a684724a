// Pitched copies, unmodified CUDA: a 5 x 3 block of a 8-float-wide host
// matrix goes into a pitched device buffer (cudaMallocPitch is not used: the
// pitch is chosen here) and back into a zeroed matrix with cudaMemcpy2D; a
// width wider than the pitch must be refused. Then the same round trip with
// cudaMemcpy2DAsync on a stream, synchronized.
// Usage: memcpy2d
// Prints "copy2d=ok" / "copy2d_async=ok" if exactly the block came back (and
// nothing around it was written), "bad_pitch=E" / "bad_pitch_async=E" (the
// errors of the too-wide copies); exits 3 on an unexpected CUDA error.
#include <cuda_runtime.h>

#include <cstdio>

#include "cuda_check.h"

int main() {
  constexpr int kCols = 8, kRows = 4, kWidth = 5, kHeight = 3;
  float src[kRows][kCols], back[kRows][kCols] = {};
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) src[r][c] = 1 + r * kCols + c;
  const size_t host_pitch = kCols * sizeof(float);
  const size_t dev_pitch = 64;  // bytes; wider than a row of the block
  char* dev = nullptr;
  CUDA_CHECK(cudaMalloc(&dev, dev_pitch * kHeight));
  CUDA_CHECK(cudaMemcpy2D(dev, dev_pitch, src, host_pitch,
                          kWidth * sizeof(float), kHeight,
                          cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy2D(back, host_pitch, dev, dev_pitch,
                          kWidth * sizeof(float), kHeight,
                          cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) {
      const float want = r < kHeight && c < kWidth ? src[r][c] : 0.0f;
      if (back[r][c] != want) ok = false;
    }
  const cudaError_t bad =
      cudaMemcpy2D(dev, 8, src, host_pitch, kWidth * sizeof(float), kHeight,
                   cudaMemcpyHostToDevice);
  (void)cudaGetLastError();
  // The same on a stream.
  float back2[kRows][kCols] = {};
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  CUDA_CHECK(cudaMemset(dev, 0, dev_pitch * kHeight));
  CUDA_CHECK(cudaMemcpy2DAsync(dev, dev_pitch, src, host_pitch,
                               kWidth * sizeof(float), kHeight,
                               cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemcpy2DAsync(back2, host_pitch, dev, dev_pitch,
                               kWidth * sizeof(float), kHeight,
                               cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  bool ok_async = true;
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) {
      const float want = r < kHeight && c < kWidth ? src[r][c] : 0.0f;
      if (back2[r][c] != want) ok_async = false;
    }
  const cudaError_t bad_async =
      cudaMemcpy2DAsync(dev, 8, src, host_pitch, kWidth * sizeof(float),
                        kHeight, cudaMemcpyHostToDevice, stream);
  (void)cudaGetLastError();
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(dev));
  std::printf("copy2d=%s\nbad_pitch=%d\n", ok ? "ok" : "wrong", (int)bad);
  std::printf("copy2d_async=%s\nbad_pitch_async=%d\n",
              ok_async ? "ok" : "wrong", (int)bad_async);
  return 0;
}
