// A CUDA graph captured across two streams that fork and join through
// events, as frameworks capture work they spread over side streams.
// Unmodified CUDA. Usage: graph_fork_join
// The good capture: s1 begins; an event recorded on s1 is waited on by s2
// (s2 joins); 2 launches of fork_main on s1, 3 of fork_side on s2; an event
// recorded on s2 is waited on by s1 (join); s1 ends the capture. The graph
// is launched twice, then synchronized. Then the refusals, each on a fresh
// capture whose kernels never run. Prints key=value lines:
//   side_status_during / side_status_after (1 / 0), same_capture_id (1),
//   end_good (0), query_captured_event (907),
//   end_unjoined (904: s2 has a launch nobody waited for), graph_unjoined_null
//   (1), side_status_after_unjoined (0), end_on_joined_stream (903),
//   wait_outside_event (905), end_after_isolation (901),
//   end_after_joined_destroyed (901),
//   wait_ended_capture_event (907), graph_ms (2 launches + sync, wall),
//   second_launch_ms (the second launch's device time, from events: the
//   branches run side by side, so the longer one's).
// Exits 3 on an unexpected CUDA error.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>

#include "cuda_check.h"

__global__ void fork_main(float* p) { p[threadIdx.x] += 1.0f; }
__global__ void fork_side(float* p) { p[threadIdx.x] *= 2.0f; }

