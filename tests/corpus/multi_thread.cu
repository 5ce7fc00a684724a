// Several host threads sharing the device, each with its own stream,
// buffers, kernels and copies, as a data-parallel input pipeline does.
#include <thread>
#include <vector>

#include "corpus_check.h"

__global__ void Affine(const int* in, int* out, int n, int a, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * in[i] + b;
}

int Worker(int id, int* failures) {
  const int n = 3000;
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = i + id;
  cudaStream_t s;
  int *d_in, *d_out;
  if (cudaStreamCreate(&s) != cudaSuccess) return ++*failures;
  if (cudaMalloc(&d_in, n * sizeof(int)) != cudaSuccess) return ++*failures;
  if (cudaMalloc(&d_out, n * sizeof(int)) != cudaSuccess) return ++*failures;
  for (int round = 0; round < 5; ++round) {
    cudaMemcpyAsync(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice,
                    s);
    Affine<<<(n + 127) / 128, 128, 0, s>>>(d_in, d_out, n, id + 2, round);
    cudaMemcpyAsync(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost,
                    s);
    if (cudaStreamSynchronize(s) != cudaSuccess) return ++*failures;
    for (int i = 0; i < n; ++i)
      if (out[i] != (id + 2) * (i + id) + round) return ++*failures;
  }
  cudaFree(d_in);
  cudaFree(d_out);
  cudaStreamDestroy(s);
  return 0;
}

int main() {
  const int threads = 4;
  std::vector<int> failures(threads, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([t, &failures] { Worker(t, &failures[t]); });
  for (auto& t : pool) t.join();
  for (int t = 0; t < threads; ++t) EXPECT(failures[t] == 0);
  return CorpusOk();
}
