// Calls programs make around their work that change nothing colo
// schedules (declared in shim_exports.h): the profiler's start and stop,
// stream attributes (an L2 access-policy window, the synchronization
// policy, the memory-sync domain, the priority) and attaching managed
// memory to a stream.
//
// Passthrough forwards them to the real runtime; gate mode keeps what sim
// mode keeps and forwards them too, on the program's real stream. Sim mode:
// cudaProfilerStart/Stop succeed (no profiler watches a simulated GPU); a
// stream keeps the attributes set on it and answers them back (the priority
// attribute is the stream's priority, clamped to the device's range as at
// creation); an attribute CUDA does not define for streams is
// cudaErrorInvalidValue; attaching managed memory checks that it is managed
// memory of the program and changes nothing else (sim mode's managed memory is
// reachable from every stream anyway).
#include <cstring>

#include "cuda/cuda_abi.h"
#include "shim/export_forwarding.h"
#include "shim/memory_checks.h"
#include "shim/shim_state.h"

using colo::cuda::kCudaErrorInvalidValue;
using colo::cuda::kCudaErrorSharedObjectSymbolNotFound;
using colo::cuda::kCudaSuccess;

namespace {

namespace cs = colo::shim;

// cudaStreamAttrID values a stream takes.
constexpr int kAttrAccessPolicyWindow = 1;
constexpr int kAttrSynchronizationPolicy = 3;
constexpr int kAttrPriority = 8;
constexpr int kAttrMemSyncDomainMap = 9;
constexpr int kAttrMemSyncDomain = 10;

bool StreamAttribute(int attr) {
  return attr == kAttrAccessPolicyWindow ||
         attr == kAttrSynchronizationPolicy || attr == kAttrPriority ||
         attr == kAttrMemSyncDomainMap || attr == kAttrMemSyncDomain;
}

// Gate mode: `real` (the real runtime's call) on the stream's real stream.
template <typename Real, typename... Args>
int InGateToo(cs::InterposerState& s, Real real, void* stream, Args... args)
    COLO_REQUIRES(s.mu) {
  if (s.colod.gate == nullptr) return kCudaSuccess;
  if (real == nullptr) return kCudaErrorSharedObjectSymbolNotFound;
  void* r = cs::IsDefaultStream(stream)
                ? stream
                : static_cast<cs::Stream*>(stream)->real;
  return static_cast<int>(real(r, args...));
}

template <typename Real>
int SetAttribute(Real real, void* stream, int attr, const void* value) {
  if (value == nullptr || !StreamAttribute(attr)) return kCudaErrorInvalidValue;
  cs::InterposerState& s = cs::Interposer();
  cs::MutexLock lock(s.mu);
  if (int err = cs::CheckStream(s, stream); err != kCudaSuccess) return err;
  if (cs::IsDefaultStream(stream)) return kCudaErrorInvalidValue;
  auto* st = static_cast<cs::Stream*>(stream);
  cs::StreamAttrValue v;
  std::memcpy(v.bytes, value, sizeof(v.bytes));
  if (attr == kAttrPriority) {
    int priority = 0;
    std::memcpy(&priority, v.bytes, sizeof(priority));
    st->priority = cs::ClampStreamPriority(priority);
  } else {
    st->attributes[attr] = v;
  }
  return InGateToo(s, real, stream, attr, value);
}

int GetAttribute(void* stream, int attr, void* value) {
  if (value == nullptr || !StreamAttribute(attr)) return kCudaErrorInvalidValue;
  cs::InterposerState& s = cs::Interposer();
  cs::MutexLock lock(s.mu);
  if (int err = cs::CheckStream(s, stream); err != kCudaSuccess) return err;
  cs::StreamAttrValue v;  // zeros: what CUDA answers for an attribute not set
  if (!cs::IsDefaultStream(stream)) {
    auto* st = static_cast<cs::Stream*>(stream);
    if (attr == kAttrPriority) {
      std::memcpy(v.bytes, &st->priority, sizeof(st->priority));
    } else if (auto it = st->attributes.find(attr);
               it != st->attributes.end()) {
      v = it->second;
    }
  }
  std::memcpy(value, v.bytes, sizeof(v.bytes));
  return kCudaSuccess;
}

template <typename Real>
int AttachMem(Real real, void* stream, void* ptr, size_t length,
              unsigned flags) {
  // cudaMemAttachGlobal 1, Host 2, Single 4: exactly one.
  if (flags != 1 && flags != 2 && flags != 4) return kCudaErrorInvalidValue;
  cs::InterposerState& s = cs::Interposer();
  cs::MutexLock lock(s.mu);
  if (int err = cs::Connected(s); err != kCudaSuccess) return err;
  if (int err = cs::CheckStream(s, stream); err != kCudaSuccess) return err;
  if (s.colod.gate != nullptr)  // the real runtime checks the memory
    return InGateToo(s, real, stream, ptr, length, flags);
  auto it = cs::AllocationHolding(s.memory.allocations,
                                  reinterpret_cast<uintptr_t>(ptr));
  if (it == s.memory.allocations.end() ||
      s.memory.managed.count(it->first) == 0)
    return kCudaErrorInvalidValue;
  // Length 0 (the whole allocation) or the allocation's own size.
  if (length != 0 &&
      (reinterpret_cast<uintptr_t>(ptr) != it->first || length != it->second))
    return kCudaErrorInvalidValue;
  return kCudaSuccess;
}

}  // namespace