int main() {
  float *a = nullptr, *b = nullptr;
  CUDA_CHECK(cudaMalloc(&a, 256 * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&b, 256 * sizeof(float)));
  cudaStream_t s1, s2, s3;
  CUDA_CHECK(cudaStreamCreate(&s1));
  CUDA_CHECK(cudaStreamCreate(&s2));
  CUDA_CHECK(cudaStreamCreate(&s3));
  cudaEvent_t fork, join, outside;
  CUDA_CHECK(cudaEventCreate(&fork));
  CUDA_CHECK(cudaEventCreate(&join));
  CUDA_CHECK(cudaEventCreate(&outside));
  cudaStreamCaptureStatus st;
  unsigned long long id1 = 0, id2 = 0;

  // The good capture.
  CUDA_CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaEventRecord(fork, s1));
  CUDA_CHECK(cudaStreamWaitEvent(s2, fork, 0));
  CUDA_CHECK(cudaStreamIsCapturing(s2, &st));
  std::printf("side_status_during=%d\n", (int)st);
  CUDA_CHECK(cudaStreamGetCaptureInfo(s1, &st, &id1));
  CUDA_CHECK(cudaStreamGetCaptureInfo(s2, &st, &id2));
  std::printf("same_capture_id=%d\n", id1 != 0 && id1 == id2 ? 1 : 0);
  for (int i = 0; i < 2; ++i) fork_main<<<1, 256, 0, s1>>>(a);
  for (int i = 0; i < 3; ++i) fork_side<<<1, 256, 0, s2>>>(b);
  CUDA_CHECK(cudaEventRecord(join, s2));
  CUDA_CHECK(cudaStreamWaitEvent(s1, join, 0));
  std::printf("query_captured_event=%d\n", (int)cudaEventQuery(fork));
  (void)cudaGetLastError();
  cudaGraph_t graph = nullptr;
  std::printf("end_good=%d\n", (int)cudaStreamEndCapture(s1, &graph));
  CUDA_CHECK(cudaStreamIsCapturing(s2, &st));
  std::printf("side_status_after=%d\n", (int)st);

  // Unjoined: s2 forks off and launches, but s1 never waits for it.
  CUDA_CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaEventRecord(fork, s1));
  CUDA_CHECK(cudaStreamWaitEvent(s2, fork, 0));
  fork_side<<<1, 256, 0, s2>>>(b);
  cudaGraph_t unjoined = reinterpret_cast<cudaGraph_t>(&st);
  std::printf("end_unjoined=%d\n", (int)cudaStreamEndCapture(s1, &unjoined));
  (void)cudaGetLastError();
  std::printf("graph_unjoined_null=%d\n", unjoined == nullptr ? 1 : 0);
  CUDA_CHECK(cudaStreamIsCapturing(s2, &st));
  std::printf("side_status_after_unjoined=%d\n", (int)st);

  // Ending on the stream that joined rather than the one that began.
  CUDA_CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaEventRecord(fork, s1));
  CUDA_CHECK(cudaStreamWaitEvent(s2, fork, 0));
  cudaGraph_t unmatched = nullptr;
  std::printf("end_on_joined_stream=%d\n",
              (int)cudaStreamEndCapture(s2, &unmatched));
  (void)cudaGetLastError();
  // Ending it properly (what that returns is the runtime's business; its
  // graph, if any, is never launched).
  CUDA_CHECK(cudaEventRecord(join, s2));
  (void)cudaStreamWaitEvent(s1, join, 0);
  cudaGraph_t after_unmatched = nullptr;
  (void)cudaStreamEndCapture(s1, &after_unmatched);
  (void)cudaGetLastError();
  if (after_unmatched != nullptr) (void)cudaGraphDestroy(after_unmatched);

  // A capturing stream waiting on work outside its capture.
  fork_main<<<1, 256, 0, s3>>>(a);
  CUDA_CHECK(cudaEventRecord(outside, s3));
  CUDA_CHECK(cudaStreamSynchronize(s3));
  CUDA_CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  std::printf("wait_outside_event=%d\n",
              (int)cudaStreamWaitEvent(s1, outside, 0));
  (void)cudaGetLastError();
  cudaGraph_t isolated = nullptr;
  std::printf("end_after_isolation=%d\n",
              (int)cudaStreamEndCapture(s1, &isolated));
  (void)cudaGetLastError();
  // A stream that joined the capture is destroyed before the capture ends.
  cudaStream_t s4;
  CUDA_CHECK(cudaStreamCreate(&s4));
  CUDA_CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaEventRecord(fork, s1));
  CUDA_CHECK(cudaStreamWaitEvent(s4, fork, 0));
  CUDA_CHECK(cudaStreamDestroy(s4));
  cudaGraph_t lost = nullptr;
  std::printf("end_after_joined_destroyed=%d\n",
              (int)cudaStreamEndCapture(s1, &lost));
  (void)cudaGetLastError();

  // The fork event was last recorded in a capture that has ended.
  std::printf("wait_ended_capture_event=%d\n",
              (int)cudaStreamWaitEvent(s3, fork, 0));
  (void)cudaGetLastError();

  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  cudaEvent_t between, after;
  CUDA_CHECK(cudaEventCreate(&between));
  CUDA_CHECK(cudaEventCreate(&after));
  const auto t0 = std::chrono::steady_clock::now();
  CUDA_CHECK(cudaGraphLaunch(exec, s1));
  CUDA_CHECK(cudaEventRecord(between, s1));
  CUDA_CHECK(cudaGraphLaunch(exec, s1));
  CUDA_CHECK(cudaEventRecord(after, s1));
  CUDA_CHECK(cudaStreamSynchronize(s1));
  float second = 0;
  CUDA_CHECK(cudaEventElapsedTime(&second, between, after));
  std::printf("second_launch_ms=%.4f\n", second);
  const double ms = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - t0)
                        .count();
  std::printf("graph_ms=%.3f\n", ms);
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaEventDestroy(fork));
  CUDA_CHECK(cudaEventDestroy(join));
  CUDA_CHECK(cudaEventDestroy(outside));
  CUDA_CHECK(cudaStreamDestroy(s1));
  CUDA_CHECK(cudaStreamDestroy(s2));
  CUDA_CHECK(cudaStreamDestroy(s3));
  CUDA_CHECK(cudaFree(a));
  CUDA_CHECK(cudaFree(b));
  return 0;
}
