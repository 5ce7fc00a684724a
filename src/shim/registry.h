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
// Thread safety: every function takes the registry's one internal mutex
// (never held while calling anything but the real registration entry
// points).
#pragma once

#include <cstddef>
#include <vector>

namespace colo::shim {

// Each of the interposer's __cudaRegister* calls keeps its registration for
// the real runtime: recorded (under a handle of ours) until
// ReplayIntoRealRuntime(), handed over at once after it. The arguments are
// those of the __cudaRegister* call of the same name.
//
// A fat binary: the handle of ours the program registers its kernels and
// variables under.
void** RecordFatBinaryForRealRuntime(void* fat_cubin);
void RecordFatBinaryEndForRealRuntime(void** handle);
// The fat binary's library is unloaded: its records are dropped (their
// pointers into the library must not be replayed), or after the replay the
// real runtime unregisters it.
void UnregisterFatBinaryFromRealRuntime(void** handle);
void RecordFunctionForRealRuntime(void** handle, const char* host_fun,
                                  char* device_fun, const char* device_name,
                                  int thread_limit, void* tid, void* bid,
                                  void* block_dim, void* grid_dim,
                                  int* warp_size);
void RecordVarForRealRuntime(void** handle, char* host_var,
                             char* device_address, const char* device_name,
                             int ext, size_t size, int constant, int global);
void RecordManagedVarForRealRuntime(void** handle, void** host_var_ptr,
                                    char* device_address,
                                    const char* device_name, int ext,
                                    size_t size, int constant, int global);
// __cudaInitModule after the replay (the real runtime's answer; 0 if it has
// no such entry point); 1 before it.
char InitModuleInRealRuntime(void** handle);

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
// UnregisterFatBinaryFromRealRuntime (its library may be gone).
const void* FatBinaryOf(void** handle);

// Replays every recorded registration into the real runtime (once; later
// calls return the first result). cudaErrorSharedObjectSymbolNotFound if the
// real runtime lacks a registration entry point.
int ReplayIntoRealRuntime();

}  // namespace colo::shim
