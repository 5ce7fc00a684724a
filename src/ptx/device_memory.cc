// DeviceMemory: allocations in a std::map keyed by their start, so that an
// address resolves with one ordered lookup; every access is checked to lie
// inside one allocation.
#include <cstring>
#include <string>

#include "ptx/ptx_interpreter.h"

namespace colo::ptx {

uint64_t DeviceMemory::Allocate(uint64_t bytes) {
  uint64_t address = next_;
  allocations_[address].assign(bytes, 0);
  // The next allocation starts 256-aligned past this one, with a gap of at
  // least 256 bytes so that running off the end never lands in a neighbour.
  next_ = (address + bytes + 2 * 256 - 1) / 256 * 256;
  return address;
}

uint8_t* DeviceMemory::Resolve(uint64_t address, uint64_t bytes) {
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return nullptr;
  --it;
  uint64_t offset = address - it->first;
  std::vector<uint8_t>& data = it->second;
  if (offset > data.size() || bytes > data.size() - offset) return nullptr;
  return data.data() + offset;
}

std::vector<uint8_t>* DeviceMemory::AllocationAt(uint64_t address,
                                                 uint64_t* start) {
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return nullptr;
  --it;
  if (address - it->first >= it->second.size()) return nullptr;
  *start = it->first;
  return &it->second;
}

Status DeviceMemory::Write(uint64_t address, const void* data, uint64_t bytes) {
  uint8_t* p = Resolve(address, bytes);
  if (p == nullptr) {
    return InvalidArgumentError("device write of " + std::to_string(bytes) +
                                " bytes at " + std::to_string(address) +
                                " is not inside one allocation");
  }
  if (bytes > 0) std::memcpy(p, data, bytes);
  return OkStatus();
}

Status DeviceMemory::Read(uint64_t address, void* data, uint64_t bytes) const {
  uint8_t* p = const_cast<DeviceMemory*>(this)->Resolve(address, bytes);
  if (p == nullptr) {
    return InvalidArgumentError("device read of " + std::to_string(bytes) +
                                " bytes at " + std::to_string(address) +
                                " is not inside one allocation");
  }
  if (bytes > 0) std::memcpy(data, p, bytes);
  return OkStatus();
}

const std::vector<uint8_t>* DeviceMemory::Allocation(uint64_t address) const {
  auto it = allocations_.find(address);
  return it == allocations_.end() ? nullptr : &it->second;
}

uint64_t DeviceMemory::SymbolAddress(std::string_view name) const {
  auto it = symbols_.find(name);
  return it == symbols_.end() ? 0 : it->second;
}

void DeviceMemory::SetSymbolAddress(std::string_view name, uint64_t address) {
  symbols_[std::string(name)] = address;
}

}  // namespace colo::ptx
