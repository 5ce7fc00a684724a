#include "runtime/memory_ledger.h"

#include <cstdint>
#include <string>

namespace colo::runtime {

int64_t MemoryLedger::Charged(int64_t bytes) {
  const int64_t g = kAllocationGranularity;
  return bytes > INT64_MAX - g ? bytes : (bytes + g - 1) / g * g;
}

void MemoryLedger::AddClient(ClientId client, int64_t limit,
                             size_t max_allocations) {
  Account& a = accounts_[client];
  a.max_allocations = max_allocations;
  a.usage.limit = limit > 0 && limit < device_bytes_ ? limit : device_bytes_;
}

Status MemoryLedger::Reserve(ClientId client, uint64_t address, int64_t bytes,
                             bool persistent) {
  auto it = accounts_.find(client);
  if (it == accounts_.end())
    return NotFoundError("client " + std::to_string(client) +
                         " is not registered");
  if (bytes <= 0)
    return InvalidArgumentError("allocation size must be positive");
  Account& a = it->second;
  if (a.allocations.count(address) != 0) {
    return InvalidArgumentError("address " + std::to_string(address) +
                                " is already allocated");
  }
  if (a.allocations.size() >= a.max_allocations) {
    return ResourceExhaustedError(
        "client " + std::to_string(client) + " holds " +
        std::to_string(a.allocations.size()) +
        " allocations, its limit (limits: allocations)");
  }
  bytes = Charged(bytes);
  if (bytes > a.usage.limit - a.usage.Total()) {
    return ResourceExhaustedError("client " + std::to_string(client) +
                                  " would exceed its limit of " +
                                  std::to_string(a.usage.limit) + " bytes");
  }
  if (bytes > device_bytes_ - device_used_) {
    return ResourceExhaustedError("the device has only " +
                                  std::to_string(device_bytes_ - device_used_) +
                                  " bytes free");
  }
  a.allocations.emplace(address, Allocation{bytes, persistent});
  (persistent ? a.usage.persistent : a.usage.ephemeral) += bytes;
  device_used_ += bytes;
  return OkStatus();
}

Result<int64_t> MemoryLedger::Release(ClientId client, uint64_t address) {
  auto it = accounts_.find(client);
  if (it == accounts_.end())
    return NotFoundError("client " + std::to_string(client) +
                         " is not registered");
  auto al = it->second.allocations.find(address);
  if (al == it->second.allocations.end()) {
    return NotFoundError("client " + std::to_string(client) +
                         " has no allocation at " + std::to_string(address));
  }
  const Allocation a = al->second;
  (a.persistent ? it->second.usage.persistent : it->second.usage.ephemeral) -=
      a.bytes;
  device_used_ -= a.bytes;
  it->second.allocations.erase(al);
  return a.bytes;
}

int64_t MemoryLedger::RemoveClient(ClientId client) {
  auto it = accounts_.find(client);
  if (it == accounts_.end()) return 0;
  const int64_t held = it->second.usage.Total();
  device_used_ -= held;
  accounts_.erase(it);
  return held;
}

ClientMemory MemoryLedger::Usage(ClientId client) const {
  auto it = accounts_.find(client);
  return it == accounts_.end() ? ClientMemory{} : it->second.usage;
}

}  // namespace colo::runtime
