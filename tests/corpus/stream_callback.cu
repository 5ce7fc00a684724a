// cudaStreamAddCallback: callbacks run in stream order with the stream's
// status, after the work before them; a query says when the stream is done.
#include <atomic>
#include <vector>

#include "corpus_check.h"

struct Log {
  std::vector<int> order;
  int first_value = -1;
  int* pinned = nullptr;
};

void CUDART_CB Record(cudaStream_t, cudaError_t status, void* data) {
  auto* entry = static_cast<std::pair<Log*, int>*>(data);
  if (status != cudaSuccess) return;
  entry->first->order.push_back(entry->second);
  if (entry->second == 1) entry->first->first_value = entry->first->pinned[0];
}

__global__ void Set(int* p, int v) { p[threadIdx.x] = v; }

int main() {
  Log log;
  int* d;
  CUDA_CHECK(cudaMalloc(&d, 32 * sizeof(int)));
  CUDA_CHECK(cudaMallocHost(&log.pinned, 32 * sizeof(int)));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  std::pair<Log*, int> one{&log, 1}, two{&log, 2};
  Set<<<1, 32, 0, s>>>(d, 42);
  CUDA_CHECK(cudaMemcpyAsync(log.pinned, d, 32 * sizeof(int),
                             cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamAddCallback(s, Record, &one, 0));
  Set<<<1, 32, 0, s>>>(d, 7);
  CUDA_CHECK(cudaStreamAddCallback(s, Record, &two, 0));
  int polls = 0;
  while (cudaStreamQuery(s) == cudaErrorNotReady && polls < 10000000) ++polls;
  CUDA_CHECK(cudaStreamSynchronize(s));
  EXPECT(log.order.size() == 2 && log.order[0] == 1 && log.order[1] == 2);
  EXPECT(log.first_value == 42);
  CUDA_CHECK(cudaStreamDestroy(s));
  return CorpusOk();
}
