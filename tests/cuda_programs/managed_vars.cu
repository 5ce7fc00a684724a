// `__managed__` variables in an unmodified program: one with an initializer,
// one without, read and written by the host around a kernel launch, then
// prefetched and asked about. Prints key=value lines: "initialized" (the
// initializer's values, summed: 5 + 6 + 7 + 8 = 26), "zeroed" (the other's,
// summed: 0), "written" (1 if a host write reads back), "sync",
// "prefetch", "pointer_attr" (each call's cudaError_t), "pointer_type" (3:
// managed), "same_storage" (1 if a second access reaches the same memory).
#include <cuda_runtime.h>

#include <cstdio>

__managed__ int seeded[4] = {5, 6, 7, 8};
__managed__ long plain[256];

__global__ void touch_managed() {
  seeded[threadIdx.x % 4] += 1;
  plain[threadIdx.x] = threadIdx.x;
}

int main() {
  std::printf("initialized=%d\n", seeded[0] + seeded[1] + seeded[2] + seeded[3]);
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
  return 0;
}
