// tests/support/unsealed_ring.h — for tests: a launch ring laid out as
// ipc::LaunchRing::Create lays it out (size, control block), but in a memfd
// that carries none of ipc::kRingSeals, so its holder could still shrink it
// under another's mapping. colod must refuse to map such a ring.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <new>

#include "ipc/launch_ring.h"

namespace colo::testing {

// The memfd (the caller closes it), or -1 if it could not be made.
inline int MakeUnsealedRingMemfd() {
  const int mfd = memfd_create("unsealed-ring", MFD_CLOEXEC);
  if (mfd < 0) return -1;
  if (ftruncate(mfd, static_cast<off_t>(ipc::RingBytes())) != 0) {
    close(mfd);
    return -1;
  }
  void* p = mmap(nullptr, ipc::RingBytes(), PROT_READ | PROT_WRITE, MAP_SHARED,
                 mfd, 0);
  if (p == MAP_FAILED) {
    close(mfd);
    return -1;
  }
  new (p) ipc::RingControl();
  munmap(p, ipc::RingBytes());
  return mfd;
}

}  // namespace colo::testing
