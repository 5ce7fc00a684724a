// libcolo_preload.so's definitions of the CUDA runtime's functions that the
// hook table (hook_table.h) does not hook, so that no runtime call reaches
// the real runtime unseen. The list is generated at build time from the
// toolkit's libcudart.so, less the hooked symbols and nvcc's registration
// entry points (runtime_stub_symbols.cmake); a hook added to the table
// removes its stub. The definitions are weak as well, so that a strong one
// elsewhere in the library wins at link time.
//
// COLO_RUNTIME_STUB(name), a function that returns cudaError_t:
//   * sim mode: the call is refused: announced once per process and call
//     (AnnounceRefused: a line on stderr naming the call, and colod counts
//     it), it returns cudaErrorNotSupported (801), and that is the thread's
//     last error, as for any failed call. colod unreachable: the error that
//     says so (cudaErrorDevicesUnavailable, said once), as for every call
//     that needs colod.
//   * gate mode: once every kernel launched so far has been issued to the
//     real runtime (so the call comes after them, as CUDA orders it), the
//     real runtime's function runs with the program's arguments unchanged,
//     its answer the call's; where the real runtime has no such function,
//     cudaErrorSharedObjectSymbolNotFound.
//   * pass-through (COLO_SHIM_PASSTHROUGH), or a call made from inside the
//     interposer: the real runtime's function, at once.
// COLO_RUNTIME_REFUSED(name), a function that returns cudaError_t and takes
// a cudaStream_t or cudaEvent_t: as above, but refused in gate mode too
// (801, announced): there the program's streams and events are the
// interposer's objects, which the real runtime does not know.
// COLO_RUNTIME_FORWARDED(name), the functions that answer without a device
// and do not all return cudaError_t (cudaGetErrorName, cudaGetErrorString:
// const char*; cudaCreateChannelDesc: the struct cudaChannelFormatDesc;
// cudaRuntimeGetVersion): the real runtime's in every mode. Should the real
// runtime not be found, the error texts read "unrecognized error code (the
// CUDA runtime was not found)", the channel description is built from the
// arguments, and cudaRuntimeGetVersion returns
// cudaErrorSharedObjectSymbolNotFound.
//
// Since a generator does not know the functions' signatures, each is an
// x86-64 trampoline: it jumps to the real function once that is known to be
// the answer to every later call (a forwarded function, pass-through), else
// saves the argument registers (rdi, rsi, rdx, rcx, r8, r9, rax, xmm0-7),
// asks colo_runtime_stub_resolve, restores them and jumps to the function
// it names, or returns the error it gives. Arguments on the stack are never
// touched. Built only for x86-64 (src/shim/CMakeLists.txt).
//
// Thread safety: every function may be called from any thread; the kept
// target is an atomic pointer, and resolution takes the interposer's mutex
// (InterposerState::mu) for the mode and, in gate mode, while it waits for
// the launches to be issued.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cuda/cuda_abi.h"
#include "shim/hook_table.h"
#include "shim/shim_state.h"

#if !defined(__x86_64__)
#error "runtime_stubs.cc: the trampolines are x86-64 assembly"
#endif

