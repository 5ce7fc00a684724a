// shim/thread_annotations.h — Clang's thread-safety annotations as macros
// (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html). Under Clang they
// are the attributes, which -Wthread-safety checks; under any other compiler
// (the build's g++) they are nothing. They name which mutex protects which
// state (COLO_GUARDED_BY) and which functions must be called with it held
// (COLO_REQUIRES); annotated_mutex.h has the mutex they can name.
//
// Thread safety: macros only.
#pragma once

#if defined(__clang__)
#define COLO_THREAD_ANNOTATION_(x) __attribute__((x))
#else
#define COLO_THREAD_ANNOTATION_(x)
#endif

// A type whose objects are locks (Mutex).
#define COLO_CAPABILITY(name) COLO_THREAD_ANNOTATION_(capability(name))
// A type whose objects hold a lock for their lifetime (MutexLock).
#define COLO_SCOPED_CAPABILITY COLO_THREAD_ANNOTATION_(scoped_lockable)
// A member read or written only with `mu` held.
#define COLO_GUARDED_BY(mu) COLO_THREAD_ANNOTATION_(guarded_by(mu))
// A function called only with the locks named held, which it leaves held.
#define COLO_REQUIRES(...) \
  COLO_THREAD_ANNOTATION_(requires_capability(__VA_ARGS__))
// A function that takes the locks named (or its object) and returns holding
// them.
#define COLO_ACQUIRE(...) \
  COLO_THREAD_ANNOTATION_(acquire_capability(__VA_ARGS__))
// A function that lets go of the locks named (or its object).
#define COLO_RELEASE(...) \
  COLO_THREAD_ANNOTATION_(release_capability(__VA_ARGS__))
// A function returning a reference to the lock named.
#define COLO_RETURN_CAPABILITY(mu) COLO_THREAD_ANNOTATION_(lock_returned(mu))
// A function the analysis does not check: one that hands a lock over in a
// way it cannot follow (a condition variable's wait, a lock let go and taken
// back by a destructor, fork's handlers). Say why beside each use.
#define COLO_NO_THREAD_SAFETY_ANALYSIS \
  COLO_THREAD_ANNOTATION_(no_thread_safety_analysis)
