// A memset and a copy of a __device__ variable, which needs no allocation
// (so no colod) to exist. Prints key=value lines: "address" (what
// cudaGetSymbolAddress returned), "memset_async" (cudaMemsetAsync of the
// variable's address), "to_symbol" (cudaMemcpyToSymbol). Without colod the
// last two are errors (46, cudaErrorDevicesUnavailable), not a crash.
#include <cuda_runtime.h>

#include <cstdio>

__device__ int symbol_counter[256];

int main() {
  void* p = nullptr;
  std::printf("address=%d\n",
              static_cast<int>(cudaGetSymbolAddress(&p, symbol_counter)));
  std::printf("memset_async=%d\n", static_cast<int>(cudaMemsetAsync(
                                       p, 0, sizeof(symbol_counter), nullptr)));
  int host[256] = {};
  std::printf("to_symbol=%d\n", static_cast<int>(cudaMemcpyToSymbol(
                                    symbol_counter, host, sizeof(host))));
  return 0;
}
