// The allocation calls of fake_cudart (fake_cudart.cc) beyond cudaMalloc,
// and a few driver entry points, for tests/shim/gate_memory_program: each
// hands out host memory (or a token handle) and succeeds, as a real GPU with
// memory to spare would, so that whatever limits the program is the
// interposer and colod, never this library. Pools and arrays are tokens;
// nothing is ever freed but what the free calls name.
#include <dlfcn.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace {

int g_token = 0;

int HostMemory(void** p, size_t n) {
  *p = std::calloc(1, n != 0 ? n : 1);
  return *p != nullptr ? 0 : 2;
}

int HostMemory(unsigned long long* d, size_t n) {
  void* p = nullptr;
  const int err = HostMemory(&p, n);
  *d = reinterpret_cast<unsigned long long>(p);
  return err;
}

}  // namespace

extern "C" {

struct FakeExtent {
  size_t width, height, depth;
};
struct FakeIpcHandle {
  char reserved[64];
};

int cudaMallocManaged(void** p, size_t n, unsigned) { return HostMemory(p, n); }
int cuMemAlloc_v2(unsigned long long* d, size_t n) { return HostMemory(d, n); }
int cuMemFree_v2(unsigned long long d) {
  std::free(reinterpret_cast<void*>(d));
  return 0;
}
int cuMemAllocManaged(unsigned long long* d, size_t n, unsigned) {
  return HostMemory(d, n);
}
int cuMemAllocPitch_v2(unsigned long long* d, size_t* pitch, size_t width,
                       size_t height, unsigned) {
  *pitch = (width + 511) / 512 * 512;
  return HostMemory(d, *pitch * height);
}
int cuMemAllocAsync(unsigned long long* d, size_t n, void*) {
  return HostMemory(d, n);
}
int cuMemFreeAsync(unsigned long long d, void*) { return cuMemFree_v2(d); }
int cuMemCreate(unsigned long long* h, size_t, const void*,
                unsigned long long) {
  *h = 1;
  return 0;
}
int cuMemAddressReserve(unsigned long long* d, size_t n, size_t,
                        unsigned long long, unsigned long long) {
  return HostMemory(d, n);
}
int cuMemImportFromShareableHandle(unsigned long long* h, void*, int) {
  *h = 1;
  return 0;
}
int cuMemPoolCreate(void** pool, const void*) {
  *pool = &g_token;
  return 0;
}
int cuDeviceGetDefaultMemPool(void** pool, int) {
  *pool = &g_token;
  return 0;
}
int cuMemAllocFromPoolAsync(unsigned long long* d, size_t n, void*, void*) {
  return HostMemory(d, n);
}
int cuIpcOpenMemHandle_v2(unsigned long long* d, FakeIpcHandle, unsigned) {
  return HostMemory(d, 1 << 20);
}
int cudaIpcOpenMemHandle(void** p, FakeIpcHandle, unsigned) {
  return HostMemory(p, 1 << 20);
}
int cudaMallocArray(void** a, const void*, size_t, size_t, unsigned) {
  *a = &g_token;
  return 0;
}
int cudaMalloc3DArray(void** a, const void*, FakeExtent, unsigned) {
  *a = &g_token;
  return 0;
}
int cudaMallocMipmappedArray(void** a, const void*, FakeExtent, unsigned,
                             unsigned) {
  *a = &g_token;
  return 0;
}
int cuArrayCreate_v2(void** a, const void*) {
  *a = &g_token;
  return 0;
}
int cuArray3DCreate_v2(void** a, const void*) {
  *a = &g_token;
  return 0;
}
int cuMipmappedArrayCreate(void** a, const void*, unsigned) {
  *a = &g_token;
  return 0;
}
int cudaGraphAddMemAllocNode(void** node, void*, void* const*, size_t, void*) {
  *node = &g_token;
  return 0;
}
int cuGraphAddMemAllocNode(void** node, void*, void* const*, size_t, void*) {
  *node = &g_token;
  return 0;
}
// Every attribute reads 1 (virtual memory management included).
int cuDeviceGetAttribute(int* value, int, int) {
  *value = 1;
  return 0;
}
// The entry points by name, from this library.
int cuGetProcAddress_v2(const char* symbol, void** fn, int, unsigned long long,
                        int* status) {
  *fn = dlsym(RTLD_DEFAULT, symbol);
  if (status != nullptr) *status = *fn != nullptr ? 0 : 1;
  return *fn != nullptr ? 0 : 500;
}

int cudaGetDriverEntryPoint(const char* symbol, void** fn, unsigned long long,
                            int* status) {
  *fn = dlsym(RTLD_DEFAULT, symbol);
  if (status != nullptr) *status = *fn != nullptr ? 0 : 1;
  return *fn != nullptr ? 0 : 500;
}

}  // extern "C"