namespace colo::shim {

// One stub: its name and, once known to be the answer in every later call,
// the function its trampoline jumps to (read by the assembly at offset 8).
struct RuntimeStub {
  const char* name;
  std::atomic<void*> target;
};
static_assert(offsetof(RuntimeStub, target) == 8);
static_assert(sizeof(std::atomic<void*>) == 8);

// What a trampoline does: jump to `target`, or, null, return `error`
// (returned in rax and rdx).
struct StubAnswer {
  void* target;
  intptr_t error;
};

namespace {

using cuda::kCudaErrorNotSupported;
using cuda::kCudaErrorSharedObjectSymbolNotFound;
using cuda::kCudaSuccess;

constexpr const char* kNotImplemented =
    "colo does not implement this CUDA runtime call on the simulated GPU";
constexpr const char* kHandlesInGateMode =
    "it takes a stream or event, which in gate mode is colo's, not the real "
    "runtime's";

// The fallbacks of the forwarded functions, where the real runtime is not
// found; their signatures are the runtime's.
constexpr const char* kNoRuntimeText =
    "unrecognized error code (the CUDA runtime was not found)";
const char* NoRuntimeErrorText(int) { return kNoRuntimeText; }
struct ChannelFormatDesc {  // cudaChannelFormatDesc
  int x, y, z, w;
  int f;
};
ChannelFormatDesc ChannelDescFromArguments(int x, int y, int z, int w, int f) {
  return ChannelFormatDesc{x, y, z, w, f};
}

void* FallbackOf(const char* name) {
  if (std::strcmp(name, "cudaGetErrorName") == 0 ||
      std::strcmp(name, "cudaGetErrorString") == 0)
    return reinterpret_cast<void*>(&NoRuntimeErrorText);
  if (std::strcmp(name, "cudaCreateChannelDesc") == 0)
    return reinterpret_cast<void*>(&ChannelDescFromArguments);
  return nullptr;
}

// The real runtime's `stub` (kept when `keep`), else its fallback, else
// cudaErrorSharedObjectSymbolNotFound.
StubAnswer Forward(RuntimeStub& stub, bool keep) {
  if (void* real = RealNamed(stub.name)) {
    if (keep) stub.target.store(real, std::memory_order_release);
    return {real, kCudaSuccess};
  }
  if (void* fallback = FallbackOf(stub.name)) return {fallback, kCudaSuccess};
  return {nullptr, RecordError(kCudaErrorSharedObjectSymbolNotFound)};
}

// What the trampolines pass in r10.
enum class StubKind : intptr_t { kStub = 0, kForwarded = 1, kRefused = 2 };

StubAnswer Resolve(RuntimeStub& stub, StubKind kind) {
  if (kind == StubKind::kForwarded) return Forward(stub, /*keep=*/true);
  ReentryGuard guard;
  if (guard.reentered()) return Forward(stub, /*keep=*/false);
  if (Passthrough()) return Forward(stub, /*keep=*/true);
  InterposerState& s = Interposer();
  int err;
  bool gate;
  {
    MutexLock lock(s.mu);
    err = Connected(s);
    gate = err == kCudaSuccess && s.colod.gate != nullptr;
    if (gate && kind == StubKind::kStub)
      err = s.colod.gate->WaitIssued(0, s.ring.last_seq, /*all_streams=*/true);
  }
  if (err != kCudaSuccess) return {nullptr, RecordError(err)};
  if (gate && kind == StubKind::kStub) return Forward(stub, /*keep=*/false);
  const char* why = gate ? kHandlesInGateMode : kNotImplemented;
  return {nullptr,
          RecordError(AnnounceRefused(stub.name, why, kCudaErrorNotSupported))};
}

}  // namespace
}  // namespace colo::shim

// Called by the trampolines (below) with their stub; never throws.
extern "C" __attribute__((visibility("hidden"), used)) colo::shim::StubAnswer
colo_runtime_stub_resolve(colo::shim::RuntimeStub* stub,
                          intptr_t kind) noexcept {
  try {
    return colo::shim::Resolve(*stub, static_cast<colo::shim::StubKind>(kind));
  } catch (...) {
    return {nullptr, colo::shim::RecordError(colo::cuda::kCudaErrorUnknown)};
  }
}

