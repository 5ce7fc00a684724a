// shim/registry.h — the fat binaries, kernels and variables a program
// registers (nvcc's static constructors call __cudaRegister* before main),
// recorded so that the real CUDA runtime can be given them later.
//
// Sim mode never needs the real runtime. Gate mode does (the program's own
// context runs its kernels), but the mode is known only when the first CUDA
// call reaches colod, after registration. So each registration is recorded
// under a handle of ours, and ReplayIntoRealRuntime() hands them all, in
// order, to the real runtime once gate mode is known; after that,
// registrations (a library loaded later) go to the real runtime directly.
//
// Thread safety: every function takes one internal mutex (never held while
// calling anything but the real registration entry points).
#pragma once

#include <cstddef>
#include <vector>

namespace colo::shim {

void** RegisterFatBinary(void* fat_cubin);
void RegisterFatBinaryEnd(void** handle);
void UnregisterFatBinary(void** handle);
void RegisterFunction(void** handle, const char* host_fun, char* device_fun,
                      const char* device_name, int thread_limit, void* tid,
                      void* bid, void* block_dim, void* grid_dim,
                      int* warp_size);
void RegisterVar(void** handle, char* host_var, char* device_address,
                 const char* device_name, int ext, size_t size, int constant,
                 int global);
void RegisterManagedVar(void** handle, void** host_var_ptr,
                        char* device_address, const char* device_name, int ext,
                        size_t size, int constant, int global);
char InitModule(void** handle);

// A `__managed__` variable: where the program keeps its pointer to it (the
// runtime sets *host_var_ptr at __cudaInitModule), its device name and size.
struct ManagedVar {
  void** host_var_ptr = nullptr;
  const char* device_name = nullptr;
  size_t size = 0;
};
// The managed variables recorded under `handle` (ours), for sim mode to give
// them storage; none once the records were replayed into the real runtime.
std::vector<ManagedVar> ManagedVarsOf(void** handle);

// The fat binary wrapper registered under `handle` (ours), or nullptr after
// UnregisterFatBinary (its library may be gone).
const void* FatBinaryOf(void** handle);

// Replays every recorded registration into the real runtime (once; later
// calls return the first result). cudaErrorSharedObjectSymbolNotFound if the
// real runtime lacks a registration entry point.
int ReplayIntoRealRuntime();

}  // namespace colo::shim
