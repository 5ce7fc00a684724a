// Every way to device memory the interposer counts or refuses besides
// cudaMalloc, called as a program would (directly, and through
// cuGetProcAddress and cudaGetDriverEntryPoint), printing "name=value"
// lines for tests/runtime/gate_memory_test.cc. Linked with
// tests/shim/fake_cudart, which grants every call (so each refusal or
// over-limit answer is the interposer's); run under libcolo_preload.so
// against a colod with an 8 MiB limit. No CUDA headers: the types are
// stand-ins of the same size.
#include <cstddef>
#include <cstdio>

extern "C" {
struct Extent {
  size_t width, height, depth;
};
struct IpcHandle {
  char reserved[64];
};
int cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);
int cuMemFree_v2(unsigned long long d);
int cuMemAllocManaged(unsigned long long* d, size_t n, unsigned flags);
int cuMemAllocPitch_v2(unsigned long long* d, size_t* pitch, size_t width,
                       size_t height, unsigned element_bytes);
int cuMemAllocAsync(unsigned long long* d, size_t n, void* stream);
int cuMemFreeAsync(unsigned long long d, void* stream);
int cuMemCreate(unsigned long long* h, size_t n, const void* prop,
                unsigned long long flags);
int cuMemAddressReserve(unsigned long long* d, size_t n, size_t align,
                        unsigned long long addr, unsigned long long flags);
int cuMemImportFromShareableHandle(unsigned long long* h, void* os, int type);
int cuMemPoolCreate(void** pool, const void* props);
int cuDeviceGetDefaultMemPool(void** pool, int device);
int cuMemAllocFromPoolAsync(unsigned long long* d, size_t n, void* pool,
                            void* stream);
int cuIpcOpenMemHandle_v2(unsigned long long* d, IpcHandle h, unsigned flags);
int cudaIpcOpenMemHandle(void** p, IpcHandle h, unsigned flags);
int cudaMallocArray(void** a, const void* desc, size_t w, size_t h,
                    unsigned flags);
int cudaMalloc3DArray(void** a, const void* desc, Extent e, unsigned flags);
int cudaMallocMipmappedArray(void** a, const void* desc, Extent e,
                             unsigned levels, unsigned flags);
int cuArrayCreate_v2(void** a, const void* desc);
int cuArray3DCreate_v2(void** a, const void* desc);
int cuMipmappedArrayCreate(void** a, const void* desc, unsigned levels);
int cudaGraphAddMemAllocNode(void** node, void* graph, void* const* deps,
                             size_t n, void* params);
int cuGraphAddMemAllocNode(void** node, void* graph, void* const* deps,
                           size_t n, void* params);
int cuDeviceGetAttribute(int* value, int attr, int device);
int cuGetProcAddress_v2(const char* symbol, void** fn, int version,
                        unsigned long long flags, int* status);
int cudaGetDriverEntryPoint(const char* symbol, void** fn,
                            unsigned long long flags, int* status);
}

namespace {

constexpr size_t kKiB = 1024, kMiB = 1024 * 1024;

long FreeMemory() {
  size_t free_bytes = 0, total = 0;
  return cudaMemGetInfo(&free_bytes, &total) == 0
             ? static_cast<long>(free_bytes)
             : -1;
}

void Print(const char* name, long value) {
  std::printf("%s=%ld\n", name, value);
}

}  // namespace

