// shim/managed_vars.cc — sim mode's `__managed__` variables (declared in
// shim_runtime.h). nvcc keeps a pointer per managed variable in the program
// and reads it through __cudaInitModule on the first access, expecting the
// runtime to have set it; sim mode never hands the module to the real
// runtime, so it gives the variables their storage itself (else the pointer
// would stay null, and the program's first host access would crash it).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "cuda/cuda_abi.h"
#include "shim/fatbin.h"
#include "shim/registry.h"
#include "shim/shim_runtime.h"
#include "shim/shim_state.h"

namespace colo::shim {

char InitManagedVars(void** handle) {
  // Two threads' first accesses at once: one gives the storage.
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  const std::vector<ManagedVar> vars = ManagedVarsOf(handle);
  if (vars.empty()) return 1;
  std::map<std::string, std::string> initial;
  if (const void* wrapper = FatBinaryOf(handle)) {
    // An image that cannot be read leaves the variables at zero.
    if (auto values = ReadRegisteredInitialValues(wrapper); values.ok())
      initial = std::move(*values);
  }
  for (const ManagedVar& v : vars) {
    if (v.host_var_ptr == nullptr || *v.host_var_ptr != nullptr) continue;
    void* p = nullptr;
    if (Malloc(&p, v.size, AllocKind::kManaged) != cuda::kCudaSuccess ||
        p == nullptr) {
      p = std::calloc(1, std::max<size_t>(v.size, 1));  // without colod
      if (p == nullptr) return 0;
    }
    if (v.device_name != nullptr) {
      auto it = initial.find(v.device_name);
      if (it != initial.end())
        std::memcpy(p, it->second.data(), std::min(v.size, it->second.size()));
    }
    *v.host_var_ptr = p;
    InterposerState& s = Interposer();
    MutexLock state_lock(s.mu);
    s.memory.managed_vars[reinterpret_cast<uintptr_t>(p)] = v.size;
  }
  return 1;
}

}  // namespace colo::shim
