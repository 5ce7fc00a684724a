// `__managed__` variables in an unmodified program: one with an initializer,
// one without, read and written by the host around a kernel launch, then
// prefetched and asked about. Prints key=value lines: "initialized" (the
// initializer's values, summed: 5 + 6 + 7 + 8 = 26), "zeroed" (the other's,
// summed: 0), "written" (1 if a host write reads back), "sync",
// "prefetch", "pointer_attr" (each call's cudaError_t), "pointer_type" (3:
// managed), "same_storage" (1 if a second access reaches the same memory).
// Then the variables as symbols: "to_symbol", "from_symbol", "address",
// "size_call" (each call's cudaError_t), "symbol_round_trip" (1 if the copies
// wrote and read the variable), "address_is_storage" (1 if the symbol's
// address is the variable's), "symbol_size" (16), "free_variable" (cudaFree
// of its storage: 1, not the program's), "device_reset" and "after_reset" (1 if
// the variable is still there to write and read after cudaDeviceReset).
#include <cuda_runtime.h>

#include <cstdio>

__managed__ int seeded[4] = {5, 6, 7, 8};
__managed__ long plain[256];

__global__ void touch_managed() {
  seeded[threadIdx.x % 4] += 1;
  plain[threadIdx.x] = threadIdx.x;
}

int main() {
  std::printf("initialized=%d\n",
              seeded[0] + seeded[1] + seeded[2] + seeded[3]);
  long sum = 0;
  for (long v : plain) sum += v;
  std::printf("zeroed=%ld\n", sum);
  plain[17] = 1234;
  std::printf("written=%d\n", plain[17] == 1234);
  touch_managed<<<1, 256>>>();
  std::printf("sync=%d\n", (int)cudaDeviceSynchronize());
  cudaMemLocation device0 = {};
  device0.type = cudaMemLocationTypeDevice;
  device0.id = 0;
  std::printf("prefetch=%d\n",
              (int)cudaMemPrefetchAsync(plain, sizeof(plain), device0, 0, 0));
  cudaPointerAttributes attr = {};
  const cudaError_t err = cudaPointerGetAttributes(&attr, seeded);
  std::printf("pointer_attr=%d\npointer_type=%d\n", (int)err, (int)attr.type);
  int* first = &seeded[0];
  int* again = &seeded[0];
  std::printf("same_storage=%d\n", first == again && plain[17] == 1234);

  const int values[4] = {40, 41, 42, 43};
  std::printf("to_symbol=%d\n",
              (int)cudaMemcpyToSymbol(seeded, values, sizeof(values)));
  int back[2] = {0, 0};
  std::printf(
      "from_symbol=%d\n",
      (int)cudaMemcpyFromSymbol(back, seeded, sizeof(back), 2 * sizeof(int)));
  std::printf("symbol_round_trip=%d\n",
              seeded[0] == 40 && back[0] == 42 && back[1] == 43);
  void* address = nullptr;
  std::printf("address=%d\n", (int)cudaGetSymbolAddress(&address, seeded));
  std::printf("address_is_storage=%d\n",
              address == static_cast<void*>(&seeded[0]));
  size_t size = 0;
  std::printf("size_call=%d\n", (int)cudaGetSymbolSize(&size, seeded));
  std::printf("symbol_size=%zu\n", size);
  std::printf("free_variable=%d\n", (int)cudaFree(&seeded[0]));
  (void)cudaGetLastError();
  std::printf("device_reset=%d\n", (int)cudaDeviceReset());
  plain[3] = 77;
  std::printf("after_reset=%d\n", plain[3] == 77);
  return 0;
}
