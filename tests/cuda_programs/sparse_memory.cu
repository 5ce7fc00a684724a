// Sim mode's device memory takes host memory only where the program writes
// it: allocates argv[1] GiB with cudaMalloc, clears it all with cudaMemset
// and cudaMemsetAsync, writes and reads back a few MiB in the middle, and
// reports the process's resident memory.
// Prints key=value lines: "alloc", "memset", "memset_async", "free" (each
// call's cudaError_t); "round_trip" (1 if 4 MiB written in the middle read
// back the same); "set_seven" (1 if a 3-page memset to 7 that starts and
// ends inside pages reads back as 7s, its neighbours 0); "cleared" (1 if
// the 7s read 0 after a memset to zero over them); "rss_mib" (VmRSS after
// all that, before the free).
// Exits 3 on an unexpected CUDA error of the set-up calls.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda_check.h"

static long RssMib() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::strncmp(line, "VmRSS:", 6) == 0) kib = std::atol(line + 6);
  }
  std::fclose(f);
  return kib < 0 ? -1 : kib / 1024;
}

int main(int argc, char** argv) {
  const size_t gib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1;
  const size_t bytes = gib << 30;
  char* d = nullptr;
  const cudaError_t a = cudaMalloc(&d, bytes);
  std::printf("alloc=%d\n", (int)a);
  if (a != cudaSuccess) return 0;
  std::printf("memset=%d\n", (int)cudaMemset(d, 0, bytes));
  std::printf("memset_async=%d\n", (int)cudaMemsetAsync(d, 0, bytes, 0));
  CUDA_CHECK(cudaStreamSynchronize(0));

  constexpr size_t kChunk = 4 << 20;
  std::vector<unsigned char> in(kChunk), out(kChunk);
  for (size_t i = 0; i < kChunk; ++i)
    in[i] = static_cast<unsigned char>(i * 7 + 1);
  char* middle = d + bytes / 2;
  CUDA_CHECK(cudaMemcpy(middle, in.data(), kChunk, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(out.data(), middle, kChunk, cudaMemcpyDeviceToHost));
  std::printf("round_trip=%d\n", in == out);

  // 3 pages' worth, from 100 bytes into a page: partial pages at both ends.
  char* seven = d + 8192 + 100;
  const size_t n = 3 * 4096;
  CUDA_CHECK(cudaMemset(seven, 7, n));
  std::vector<unsigned char> back(n + 200);
  CUDA_CHECK(cudaMemcpy(back.data(), seven - 100, back.size(),
                        cudaMemcpyDeviceToHost));
  bool ok = true;
  for (size_t i = 0; i < back.size(); ++i)
    ok &= back[i] == (i >= 100 && i < 100 + n ? 7 : 0);
  std::printf("set_seven=%d\n", ok);
  CUDA_CHECK(cudaMemset(d, 0, 8 * 4096));
  CUDA_CHECK(cudaMemcpy(back.data(), seven - 100, back.size(),
                        cudaMemcpyDeviceToHost));
  ok = true;
  for (unsigned char c : back) ok &= c == 0;
  std::printf("cleared=%d\n", ok);

  std::printf("rss_mib=%ld\n", RssMib());
  std::printf("free=%d\n", (int)cudaFree(d));
  return 0;
}