int main() {
  unsigned long long d = 0, big = 0;
  size_t pitch = 0;
  // Counted: managed (4 MiB held), then pitched on top of it.
  Print("managed", cuMemAllocManaged(&d, 4 * kMiB, 1));
  Print("managed_free", FreeMemory());
  Print("managed_big", cuMemAllocManaged(&big, 16 * kMiB, 1));
  // 5120 rows of 1000 bytes, padded to 1024: 5 MiB, over the 4 MiB left.
  Print("pitch_over", cuMemAllocPitch_v2(&big, &pitch, 1000, 5120, 4));
  Print("managed_freed", cuMemFree_v2(d));
  Print("pitch", cuMemAllocPitch_v2(&d, &pitch, 1000, 2048, 4));
  Print("pitch_bytes", static_cast<long>(pitch));
  Print("pitch_free", FreeMemory());
  Print("pitch_freed", cuMemFree_v2(d));
  Print("async", cuMemAllocAsync(&d, 2 * kMiB, nullptr));
  Print("async_free", FreeMemory());
  Print("async_big", cuMemAllocAsync(&big, 16 * kMiB, nullptr));
  Print("async_freed", cuMemFreeAsync(d, nullptr));
  // Refused: virtual memory, pools, IPC imports, arrays, graph memory nodes.
  void* h = nullptr;
  Print("vmm_create", cuMemCreate(&d, 2 * kMiB, nullptr, 0));
  Print("vmm_reserve", cuMemAddressReserve(&d, 2 * kMiB, 0, 0, 0));
  Print("vmm_import", cuMemImportFromShareableHandle(&d, nullptr, 1));
  Print("pool_create", cuMemPoolCreate(&h, nullptr));
  Print("pool_default", cuDeviceGetDefaultMemPool(&h, 0));
  Print("pool_alloc", cuMemAllocFromPoolAsync(&d, kKiB, &h, nullptr));
  IpcHandle ipc{};
  Print("ipc_driver", cuIpcOpenMemHandle_v2(&d, ipc, 1));
  Print("ipc_runtime", cudaIpcOpenMemHandle(&h, ipc, 1));
  const int desc[8] = {32, 0, 0, 0, 2, 0, 0, 0};
  const Extent e{64, 64, 4};
  Print("array", cudaMallocArray(&h, desc, 64, 64, 0));
  Print("array_3d", cudaMalloc3DArray(&h, desc, e, 0));
  Print("array_mipmapped", cudaMallocMipmappedArray(&h, desc, e, 3, 0));
  Print("array_driver", cuArrayCreate_v2(&h, desc));
  Print("array_3d_driver", cuArray3DCreate_v2(&h, desc));
  Print("array_mipmapped_driver", cuMipmappedArrayCreate(&h, desc, 3));
  Print("graph_mem_node", cudaGraphAddMemAllocNode(&h, &h, nullptr, 0, &h));
  Print("graph_mem_node_driver",
        cuGraphAddMemAllocNode(&h, &h, nullptr, 0, &h));
  // CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED.
  int vmm = -1;
  Print("vmm_attr_error", cuDeviceGetAttribute(&vmm, 102, 0));
  Print("vmm_attr", vmm);
  // The same entry points found by name.
  using Create =
      int (*)(unsigned long long*, size_t, const void*, unsigned long long);
  using Managed = int (*)(unsigned long long*, size_t, unsigned);
  using Ipc = int (*)(unsigned long long*, IpcHandle, unsigned);
  void* fn = nullptr;
  int status = 0;
  if (cuGetProcAddress_v2("cuMemCreate", &fn, 13000, 0, &status) == 0)
    Print("proc_vmm_create",
          reinterpret_cast<Create>(fn)(&d, 2 * kMiB, nullptr, 0));
  if (cuGetProcAddress_v2("cuMemAllocManaged", &fn, 13000, 0, &status) == 0)
    Print("proc_managed_big",
          reinterpret_cast<Managed>(fn)(&big, 16 * kMiB, 1));
  fn = nullptr;
  Print("proc_ipc_found",
        cuGetProcAddress_v2("cuIpcOpenMemHandle", &fn, 13000, 0, &status));
  if (fn != nullptr) Print("proc_ipc", reinterpret_cast<Ipc>(fn)(&d, ipc, 1));
  if (cudaGetDriverEntryPoint("cuMemCreate", &fn, 0, &status) == 0)
    Print("entry_vmm_create",
          reinterpret_cast<Create>(fn)(&d, 2 * kMiB, nullptr, 0));
  Print("end_free", FreeMemory());
  return 0;
}