#define COLO_EXTRA(sym, body, ...)                                  \
  COLO_FORWARD_IF_NEEDED(sym, kCudaErrorSharedObjectSymbolNotFound, \
                         __VA_ARGS__);                              \
  return Safe([&] { return body; })

int cudaProfilerStart() {
  COLO_FORWARD_IF_NEEDED(cudaProfilerStart,
                         kCudaErrorSharedObjectSymbolNotFound);
  COLO_FORWARD_IN_GATE(cudaProfilerStart, kCudaErrorSharedObjectSymbolNotFound);
  return Safe([] { return cs::Connect(); });
}

int cudaProfilerStop() {
  COLO_FORWARD_IF_NEEDED(cudaProfilerStop,
                         kCudaErrorSharedObjectSymbolNotFound);
  COLO_FORWARD_IN_GATE(cudaProfilerStop, kCudaErrorSharedObjectSymbolNotFound);
  return Safe([] { return cs::Connect(); });
}

int cudaStreamSetAttribute(void* stream, int attr, const void* value) {
  COLO_EXTRA(cudaStreamSetAttribute,
             SetAttribute(COLO_REAL(cudaStreamSetAttribute),
                          cs::OwnStream(stream), attr, value),
             stream, attr, value);
}
int cudaStreamSetAttribute_ptsz(void* stream, int attr, const void* value) {
  COLO_EXTRA(cudaStreamSetAttribute_ptsz,
             SetAttribute(COLO_REAL(cudaStreamSetAttribute_ptsz),
                          cs::OwnStream(stream), attr, value),
             stream, attr, value);
}
int cudaStreamGetAttribute(void* stream, int attr, void* value) {
  COLO_EXTRA(cudaStreamGetAttribute,
             GetAttribute(cs::OwnStream(stream), attr, value), stream, attr,
             value);
}
int cudaStreamGetAttribute_ptsz(void* stream, int attr, void* value) {
  COLO_EXTRA(cudaStreamGetAttribute_ptsz,
             GetAttribute(cs::OwnStream(stream), attr, value), stream, attr,
             value);
}
int cudaStreamAttachMemAsync(void* stream, void* ptr, size_t length,
                             unsigned flags) {
  COLO_EXTRA(cudaStreamAttachMemAsync,
             AttachMem(COLO_REAL(cudaStreamAttachMemAsync),
                       cs::OwnStream(stream), ptr, length, flags),
             stream, ptr, length, flags);
}
int cudaStreamAttachMemAsync_ptsz(void* stream, void* ptr, size_t length,
                                  unsigned flags) {
  COLO_EXTRA(cudaStreamAttachMemAsync_ptsz,
             AttachMem(COLO_REAL(cudaStreamAttachMemAsync_ptsz),
                       cs::OwnStream(stream), ptr, length, flags),
             stream, ptr, length, flags);
}