// The slow path every trampoline jumps to: r11 = its stub, r10 = its
// StubKind. A frame of 192 bytes (16-aligned) keeps the argument
// registers.
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".hidden colo_runtime_stub_slow\n"
    ".type colo_runtime_stub_slow, @function\n"
    "colo_runtime_stub_slow:\n"
    ".cfi_startproc\n"
    "  pushq %rbp\n"
    ".cfi_def_cfa_offset 16\n"
    ".cfi_offset %rbp, -16\n"
    "  movq %rsp, %rbp\n"
    ".cfi_def_cfa_register %rbp\n"
    "  subq $192, %rsp\n"
    "  movq %rdi, 0(%rsp)\n"
    "  movq %rsi, 8(%rsp)\n"
    "  movq %rdx, 16(%rsp)\n"
    "  movq %rcx, 24(%rsp)\n"
    "  movq %r8, 32(%rsp)\n"
    "  movq %r9, 40(%rsp)\n"
    "  movq %rax, 48(%rsp)\n"
    "  movdqa %xmm0, 64(%rsp)\n"
    "  movdqa %xmm1, 80(%rsp)\n"
    "  movdqa %xmm2, 96(%rsp)\n"
    "  movdqa %xmm3, 112(%rsp)\n"
    "  movdqa %xmm4, 128(%rsp)\n"
    "  movdqa %xmm5, 144(%rsp)\n"
    "  movdqa %xmm6, 160(%rsp)\n"
    "  movdqa %xmm7, 176(%rsp)\n"
    "  movq %r11, %rdi\n"
    "  movq %r10, %rsi\n"
    "  call colo_runtime_stub_resolve\n"
    "  movq %rax, %r11\n"
    "  movq 0(%rsp), %rdi\n"
    "  movq 8(%rsp), %rsi\n"
    "  movq 24(%rsp), %rcx\n"
    "  movq 32(%rsp), %r8\n"
    "  movq 40(%rsp), %r9\n"
    "  movdqa 64(%rsp), %xmm0\n"
    "  movdqa 80(%rsp), %xmm1\n"
    "  movdqa 96(%rsp), %xmm2\n"
    "  movdqa 112(%rsp), %xmm3\n"
    "  movdqa 128(%rsp), %xmm4\n"
    "  movdqa 144(%rsp), %xmm5\n"
    "  movdqa 160(%rsp), %xmm6\n"
    "  movdqa 176(%rsp), %xmm7\n"
    "  testq %r11, %r11\n"
    "  jz 1f\n"
    "  movq 16(%rsp), %rdx\n"
    "  movq 48(%rsp), %rax\n"
    "  leave\n"
    ".cfi_remember_state\n"
    ".cfi_def_cfa %rsp, 8\n"
    "  jmpq *%r11\n"
    "1:\n"
    ".cfi_restore_state\n"
    "  movq %rdx, %rax\n"
    "  leave\n"
    ".cfi_def_cfa %rsp, 8\n"
    "  ret\n"
    ".cfi_endproc\n"
    ".size colo_runtime_stub_slow, .-colo_runtime_stub_slow\n");

// Each function's stub and trampoline: a jump through the kept target when
// there is one, else the slow path.
#define COLO_RUNTIME_TRAMPOLINE_(name, kind)                          \
  extern "C" {                                                        \
  __attribute__((visibility("hidden"), used))                         \
  colo::shim::RuntimeStub colo_runtime_stub_##name{#name, {nullptr}}; \
  }                                                                   \
  __asm__(                                                            \
      ".text\n"                                                       \
      ".p2align 4\n"                                                  \
      ".weak " #name                                                  \
      "\n"                                                            \
      ".type " #name ", @function\n" #name                            \
      ":\n"                                                           \
      ".cfi_startproc\n"                                              \
      "  endbr64\n"                                                   \
      "  movq colo_runtime_stub_" #name                               \
      "+8(%rip), %r11\n"                                              \
      "  testq %r11, %r11\n"                                          \
      "  jz 1f\n"                                                     \
      "  jmpq *%r11\n"                                                \
      "1:\n"                                                          \
      "  leaq colo_runtime_stub_" #name                               \
      "(%rip), %r11\n"                                                \
      "  movl $" #kind                                                \
      ", %r10d\n"                                                     \
      "  jmp colo_runtime_stub_slow\n"                                \
      ".cfi_endproc\n"                                                \
      ".size " #name ", .-" #name "\n");
#define COLO_RUNTIME_STUB(name) COLO_RUNTIME_TRAMPOLINE_(name, 0)
#define COLO_RUNTIME_FORWARDED(name) COLO_RUNTIME_TRAMPOLINE_(name, 1)
#define COLO_RUNTIME_REFUSED(name) COLO_RUNTIME_TRAMPOLINE_(name, 2)
#include "runtime_stub_symbols.inc"
