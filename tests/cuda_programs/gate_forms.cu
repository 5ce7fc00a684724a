// Unmodified CUDA, for gate mode's kernel forms: what a training job does —
// launches of one many-block kernel back to back on a stream of its own,
// then a synchronize. Under colod a best-effort job's launches may be cut
// into slices or run by persistent workers that retreat and resume
// (tests/runtime/gate_forms_test.cc); whatever the cut, every element must
// be incremented once per launch. Usage: gate_forms [LAUNCHES [BLOCKS]]
// (default 4 launches of 4096 blocks of 256 threads). Prints key=value
// lines: launch_error (the last launch's), sync_error, forms_ok=1 only if
// every element was incremented exactly LAUNCHES times. Exits 0 whatever
// the errors (the caller reads them).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void add_one(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

int main(int argc, char** argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 4;
  const int blocks = argc > 2 ? std::atoi(argv[2]) : 4096;
  constexpr int kThreads = 256;
  if (launches < 1 || blocks < 1) {
    std::printf("usage: gate_forms [LAUNCHES [BLOCKS]]\n");
    return 2;
  }
  // The last block is partly outside the data: its threads past n return.
  const int n = blocks * kThreads - kThreads / 2;
  int* d = nullptr;
  cudaStream_t s = nullptr;
  if (cudaMalloc(&d, n * sizeof(int)) != cudaSuccess ||
      cudaStreamCreate(&s) != cudaSuccess) {
    std::printf("setup_error=1\n");
    return 0;
  }
  cudaMemset(d, 0, n * sizeof(int));
  for (int k = 0; k < launches; ++k) add_one<<<blocks, kThreads, 0, s>>>(d, n);
  std::printf("launch_error=%d\n", (int)cudaGetLastError());
  std::printf("sync_error=%d\n", (int)cudaStreamSynchronize(s));
  std::vector<int> h(n);
  int ok = cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost) ==
           cudaSuccess;
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += h[i] != launches;
  std::printf("wrong_elements=%d\n", wrong);
  std::printf("forms_ok=%d\n", ok && wrong == 0);
  cudaStreamDestroy(s);
  cudaFree(d);
  return 0;
}
