// fake_cudart's runtime functions that the interposer does not hook, for
// tests/shim/runtime_stubs_program.cc: each answers from exactly the
// arguments it received, so a forwarding stub that lost or moved one (a
// register or a stack slot) shows as a wrong answer.
//
//   cudaMemcpy2DArrayToArray: 0 if its nine arguments are 0x1001, 2, 3,
//     0x1004, 5, 6, 7, 8 and 3 (cudaMemcpyDeviceToDevice; the last three
//     travel on the stack), else cudaErrorInvalidValue (1); nothing copied.
//   cudaMemcpy2DToArrayAsync: 0; nothing copied.
//   cudaIpcGetMemHandle: writes "fake_cudart ipc handle" into the handle
//     and returns 0 (a null handle: 1).
//   cudaGetErrorString: "fake_cudart: error <code>" (in a buffer of the
//     calling thread's, valid until its next call).
#include <cstddef>
#include <cstdio>
#include <cstring>

namespace {

constexpr int kInvalidValue = 1;  // cudaErrorInvalidValue

bool Is(const void* p, unsigned long value) {
  return reinterpret_cast<unsigned long>(p) == value;
}

}  // namespace

extern "C" {

struct IpcHandle {  // cudaIpcMemHandle_t
  char reserved[64];
};

int cudaMemcpy2DArrayToArray(void* dst, size_t w_offset_dst,
                             size_t h_offset_dst, const void* src,
                             size_t w_offset_src, size_t h_offset_src,
                             size_t width, size_t height, int kind) {
  const bool as_sent = Is(dst, 0x1001) && w_offset_dst == 2 &&
                       h_offset_dst == 3 && Is(src, 0x1004) &&
                       w_offset_src == 5 && h_offset_src == 6 && width == 7 &&
                       height == 8 && kind == 3;
  return as_sent ? 0 : kInvalidValue;
}

int cudaMemcpy2DToArrayAsync(void*, size_t, size_t, const void*, size_t, size_t,
                             size_t, int, void*) {
  return 0;
}

int cudaIpcGetMemHandle(IpcHandle* handle, void* dev_ptr) {
  (void)dev_ptr;
  if (handle == nullptr) return kInvalidValue;
  std::memset(handle->reserved, 0, sizeof(handle->reserved));
  std::strcpy(handle->reserved, "fake_cudart ipc handle");
  return 0;
}

const char* cudaGetErrorString(int error) {
  static thread_local char text[64];
  std::snprintf(text, sizeof(text), "fake_cudart: error %d", error);
  return text;
}

}  // extern "C"
