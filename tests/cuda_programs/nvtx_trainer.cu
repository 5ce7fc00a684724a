// A training loop that marks each iteration with an NVTX range, as
// PyTorch's and Megatron's loops do (NVTX v3, header-only), and
// synchronizes a different number of times than it iterates:
//   EARLY ranges named RANGE before its first CUDA call (host-side
//     warm-up: no CUDA call in them);
//   a top-level "setup" range (nvtxRangePushA, the default domain) around
//     its allocations and one cudaStreamSynchronize;
//   ITERATIONS ranges named RANGE (default "train_step"), each holding a
//     nested "forward" range and KERNELS nvtx_step kernels in SYNCS groups,
//     each group ended by cudaStreamSynchronize, and HOST_US microseconds
//     of host work (a sleep) after each kernel;
//   one cudaDeviceSynchronize after the loop.
// So it makes 1 + ITERATIONS x SYNCS + 1 synchronizing calls and
// EARLY + ITERATIONS ranges named RANGE (EARLY + ITERATIONS + 1 top-level
// ranges of the default domain in the form push).
// FORM says how the RANGE and "forward" ranges are marked:
//   push (default): nvtxRangePushA / nvtxRangePop, the default domain;
//   domain: nvtxDomainRangePushEx / nvtxDomainRangePop in the domain
//     "colo_trainer", named by registered strings
//     (nvtxDomainRegisterStringA);
//   start: nvtxRangeStartA / nvtxRangeEnd, the default domain (unnested
//     ranges: ids, no stack);
//   domain-start: nvtxDomainRangeStartEx / nvtxDomainRangeEnd in
//     "colo_trainer", ASCII names.
// Usage: nvtx_trainer ITERATIONS KERNELS SYNCS HOST_US [RANGE [FORM [EARLY]]]
// Prints "iterations=N syncs=S early=E" at the end. Exits 3 on a CUDA
// error (cuda_check.h), 2 on bad arguments.
#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_check.h"

__global__ void nvtx_step(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * 0.5f + 1.0f;
}

enum class Form { kPush, kDomain, kStart, kDomainStart };

// Opens and closes ranges in one FORM.
class Marker {
 public:
  explicit Marker(Form form) : form_(form) {
    if (form_ == Form::kDomain || form_ == Form::kDomainStart)
      domain_ = nvtxDomainCreateA("colo_trainer");
  }
  // Opens a range named `name`; returns what Close takes (an id for the
  // unnested forms).
  nvtxRangeId_t Open(const char* name) {
    nvtxEventAttributes_t a = {};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    switch (form_) {
      case Form::kPush:
        nvtxRangePushA(name);
        return 0;
      case Form::kDomain:
        a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
        a.message.registered = nvtxDomainRegisterStringA(domain_, name);
        nvtxDomainRangePushEx(domain_, &a);
        return 0;
      case Form::kStart:
        return nvtxRangeStartA(name);
      case Form::kDomainStart:
        a.messageType = NVTX_MESSAGE_TYPE_ASCII;
        a.message.ascii = name;
        return nvtxDomainRangeStartEx(domain_, &a);
    }
    return 0;
  }
  // Closes the innermost range (push forms) or range `id`.
  void Close(nvtxRangeId_t id) {
    switch (form_) {
      case Form::kPush:
        nvtxRangePop();
        break;
      case Form::kDomain:
        nvtxDomainRangePop(domain_);
        break;
      case Form::kStart:
        nvtxRangeEnd(id);
        break;
      case Form::kDomainStart:
        nvtxDomainRangeEnd(domain_, id);
        break;
    }
  }

 private:
  Form form_;
  nvtxDomainHandle_t domain_ = nullptr;
};

bool ParseForm(const char* s, Form* form) {
  const struct {
    const char* name;
    Form form;
  } kForms[] = {{"push", Form::kPush},
                {"domain", Form::kDomain},
                {"start", Form::kStart},
                {"domain-start", Form::kDomainStart}};
  for (const auto& f : kForms) {
    if (std::strcmp(s, f.name) == 0) {
      *form = f.form;
      return true;
    }
  }
  return false;
}

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: nvtx_trainer ITERATIONS KERNELS SYNCS HOST_US "
                 "[RANGE [push|domain|start|domain-start [EARLY]]]\n");
    return 2;
  }
  const int iterations = std::atoi(argv[1]);
  const int kernels = std::atoi(argv[2]);
  const int syncs = std::atoi(argv[3]);
  const int host_us = std::atoi(argv[4]);
  const char* range = argc > 5 ? argv[5] : "train_step";
  Form form = Form::kPush;
  if (argc > 6 && !ParseForm(argv[6], &form)) {
    std::fprintf(stderr,
                 "nvtx_trainer: FORM must be push, domain, start or "
                 "domain-start, not '%s'\n",
                 argv[6]);
    return 2;
  }
  const int early = argc > 7 ? std::atoi(argv[7]) : 0;
  if (iterations < 0 || kernels < 1 || syncs < 1 || syncs > kernels ||
      host_us < 0 || early < 0) {
    std::fprintf(stderr,
                 "nvtx_trainer: need SYNCS in [1, KERNELS], counts >= 0\n");
    return 2;
  }
  Marker marker(form);
  for (int i = 0; i < early; ++i) marker.Close(marker.Open(range));
  int synced = 0;
  nvtxRangePushA("setup");
  float* w = nullptr;
  float* a = nullptr;
  CUDA_CHECK(cudaMalloc(&w, size_t{10} << 20));
  CUDA_CHECK(cudaMalloc(&a, size_t{5} << 20));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  ++synced;
  nvtxRangePop();
  const int n = 1 << 16;
  for (int it = 0; it < iterations; ++it) {
    const nvtxRangeId_t step = marker.Open(range);
    const nvtxRangeId_t forward = marker.Open("forward");
    for (int k = 0; k < kernels; ++k) {
      nvtx_step<<<n / 256, 256, 0, s>>>(a, n);
      CUDA_CHECK(cudaGetLastError());
      if (host_us > 0) usleep(host_us);
      // SYNCS groups spread evenly: a group ends after kernel k where
      // floor((k + 1) * SYNCS / KERNELS) steps up (SYNCS times, the last
      // at k = KERNELS - 1).
      const int group = (k + 1) * syncs / kernels;
      const int before = k * syncs / kernels;
      if (group != before) {
        CUDA_CHECK(cudaStreamSynchronize(s));
        ++synced;
      }
    }
    marker.Close(forward);
    marker.Close(step);
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  ++synced;
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(a));
  CUDA_CHECK(cudaFree(w));
  std::printf("iterations=%d syncs=%d early=%d\n", iterations, synced, early);
  return 0;
}
