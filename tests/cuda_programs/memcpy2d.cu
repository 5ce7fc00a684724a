// Pitched copies, unmodified CUDA: a 5 x 3 block of a 8-float-wide host
// matrix goes into a pitched device buffer (cudaMallocPitch is not used: the
// pitch is chosen here) and back into a zeroed matrix with cudaMemcpy2D; a
// width wider than the pitch must be refused.
// Usage: memcpy2d
// Prints "copy2d=ok" if exactly the block came back (and nothing around it
// was written), "bad_pitch=E" (the error of the too-wide copy); exits 3 on
// an unexpected CUDA error.
#include <cuda_runtime.h>

#include <cstdio>

#define CHECK(call)                                                  \
  do {                                                               \
    cudaError_t e_ = (call);                                         \
    if (e_ != cudaSuccess) {                                         \
      std::printf("cuda_error=%d at line %d\n", (int)e_, __LINE__); \
      return 3;                                                      \
    }                                                                \
  } while (0)

int main() {
  constexpr int kCols = 8, kRows = 4, kWidth = 5, kHeight = 3;
  float src[kRows][kCols], back[kRows][kCols] = {};
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) src[r][c] = 1 + r * kCols + c;
  const size_t host_pitch = kCols * sizeof(float);
  const size_t dev_pitch = 64;  // bytes; wider than a row of the block
  char* dev = nullptr;
  CHECK(cudaMalloc(&dev, dev_pitch * kHeight));
  CHECK(cudaMemcpy2D(dev, dev_pitch, src, host_pitch, kWidth * sizeof(float), kHeight,
                     cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2D(back, host_pitch, dev, dev_pitch, kWidth * sizeof(float), kHeight,
                     cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) {
      const float want = r < kHeight && c < kWidth ? src[r][c] : 0.0f;
      if (back[r][c] != want) ok = false;
    }
  const cudaError_t bad = cudaMemcpy2D(dev, 8, src, host_pitch, kWidth * sizeof(float), kHeight,
                                       cudaMemcpyHostToDevice);
  (void)cudaGetLastError();
  CHECK(cudaFree(dev));
  std::printf("copy2d=%s\nbad_pitch=%d\n", ok ? "ok" : "wrong", (int)bad);
  return 0;
}
