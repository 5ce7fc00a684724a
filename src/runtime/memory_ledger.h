// runtime/memory_ledger.h — device memory per client: what each holds,
// split into persistent and ephemeral (Salus), and the limits.
//
// Every allocation is recorded by (client, address) with its size, so a free
// subtracts exactly what was added: a free of an unknown address changes
// nothing (NotFound), and a client's death returns exactly the sum of what it
// still held. Counters therefore never drift or underflow.
//
// Each allocation is charged its size rounded up to kAllocationGranularity:
// CUDA aligns every device allocation to at least 256 bytes (CUDA C++
// Programming Guide, "Device Memory Accesses"), so no two allocations share
// such a unit and a 1-byte allocation holds 256 bytes of the device. A
// client holds at most `max_allocations` allocations at once, so colod's
// bookkeeping of it is bounded too.
//
// Persistent vs ephemeral: an allocation made before the client's first
// kernel launch (model weights, optimizer state) is persistent; one made
// after is ephemeral (activations, workspaces), as in Salus.
//
// Thread safety: none; colod's loop owns it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <unordered_map>

#include "colo/device.h"
#include "colo/status.h"

namespace colo::runtime {

struct ClientMemory {
  int64_t persistent = 0;  // bytes
  int64_t ephemeral = 0;   // bytes
  int64_t limit = 0;       // bytes
  int64_t Total() const { return persistent + ephemeral; }
};

class MemoryLedger {
 public:
  static constexpr int64_t kAllocationGranularity = 256;  // bytes
  // `bytes` as charged: rounded up to kAllocationGranularity.
  static int64_t Charged(int64_t bytes);

  // REQUIRES: device_bytes > 0.
  explicit MemoryLedger(int64_t device_bytes) : device_bytes_(device_bytes) {}

  // Starts accounting for `client` with a limit (bytes; <= 0 = the device)
  // and the most allocations it may hold at once.
  void AddClient(ClientId client, int64_t limit,
                 size_t max_allocations = size_t{1} << 20);

  // Records Charged(bytes) at `address`. ResourceExhausted if the client's
  // limit, its allocation count or the device would be exceeded (nothing
  // recorded); InvalidArgument if the address is already recorded or
  // bytes <= 0; NotFound for an unknown client.
  Status Reserve(ClientId client, uint64_t address, int64_t bytes,
                 bool persistent);

  // Forgets the allocation at `address`; returns what it was charged. NotFound
  // if the client holds nothing there (then nothing changes).
  Result<int64_t> Release(ClientId client, uint64_t address);

  // Forgets the client and everything it held; returns the bytes returned.
  int64_t RemoveClient(ClientId client);

  // Zero usage for an unknown client.
  ClientMemory Usage(ClientId client) const;
  int64_t device_used() const { return device_used_; }
  int64_t device_bytes() const { return device_bytes_; }

 private:
  struct Allocation {
    int64_t bytes;
    bool persistent;
  };
  struct Account {
    ClientMemory usage;
    size_t max_allocations = 0;
    std::unordered_map<uint64_t, Allocation> allocations;
  };
  int64_t device_bytes_;
  int64_t device_used_ = 0;
  std::map<ClientId, Account> accounts_;
};

}  // namespace colo::runtime
