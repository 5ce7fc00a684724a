// 3D copies of pitched memory, unmodified CUDA: cudaMalloc3D a 16 x 4 x 3
// byte volume, clear it with cudaMemset3D, copy a 10 x 3 x 2 box of a host
// volume (from x 2, y 1, z 1) into its corner with cudaMemcpy3D, set a
// 4 x 2 x 3 corner to 0x7f, copy the whole volume back and check every
// byte; then the same with the Async forms on a stream. Then what CUDA
// refuses. Prints key=value lines:
//   "malloc3d" (error), "pitch", "xsize", "ysize": the pitched pointer;
//   "volume_ok", "volume_async_ok": 1 if every byte read back is what the
//     calls wrote (the box, the corner, zeros elsewhere);
//   "box_back_ok": 1 if the box copied back out into a host volume at its
//     original place matches the source there and left the rest zero;
//   "bad_pitch" (a row wider than the pitch), "overlapping_slices" (height
//     beyond ysize with two slices), "outside" (a slice past the
//     allocation), "array" (a CUDA array for the source), "memset_bad_pitch":
//     each call's error.
// Exits 3 on an unexpected CUDA error.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "cuda_check.h"

namespace {

constexpr int kX = 16, kY = 4, kZ = 3;
unsigned char host[kZ][kY][kX];

unsigned char Expected(int x, int y, int z) {
  if (x < 4 && y < 2) return 0x7f;
  if (x < 10 && y < 3 && z < 2) return host[z + 1][y + 1][x + 2];
  return 0;
}

cudaMemcpy3DParms Box(cudaPitchedPtr src, cudaPos src_pos, cudaPitchedPtr dst,
                      cudaPos dst_pos, cudaExtent extent, cudaMemcpyKind kind) {
  cudaMemcpy3DParms p = {};
  p.srcPtr = src;
  p.srcPos = src_pos;
  p.dstPtr = dst;
  p.dstPos = dst_pos;
  p.extent = extent;
  p.kind = kind;
  return p;
}

// Fills `dev` as described above, reads the whole volume back and checks it.
int Volume(cudaPitchedPtr dev, cudaStream_t stream, bool async, bool* ok) {
  const cudaExtent whole = make_cudaExtent(kX, kY, kZ);
  const cudaPitchedPtr h = make_cudaPitchedPtr(host, kX, kX, kY);
  const cudaMemcpy3DParms in =
      Box(h, make_cudaPos(2, 1, 1), dev, make_cudaPos(0, 0, 0),
          make_cudaExtent(10, 3, 2), cudaMemcpyHostToDevice);
  static unsigned char back[kZ][kY][kX];
  std::memset(back, 0xee, sizeof(back));
  const cudaMemcpy3DParms out =
      Box(dev, make_cudaPos(0, 0, 0), make_cudaPitchedPtr(back, kX, kX, kY),
          make_cudaPos(0, 0, 0), whole, cudaMemcpyDeviceToHost);
  if (async) {
    CUDA_CHECK(cudaMemset3DAsync(dev, 0, whole, stream));
    CUDA_CHECK(cudaMemcpy3DAsync(&in, stream));
    CUDA_CHECK(cudaMemset3DAsync(dev, 0x7f, make_cudaExtent(4, 2, 3), stream));
    CUDA_CHECK(cudaMemcpy3DAsync(&out, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  } else {
    CUDA_CHECK(cudaMemset3D(dev, 0, whole));
    CUDA_CHECK(cudaMemcpy3D(&in));
    CUDA_CHECK(cudaMemset3D(dev, 0x7f, make_cudaExtent(4, 2, 3)));
    CUDA_CHECK(cudaMemcpy3D(&out));
  }
  *ok = true;
  for (int z = 0; z < kZ; ++z)
    for (int y = 0; y < kY; ++y)
      for (int x = 0; x < kX; ++x) *ok &= back[z][y][x] == Expected(x, y, z);
  return 0;
}

}  // namespace

int main() {
  for (int z = 0; z < kZ; ++z)
    for (int y = 0; y < kY; ++y)
      for (int x = 0; x < kX; ++x)
        host[z][y][x] = static_cast<unsigned char>(1 + x + 16 * y + 64 * z);
  cudaPitchedPtr dev = {};
  std::printf("malloc3d=%d\n",
              (int)cudaMalloc3D(&dev, make_cudaExtent(kX, kY, kZ)));
  std::printf("pitch=%zu\nxsize=%zu\nysize=%zu\n", dev.pitch, dev.xsize,
              dev.ysize);
  if (dev.ptr == nullptr) return 3;
  bool ok = false;
  if (int r = Volume(dev, nullptr, false, &ok)) return r;
  std::printf("volume_ok=%d\n", ok);
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  if (int r = Volume(dev, stream, true, &ok)) return r;
  std::printf("volume_async_ok=%d\n", ok);

  // The box back out to where it came from in a zeroed host volume.
  static unsigned char box[kZ][kY][kX];
  const cudaMemcpy3DParms back = Box(
      dev, make_cudaPos(0, 0, 0), make_cudaPitchedPtr(box, kX, kX, kY),
      make_cudaPos(2, 1, 1), make_cudaExtent(10, 3, 2), cudaMemcpyDeviceToHost);
  CUDA_CHECK(cudaMemcpy3D(&back));
  bool box_ok = true;
  for (int z = 0; z < kZ; ++z)
    for (int y = 0; y < kY; ++y)
      for (int x = 0; x < kX; ++x) {
        const bool inside = x >= 2 && x < 12 && y >= 1 && y < 4 && z >= 1;
        box_ok &= box[z][y][x] == (inside ? Expected(x - 2, y - 1, z - 1) : 0);
      }
  std::printf("box_back_ok=%d\n", box_ok);

  const cudaPitchedPtr h = make_cudaPitchedPtr(host, kX, kX, kY);
  cudaMemcpy3DParms bad =
      Box(h, make_cudaPos(0, 0, 0), dev, make_cudaPos(0, 0, 0),
          make_cudaExtent(dev.pitch + 1, 1, 1), cudaMemcpyHostToDevice);
  std::printf("bad_pitch=%d\n", (int)cudaMemcpy3D(&bad));
  bad.extent = make_cudaExtent(8, kY + 1, 2);
  std::printf("overlapping_slices=%d\n", (int)cudaMemcpy3D(&bad));
  bad.extent = make_cudaExtent(8, 2, 1);
  bad.dstPos = make_cudaPos(0, 0, kZ);
  std::printf("outside=%d\n", (int)cudaMemcpy3D(&bad));
  bad.dstPos = make_cudaPos(0, 0, 0);
  bad.srcArray = reinterpret_cast<cudaArray_t>(&bad);
  std::printf("array=%d\n", (int)cudaMemcpy3D(&bad));
  std::printf("memset_bad_pitch=%d\n",
              (int)cudaMemset3D(dev, 0, make_cudaExtent(dev.pitch + 1, 1, 1)));
  (void)cudaGetLastError();
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(dev.ptr));
  return 0;
}
