// Sim mode's driver contexts (driver_context.h).
#include "shim/driver_context.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "cuda/cuda_abi.h"
#include "shim/shim_state.h"

namespace colo::shim {
namespace {

char g_primary_context;

// The calling thread's context stack, top last. Handles only: a context
// destroyed by another thread stays here until popped, and reads as not
// live (CurrentContext then skips it).
std::vector<void*>& Stack() {
  thread_local std::vector<void*> stack;
  return stack;
}

}  // namespace

void* PrimaryContext() { return &g_primary_context; }

bool IsLiveContext(void* context) {
  if (context == PrimaryContext()) return true;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  return s.driver.contexts.count(context) != 0;
}

void* CurrentContext() {
  std::vector<void*>& stack = Stack();
  while (!stack.empty() && !IsLiveContext(stack.back())) stack.pop_back();
  return stack.empty() ? PrimaryContext() : stack.back();
}

int CreateContext(void** context, int device) {
  if (context == nullptr) return cuda::kCuErrorInvalidValue;
  if (device != 0) return cuda::kCudaErrorInvalidDevice;
  auto handle = std::make_unique<char>();
  void* key = handle.get();
  {
    InterposerState& s = Interposer();
    MutexLock lock(s.mu);
    s.driver.contexts.emplace(key, std::move(handle));
  }
  Stack().push_back(key);
  *context = key;
  return cuda::kCuSuccess;
}

int DestroyContext(void* context) {
  {
    InterposerState& s = Interposer();
    MutexLock lock(s.mu);
    if (s.driver.contexts.erase(context) == 0)
      return cuda::kCuErrorInvalidContext;
  }
  std::vector<void*>& stack = Stack();
  std::erase(stack, context);
  return cuda::kCuSuccess;
}

int PushContext(void* context) {
  if (context == nullptr || !IsLiveContext(context))
    return cuda::kCuErrorInvalidContext;
  Stack().push_back(context);
  return cuda::kCuSuccess;
}

int PopContext(void** context) {
  std::vector<void*>& stack = Stack();
  while (!stack.empty() && !IsLiveContext(stack.back())) stack.pop_back();
  if (stack.empty()) return cuda::kCuErrorInvalidContext;
  if (context != nullptr) *context = stack.back();
  stack.pop_back();
  return cuda::kCuSuccess;
}

int SetCurrentContext(void* context) {
  std::vector<void*>& stack = Stack();
  if (context == nullptr) {
    if (!stack.empty()) stack.pop_back();
    return cuda::kCuSuccess;
  }
  if (!IsLiveContext(context)) return cuda::kCuErrorInvalidContext;
  if (stack.empty()) {
    stack.push_back(context);
  } else {
    stack.back() = context;
  }
  return cuda::kCuSuccess;
}

}  // namespace colo::shim
