// shim/annotated_mutex.h — a std::mutex that Clang's thread-safety analysis
// knows as a lock (thread_annotations.h), and the scoped holder of one. The
// standard library's own std::mutex carries no annotations under libstdc++,
// so state guarded by one could not be checked.
//
// Thread safety: a Mutex is what makes other state thread-safe; MutexLock
// belongs to the thread that made it.
#pragma once

#include <mutex>

#include "shim/thread_annotations.h"

namespace colo::shim {

class COLO_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void lock() COLO_ACQUIRE() { mu_.lock(); }
  void unlock() COLO_RELEASE() { mu_.unlock(); }
  // The std::mutex itself, for a std::condition_variable's wait (which
  // takes a std::unique_lock<std::mutex>). The analysis does not see locks
  // taken or let go through it.
  std::mutex& native() COLO_RETURN_CAPABILITY(this) { return mu_; }

 private:
  std::mutex mu_;
};

// Holds `mu` from construction to destruction (std::lock_guard, annotated).
class COLO_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) COLO_ACQUIRE(mu) : mu_(mu) { mu_.lock(); }
  ~MutexLock() COLO_RELEASE() { mu_.unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex& mu_;
};

}  // namespace colo::shim
