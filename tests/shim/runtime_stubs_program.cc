// CUDA runtime functions the interposer does not hook (its generated stubs,
// src/shim/runtime_stubs.cc), called as a program would, printing
// "name=value" lines for tests/shim/runtime_stubs_test.cc. Linked with
// tests/shim/fake_cudart, whose cudaMemcpy2DArrayToArray answers 0 only for
// the nine arguments sent here, and whose cudaIpcGetMemHandle and
// cudaMemcpy2DToArrayAsync (which takes a stream) answer 0
// (fake_cudart_unhooked.cc). No CUDA headers:
// the types are stand-ins of the same size.
#include <cstddef>
#include <cstdio>

extern "C" {
struct IpcHandle {  // cudaIpcMemHandle_t
  char reserved[64];
};
int cudaMalloc(void** p, size_t n);
int cudaFree(void* p);
int cudaGetLastError();
int cudaIpcGetMemHandle(IpcHandle* handle, void* dev_ptr);
int cudaMemcpy2DArrayToArray(void* dst, size_t w_offset_dst,
                             size_t h_offset_dst, const void* src,
                             size_t w_offset_src, size_t h_offset_src,
                             size_t width, size_t height, int kind);
int cudaMemcpy2DToArrayAsync(void* dst, size_t w_offset, size_t h_offset,
                             const void* src, size_t spitch, size_t width,
                             size_t height, int kind, void* stream);
const char* cudaGetErrorString(int error);
}

namespace {

void* Address(unsigned long a) { return reinterpret_cast<void*>(a); }

int ArrayCopy() {
  return cudaMemcpy2DArrayToArray(Address(0x1001), 2, 3, Address(0x1004), 5, 6,
                                  7, 8, /*cudaMemcpyDeviceToDevice=*/3);
}

}  // namespace

int main() {
  void* d = nullptr;
  std::printf("malloc=%d\n", cudaMalloc(&d, 4096));
  IpcHandle h{};
  std::printf("ipc=%d\n", cudaIpcGetMemHandle(&h, d));
  std::printf("ipc_handle=%s\n", h.reserved[0] != 0 ? h.reserved : "(none)");
  std::printf("ipc_again=%d\n", cudaIpcGetMemHandle(&h, d));
  std::printf("last_error=%d\n", cudaGetLastError());
  std::printf("last_error_cleared=%d\n", cudaGetLastError());
  std::printf("array_copy=%d\n", ArrayCopy());
  std::printf("array_copy_again=%d\n", ArrayCopy());
  std::printf(
      "array_copy_async=%d\n",
      cudaMemcpy2DToArrayAsync(Address(0x1001), 0, 0, Address(0x1004), 16, 16,
                               1, /*cudaMemcpyHostToDevice=*/1, nullptr));
  std::printf("error_string=%s\n", cudaGetErrorString(801));
  std::printf("free=%d\n", cudaFree(d));
  return 0;
}
