// A bitonic sort of 4096 keys, one kernel launch per step, as the sorting
// samples do; checked against std::sort.
#include <algorithm>
#include <vector>

#include "corpus_check.h"

__global__ void BitonicStep(unsigned* keys, int j, int k) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned partner = i ^ j;
  if (partner > i) {
    bool ascending = (i & k) == 0;
    if ((keys[i] > keys[partner]) == ascending) {
      unsigned t = keys[i];
      keys[i] = keys[partner];
      keys[partner] = t;
    }
  }
}

int main() {
  const int n = 4096;
  std::vector<unsigned> keys(n);
  unsigned x = 7;
  for (int i = 0; i < n; ++i) keys[i] = (x = x * 1664525u + 1013904223u);
  unsigned* d;
  CUDA_CHECK(cudaMalloc(&d, n * sizeof(unsigned)));
  CUDA_CHECK(
      cudaMemcpy(d, keys.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1) BitonicStep<<<n / 256, 256>>>(d, j, k);
  std::vector<unsigned> sorted(n);
  CUDA_CHECK(cudaMemcpy(sorted.data(), d, n * sizeof(unsigned),
                        cudaMemcpyDeviceToHost));
  std::sort(keys.begin(), keys.end());
  EXPECT(sorted == keys);
  return CorpusOk();
}
