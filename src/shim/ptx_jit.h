// shim/ptx_jit.h — the seam between the kernel form cache
// (kernel_form_cache.h) and whatever compiles PTX to a device binary: the
// driver's JIT in the interposer (driver_ptx_jit.h), a counting fake in the
// tests.
//
// Thread safety: an implementation must allow calls from several threads at
// once (the cache compiles different modules concurrently).
#pragma once

#include <string>
#include <string_view>

#include "colo/status.h"

namespace colo::shim {

class PtxJit {
 public:
  virtual ~PtxJit() = default;
  // A cubin of `ptx` for SM architecture `arch` (80 = sm_80; the PTX's own
  // `.target` says whether it is the architecture-specific sm_90a or the
  // family sm_100f), to be loaded with cuModuleLoadData; or why not (the
  // JIT's error log in the message).
  virtual Result<std::string> Compile(std::string_view ptx, int arch) = 0;
  // The driver's version as cuDriverGetVersion gives it (13000 = 13.0):
  // a newer driver's JIT may compile differently, so the cache keys on it.
  virtual Result<int> DriverVersion() = 0;
};

}  // namespace colo::shim
