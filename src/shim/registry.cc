// Registration records and their replay (registry.h).
#include "shim/registry.h"

#include <memory>
#include <unordered_map>
#include <vector>

#include "cuda/cuda_abi.h"
#include "shim/annotated_mutex.h"
#include "shim/hook_table.h"
#include "shim/shim_exports.h"

namespace colo::shim {
namespace {

#define COLO_REAL_FN(sym) \
  reinterpret_cast<decltype(&::sym)>(Real(HookId::k_##sym))

struct Record {
  enum Kind { kFatBinary, kEnd, kFunction, kVar, kManagedVar };
  explicit Record(Kind k) : kind(k) {}
  Kind kind;
  void** handle = nullptr;  // ours.
  void* fat_cubin = nullptr;
  const char* host = nullptr;  // host_fun or host_var.
  void** host_var_ptr = nullptr;
  char* device_fun = nullptr;  // or device_address.
  const char* device_name = nullptr;
  int thread_limit = 0;
  void *tid = nullptr, *bid = nullptr, *block_dim = nullptr,
       *grid_dim = nullptr;
  int* warp_size = nullptr;
  int ext = 0, constant = 0, global = 0;
  size_t size = 0;
};

// The registrations recorded for the real runtime, and how their replay went.
struct RegistrationLog {
  Mutex mu;
  // State below is protected by mu.
  std::vector<Record> records COLO_GUARDED_BY(mu);
  // Ours, one per fat binary.
  std::vector<std::unique_ptr<void*>> handles COLO_GUARDED_BY(mu);
  // Ours -> the runtime's.
  std::unordered_map<void**, void**> real COLO_GUARDED_BY(mu);
  // Ours -> fat binary.
  std::unordered_map<void**, const void*> wrappers COLO_GUARDED_BY(mu);
  bool replayed COLO_GUARDED_BY(mu) = false;  // ReplayIntoRealRuntime() ran.
  // ... and succeeded: the real runtime takes them.
  bool live COLO_GUARDED_BY(mu) = false;
  int replay_result COLO_GUARDED_BY(mu) = cuda::kCudaSuccess;
};

// The process's one log, never destroyed (atexit callers).
RegistrationLog& Registrations() {
  static RegistrationLog* r = new RegistrationLog();
  return *r;
}

// The runtime's handle for `h` (ours or already the runtime's).
void** RealHandle(RegistrationLog& r, void** h) COLO_REQUIRES(r.mu) {
  auto it = r.real.find(h);
  return it == r.real.end() ? h : it->second;
}

void Apply(RegistrationLog& r, const Record& rec) COLO_REQUIRES(r.mu) {
  switch (rec.kind) {
    case Record::kFatBinary:
      r.real[rec.handle] = COLO_REAL_FN(__cudaRegisterFatBinary)(rec.fat_cubin);
      break;
    case Record::kEnd:
      COLO_REAL_FN(__cudaRegisterFatBinaryEnd)(RealHandle(r, rec.handle));
      break;
    case Record::kFunction:
      COLO_REAL_FN(__cudaRegisterFunction)
      (RealHandle(r, rec.handle), rec.host, rec.device_fun, rec.device_name,
       rec.thread_limit, rec.tid, rec.bid, rec.block_dim, rec.grid_dim,
       rec.warp_size);
      break;
    case Record::kVar:
      COLO_REAL_FN(__cudaRegisterVar)
      (RealHandle(r, rec.handle), const_cast<char*>(rec.host), rec.device_fun,
       rec.device_name, rec.ext, rec.size, rec.constant, rec.global);
      break;
    case Record::kManagedVar:
      COLO_REAL_FN(__cudaRegisterManagedVar)
      (RealHandle(r, rec.handle), rec.host_var_ptr, rec.device_fun,
       rec.device_name, rec.ext, rec.size, rec.constant, rec.global);
      break;
  }
}

// Records `rec`, or applies it at once after the replay.
void Add(Record rec) {
  RegistrationLog& r = Registrations();
  MutexLock lock(r.mu);
  if (r.live) {
    Apply(r, rec);
  } else {
    r.records.push_back(rec);
  }
}

}  // namespace

void** RecordFatBinaryForRealRuntime(void* fat_cubin) {
  RegistrationLog& r = Registrations();
  MutexLock lock(r.mu);
  r.handles.push_back(std::make_unique<void*>(nullptr));
  void** ours = r.handles.back().get();
  Record rec(Record::kFatBinary);
  rec.handle = ours;
  rec.fat_cubin = fat_cubin;
  r.wrappers[ours] = fat_cubin;
  if (r.live) {
    Apply(r, rec);
  } else {
    r.records.push_back(rec);
  }
  return ours;
}

const void* FatBinaryOf(void** handle) {
  RegistrationLog& r = Registrations();
  MutexLock lock(r.mu);
  auto it = r.wrappers.find(handle);
  return it == r.wrappers.end() ? nullptr : it->second;
}

void RecordFatBinaryEndForRealRuntime(void** handle) {
  Record rec(Record::kEnd);
  rec.handle = handle;
  Add(rec);
}

void UnregisterFatBinaryFromRealRuntime(void** handle) {
  RegistrationLog& r = Registrations();
  MutexLock lock(r.mu);
  r.wrappers.erase(handle);
  if (!r.live) {
    // The real runtime never saw it; its records point into a library that
    // may be unloaded now, so they must not be replayed.
    std::erase_if(r.records,
                  [handle](const Record& rec) { return rec.handle == handle; });
    return;
  }
  if (auto real = COLO_REAL_FN(__cudaUnregisterFatBinary))
    real(RealHandle(r, handle));
}

void RecordFunctionForRealRuntime(void** handle, const char* host_fun,
                                  char* device_fun, const char* device_name,
                                  int thread_limit, void* tid, void* bid,
                                  void* block_dim, void* grid_dim,
                                  int* warp_size) {
  Record rec(Record::kFunction);
  rec.handle = handle;
  rec.host = host_fun;
  rec.device_fun = device_fun;
  rec.device_name = device_name;
  rec.thread_limit = thread_limit;
  rec.tid = tid;
  rec.bid = bid;
  rec.block_dim = block_dim;
  rec.grid_dim = grid_dim;
  rec.warp_size = warp_size;
  Add(rec);
}

void RecordVarForRealRuntime(void** handle, char* host_var,
                             char* device_address, const char* device_name,
                             int ext, size_t size, int constant, int global) {
  Record rec(Record::kVar);
  rec.handle = handle;
  rec.host = host_var;
  rec.device_fun = device_address;
  rec.device_name = device_name;
  rec.ext = ext;
  rec.size = size;
  rec.constant = constant;
  rec.global = global;
  Add(rec);
}

void RecordManagedVarForRealRuntime(void** handle, void** host_var_ptr,
                                    char* device_address,
                                    const char* device_name, int ext,
                                    size_t size, int constant, int global) {
  Record rec(Record::kManagedVar);
  rec.handle = handle;
  rec.host_var_ptr = host_var_ptr;
  rec.device_fun = device_address;
  rec.device_name = device_name;
  rec.ext = ext;
  rec.size = size;
  rec.constant = constant;
  rec.global = global;
  Add(rec);
}

std::vector<ManagedVar> ManagedVarsOf(void** handle) {
  RegistrationLog& r = Registrations();
  MutexLock lock(r.mu);
  std::vector<ManagedVar> out;
  for (const Record& rec : r.records) {
    if (rec.kind == Record::kManagedVar && rec.handle == handle)
      out.push_back(ManagedVar{rec.host_var_ptr, rec.device_name, rec.size});
  }
  return out;
}

char InitModuleInRealRuntime(void** handle) {
  RegistrationLog& r = Registrations();
  MutexLock lock(r.mu);
  if (!r.live) return 1;
  auto real = COLO_REAL_FN(__cudaInitModule);
  return real != nullptr ? real(RealHandle(r, handle)) : 0;
}

int ReplayIntoRealRuntime() {
  RegistrationLog& r = Registrations();
  MutexLock lock(r.mu);
  if (r.replayed) return r.replay_result;
  r.replayed = true;
  if (COLO_REAL_FN(__cudaRegisterFatBinary) == nullptr ||
      COLO_REAL_FN(__cudaRegisterFatBinaryEnd) == nullptr ||
      COLO_REAL_FN(__cudaRegisterFunction) == nullptr ||
      COLO_REAL_FN(__cudaRegisterVar) == nullptr ||
      COLO_REAL_FN(__cudaRegisterManagedVar) == nullptr) {
    r.replay_result = cuda::kCudaErrorSharedObjectSymbolNotFound;
    return r.replay_result;
  }
  r.live = true;
  for (const Record& rec : r.records) Apply(r, rec);
  r.records.clear();
  return r.replay_result;
}

}  // namespace colo::shim
