// cudaStreamWaitEvent, unmodified CUDA, against a colod whose config gives
// `wait_long` 1 s, `wait_short` 10 ms and `wait_tiny` 1 ms. Stream b waits
// for an event recorded on stream a after the long kernel; stream c waits
// for an event recorded on b right after b's wait, before anything else ran
// on b. Prints key=value lines:
//   "bad_flags": a wait with a flag CUDA does not define (1,
//     cudaErrorInvalidValue);
//   "wait_err": what cudaStreamWaitEvent returned;
//   "dep_at_return": cudaEventQuery of a's event just after the wait call
//     returned (600, cudaErrorNotReady: the call did not wait for it);
//   "b_at_launch": cudaStreamQuery(b) after its short kernel was launched
//     (600: held behind the wait);
//   "after_dep_ms": a's event to b's short kernel's end (the short kernel
//     alone: it started when the long one ended);
//   "chain_ms": a's start to b's end (long then short);
//   "c_chain_ms": a's start to c's tiny kernel's end (c waited on a point of
//     b that is b's wait itself);
//   "legacy_chain_ms": an event recorded on the legacy default stream
//     (cudaStreamLegacy, also in a per-thread build) after
//     a second long kernel on a, waited for by b: its start to b's end;
//   "done_wait_err" / "done_wait_ms": a wait on an event that has already
//     completed (nothing to hold) and a short kernel behind it.
// Without any event, CUDA orders the legacy default stream with blocking
// streams (made without cudaStreamNonBlocking): a long kernel on blocking
// s1, a short one on the legacy stream, a tiny one on blocking s2 and one on
// non-blocking n:
//   "blocking_chain_ms": s1's start to s2's end (long, short, tiny);
//   "nonblocking_ms": s1's start to n's end (the tiny kernel alone).
// Exits 3 on an unexpected CUDA error.
#include <cuda_runtime.h>

#include <cstdio>

#include "cuda_check.h"

__global__ void wait_long(float* x) { x[threadIdx.x] *= 2.0f; }
__global__ void wait_short(float* x) { x[threadIdx.x] += 1.0f; }
__global__ void wait_tiny(float* x) { x[threadIdx.x] -= 1.0f; }

static float Ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = -1;
  if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess) return -1;
  return ms;
}

int main() {
  float* x = nullptr;
  CUDA_CHECK(cudaMalloc(&x, 1024 * sizeof(float)));
  cudaStream_t a, b, c;
  CUDA_CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&c, cudaStreamNonBlocking));
  cudaEvent_t start, dep, b_waited, b_end, c_end;
  for (cudaEvent_t* e : {&start, &dep, &b_waited, &b_end, &c_end})
    CUDA_CHECK(cudaEventCreate(e));

  CUDA_CHECK(cudaEventRecord(start, a));
  wait_long<<<1, 32, 0, a>>>(x);
  CUDA_CHECK(cudaEventRecord(dep, a));
  const int bad_flags = static_cast<int>(cudaStreamWaitEvent(b, dep, 0x4));
  (void)cudaGetLastError();
  const int wait_err = static_cast<int>(cudaStreamWaitEvent(b, dep, 0));
  const int dep_at_return = static_cast<int>(cudaEventQuery(dep));
  CUDA_CHECK(cudaEventRecord(b_waited, b));
  wait_short<<<1, 32, 0, b>>>(x);
  const int b_at_launch = static_cast<int>(cudaStreamQuery(b));
  CUDA_CHECK(cudaEventRecord(b_end, b));
  CUDA_CHECK(cudaStreamWaitEvent(c, b_waited, 0));
  wait_tiny<<<1, 32, 0, c>>>(x);
  CUDA_CHECK(cudaEventRecord(c_end, c));
  CUDA_CHECK(cudaEventSynchronize(b_end));
  CUDA_CHECK(cudaEventSynchronize(c_end));
  std::printf("bad_flags=%d\nwait_err=%d\ndep_at_return=%d\nb_at_launch=%d\n",
              bad_flags, wait_err, dep_at_return, b_at_launch);
  std::printf("after_dep_ms=%.3f\nchain_ms=%.3f\nc_chain_ms=%.3f\n",
              Ms(dep, b_end), Ms(start, b_end), Ms(start, c_end));

  // An event on the legacy default stream stands for every launch before it.
  cudaEvent_t legacy_start, legacy, legacy_end;
  for (cudaEvent_t* e : {&legacy_start, &legacy, &legacy_end})
    CUDA_CHECK(cudaEventCreate(e));
  CUDA_CHECK(cudaEventRecord(legacy_start, a));
  wait_long<<<1, 32, 0, a>>>(x);
  CUDA_CHECK(cudaEventRecord(legacy, cudaStreamLegacy));
  CUDA_CHECK(cudaStreamWaitEvent(b, legacy, 0));
  wait_short<<<1, 32, 0, b>>>(x);
  CUDA_CHECK(cudaEventRecord(legacy_end, b));
  CUDA_CHECK(cudaStreamSynchronize(b));
  std::printf("legacy_chain_ms=%.3f\n", Ms(legacy_start, legacy_end));

  // Waiting for what has already happened holds nothing.
  cudaEvent_t done_start, done_end;
  CUDA_CHECK(cudaEventCreate(&done_start));
  CUDA_CHECK(cudaEventCreate(&done_end));
  CUDA_CHECK(cudaEventRecord(done_start, b));
  const int done_wait_err = static_cast<int>(cudaStreamWaitEvent(b, dep, 0));
  wait_short<<<1, 32, 0, b>>>(x);
  CUDA_CHECK(cudaEventRecord(done_end, b));
  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("done_wait_err=%d\ndone_wait_ms=%.3f\n", done_wait_err,
              Ms(done_start, done_end));

  cudaStream_t s1, s2, n;
  CUDA_CHECK(cudaStreamCreate(&s1));
  CUDA_CHECK(cudaStreamCreate(&s2));
  CUDA_CHECK(cudaStreamCreateWithFlags(&n, cudaStreamNonBlocking));
  cudaEvent_t l_start, s2_end, n_end;
  for (cudaEvent_t* e : {&l_start, &s2_end, &n_end})
    CUDA_CHECK(cudaEventCreate(e));
  CUDA_CHECK(cudaEventRecord(l_start, s1));
  wait_long<<<1, 32, 0, s1>>>(x);
  wait_short<<<1, 32, 0, cudaStreamLegacy>>>(x);
  wait_tiny<<<1, 32, 0, s2>>>(x);
  CUDA_CHECK(cudaEventRecord(s2_end, s2));
  wait_tiny<<<1, 32, 0, n>>>(x);
  CUDA_CHECK(cudaEventRecord(n_end, n));
  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("blocking_chain_ms=%.3f\nnonblocking_ms=%.3f\n",
              Ms(l_start, s2_end), Ms(l_start, n_end));
  std::fflush(stdout);
  return 0;
}
