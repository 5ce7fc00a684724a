// Device-side malloc and free: the heap size set with cudaDeviceSetLimit,
// each thread mallocs a buffer sized by its index, fills and sums it, and
// frees it; a second kernel keeps per-block lists in the heap across
// launches (malloc in one launch, free in the next), and a request beyond
// the heap returns NULL.
#include <vector>

#include "corpus_check.h"

__global__ void PerThreadBuffers(long long* sums, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  int len = t % 37 + 1;
  int* buf = static_cast<int*>(malloc(len * sizeof(int)));
  if (buf == nullptr) {
    sums[t] = -1;
    return;
  }
  for (int k = 0; k < len; ++k) buf[k] = t + k;
  long long s = 0;
  for (int k = 0; k < len; ++k) s += buf[k];
  sums[t] = s;
  free(buf);
}

// Block b mallocs a list of b + 2 doubles and leaves its pointer in lists.
__global__ void BuildLists(double** lists) {
  if (threadIdx.x != 0) return;
  int b = blockIdx.x;
  double* list = static_cast<double*>(malloc((b + 2) * sizeof(double)));
  if (list != nullptr) {
    for (int k = 0; k < b + 2; ++k) list[k] = 0.5 * (b + k);
  }
  lists[b] = list;
}

// A later launch reads each list, sums it and frees it.
__global__ void SumAndFreeLists(double** lists, double* totals) {
  if (threadIdx.x != 0) return;
  int b = blockIdx.x;
  double* list = lists[b];
  if (list == nullptr) {
    totals[b] = -1;
    return;
  }
  double s = 0;
  for (int k = 0; k < b + 2; ++k) s += list[k];
  totals[b] = s;
  free(list);
}

__global__ void TooLarge(unsigned long long bytes, int* got) {
  void* p = malloc(bytes);
  *got = p != nullptr;
  free(p);
}

int main() {
  const size_t heap = 4 << 20;
  CUDA_CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, heap));
  size_t limit = 0;
  CUDA_CHECK(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize));
  EXPECT(limit == heap);

  const int n = 1000;
  long long* d_sums;
  CUDA_CHECK(cudaMalloc(&d_sums, n * sizeof(long long)));
  PerThreadBuffers<<<(n + 127) / 128, 128>>>(d_sums, n);
  CUDA_CHECK(cudaGetLastError());
  std::vector<long long> sums(n);
  CUDA_CHECK(cudaMemcpy(sums.data(), d_sums, n * sizeof(long long),
                        cudaMemcpyDeviceToHost));
  // sum over k < len of (t + k) = len t + len (len - 1) / 2.
  for (int t = 0; t < n; ++t) {
    long long len = t % 37 + 1;
    EXPECT(sums[t] == len * t + len * (len - 1) / 2);
  }

  const int blocks = 24;
  double** d_lists;
  double* d_totals;
  CUDA_CHECK(cudaMalloc(&d_lists, blocks * sizeof(double*)));
  CUDA_CHECK(cudaMalloc(&d_totals, blocks * sizeof(double)));
  for (int round = 0; round < 3; ++round) {
    BuildLists<<<blocks, 32>>>(d_lists);
    CUDA_CHECK(cudaGetLastError());
    SumAndFreeLists<<<blocks, 32>>>(d_lists, d_totals);
    CUDA_CHECK(cudaGetLastError());
    std::vector<double> totals(blocks);
    CUDA_CHECK(cudaMemcpy(totals.data(), d_totals, blocks * sizeof(double),
                          cudaMemcpyDeviceToHost));
    // sum over k < b + 2 of (b + k) / 2 = ((b + 2) b + (b + 2)(b + 1) / 2) / 2.
    for (int b = 0; b < blocks; ++b) {
      double m = b + 2;
      EXPECT(Near(totals[b], 0.5 * (m * b + m * (m - 1) / 2)));
    }
  }

  int* d_got;
  CUDA_CHECK(cudaMalloc(&d_got, sizeof(int)));
  TooLarge<<<1, 1>>>(2 * heap, d_got);
  CUDA_CHECK(cudaGetLastError());
  int got = -1;
  CUDA_CHECK(cudaMemcpy(&got, d_got, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(got == 0);
  TooLarge<<<1, 1>>>(1024, d_got);
  CUDA_CHECK(cudaMemcpy(&got, d_got, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(got == 1);

  CUDA_CHECK(cudaFree(d_sums));
  CUDA_CHECK(cudaFree(d_lists));
  CUDA_CHECK(cudaFree(d_totals));
  CUDA_CHECK(cudaFree(d_got));
  return CorpusOk();
}
