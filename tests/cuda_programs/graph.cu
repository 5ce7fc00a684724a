// A CUDA graph made by stream capture, as inference servers and
// torch.compile's "reduce-overhead" mode use them. Unmodified CUDA.
// Usage: graph
// Captures, on a stream, 5 launches of graph_step (colod's profile table
// gives it its duration), a memset and a copy from a host value; launches the
// instantiated graph 4 times and synchronizes. Prints key=value lines: the
// capture status before, during and after (0 none, 1 active), whether the
// capture id is set, the error of synchronizing while capturing (900), of
// capturing the legacy default stream (900) and of ending a capture never
// begun (401); graph_ms (wall time of the 4 launches and the sync); copied
// (the value the copy brought: the host value at launch time, not at capture
// time); destroy errors (0, then 1 for a second destroy). Exits 3 on an
// unexpected CUDA error.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>

#include "cuda_check.h"

__global__ void graph_step(float* p) { p[threadIdx.x] += 1.0f; }

int main() {
  float* dev = nullptr;
  CUDA_CHECK(cudaMalloc(&dev, 256 * sizeof(float)));
  int* value_dev = nullptr;
  CUDA_CHECK(cudaMalloc(&value_dev, sizeof(int)));
  static int host_value = 7;
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  cudaStreamCaptureStatus st;
  CUDA_CHECK(cudaStreamIsCapturing(s, &st));
  std::printf("status_before=%d\n", (int)st);
  std::printf("capture_legacy=%d\n",
              (int)cudaStreamBeginCapture(cudaStreamLegacy,
                                          cudaStreamCaptureModeGlobal));
  (void)cudaGetLastError();
  cudaGraph_t none;
  std::printf("end_unbegun=%d\n", (int)cudaStreamEndCapture(s, &none));
  (void)cudaGetLastError();

  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaStreamIsCapturing(s, &st));
  std::printf("status_during=%d\n", (int)st);
  unsigned long long id = 0;
  CUDA_CHECK(cudaStreamGetCaptureInfo(s, &st, &id));
  std::printf("capture_id_set=%d\n", id != 0 ? 1 : 0);
  for (int i = 0; i < 5; ++i) graph_step<<<1, 256, 0, s>>>(dev);
  CUDA_CHECK(cudaMemsetAsync(value_dev, 0, sizeof(int), s));
  CUDA_CHECK(cudaMemcpyAsync(value_dev, &host_value, sizeof(int),
                             cudaMemcpyHostToDevice, s));
  std::printf("sync_while_capturing=%d\n", (int)cudaStreamSynchronize(s));
  (void)cudaGetLastError();
  cudaGraph_t graph;
  CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  CUDA_CHECK(cudaStreamIsCapturing(s, &st));
  std::printf("status_after=%d\n", (int)st);

  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  host_value = 42;  // the copy reads it when the graph runs
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 4; ++i) CUDA_CHECK(cudaGraphLaunch(exec, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  const double ms = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - t0)
                        .count();
  int copied = -1;
  CUDA_CHECK(
      cudaMemcpy(&copied, value_dev, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("graph_ms=%.3f\ncopied=%d\n", ms, copied);
  std::printf("exec_destroy=%d\n", (int)cudaGraphExecDestroy(exec));
  std::printf("graph_destroy=%d\n", (int)cudaGraphDestroy(graph));
  std::printf("graph_destroy_again=%d\n", (int)cudaGraphDestroy(graph));
  (void)cudaGetLastError();
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(dev));
  CUDA_CHECK(cudaFree(value_dev));
  return 0;
}
