// 3D memory: cudaMalloc3D, cudaMemcpy3D from a host volume, a kernel over
// the pitched volume, cudaMemcpy3D back.
#include "corpus_check.h"

__global__ void Index(cudaPitchedPtr p, int w, int h, int depth) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x >= w || y >= h || z >= depth) return;
  char* slice = (char*)p.ptr + z * p.pitch * h;
  int* row = (int*)(slice + y * p.pitch);
  row[x] += 1000 * z + 100 * y + x;
}

int main() {
  const int w = 20, h = 6, depth = 5;
  static int host[depth][h][w], back[depth][h][w];
  for (int z = 0; z < depth; ++z)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) host[z][y][x] = 7;
  cudaExtent extent = make_cudaExtent(w * sizeof(int), h, depth);
  cudaPitchedPtr d;
  CUDA_CHECK(cudaMalloc3D(&d, extent));
  cudaMemcpy3DParms in = {};
  in.srcPtr = make_cudaPitchedPtr(host, w * sizeof(int), w, h);
  in.dstPtr = d;
  in.extent = extent;
  in.kind = cudaMemcpyHostToDevice;
  CUDA_CHECK(cudaMemcpy3D(&in));
  Index<<<dim3(h, depth), w>>>(d, w, h, depth);
  cudaMemcpy3DParms out = {};
  out.srcPtr = d;
  out.dstPtr = make_cudaPitchedPtr(back, w * sizeof(int), w, h);
  out.extent = extent;
  out.kind = cudaMemcpyDeviceToHost;
  CUDA_CHECK(cudaMemcpy3D(&out));
  for (int z = 0; z < depth; ++z)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        EXPECT(back[z][y][x] == 7 + 1000 * z + 100 * y + x);
  CUDA_CHECK(cudaFree(d.ptr));
  return CorpusOk();
}
