// DeviceMemory: allocations and adopted regions in std::maps keyed by their
// start, so that an address resolves with one ordered lookup in each;
// every access is checked to lie inside one region.
#include <cstring>
#include <string>

#include "ptx/ptx_interpreter.h"

namespace colo::ptx {
namespace {

// The region of `map` holding `address`, or one of size 0.
template <typename Map, typename View>
DeviceMemory::Region Holding(Map& map, uint64_t address, View view) {
  auto it = map.upper_bound(address);
  if (it == map.begin()) return {};
  --it;
  DeviceMemory::Region r = view(it->first, it->second);
  if (address - r.start >= r.size) return {};
  return r;
}

}  // namespace

uint64_t DeviceMemory::Allocate(uint64_t bytes) {
  uint64_t address = next_;
  allocations_[address].assign(bytes, 0);
  // The next allocation starts 256-aligned past this one, with a gap of at
  // least 256 bytes so that running off the end never lands in a neighbour.
  next_ = (address + bytes + 2 * 256 - 1) / 256 * 256;
  return address;
}

Status DeviceMemory::Adopt(uint64_t address, uint8_t* data, uint64_t bytes) {
  if (address == 0 || data == nullptr || bytes == 0 ||
      bytes > ~uint64_t{0} - address) {
    return InvalidArgumentError("cannot adopt " + std::to_string(bytes) +
                                " bytes at " + std::to_string(address));
  }
  // Overlap: a region starting inside the new one, or one holding its start.
  const uint64_t end = address + bytes;
  auto starts_inside = [&](const auto& map) {
    auto it = map.lower_bound(address);
    return it != map.end() && it->first < end;
  };
  if (starts_inside(adopted_) || starts_inside(allocations_) ||
      RegionAt(address).size > 0) {
    return InvalidArgumentError("adopted region of " + std::to_string(bytes) +
                                " bytes at " + std::to_string(address) +
                                " overlaps another region");
  }
  adopted_[address] = Region{address, data, bytes};
  return OkStatus();
}

void DeviceMemory::ForgetAdopted() { adopted_.clear(); }

DeviceMemory::Region DeviceMemory::RegionAt(uint64_t address) {
  Region r = Holding(allocations_, address,
                     [](uint64_t start, std::vector<uint8_t>& bytes) {
                       return Region{start, bytes.data(), bytes.size()};
                     });
  if (r.size > 0) return r;
  return Holding(adopted_, address,
                 [](uint64_t, const Region& region) { return region; });
}

uint8_t* DeviceMemory::Resolve(uint64_t address, uint64_t bytes) {
  Region r = RegionAt(address);
  const uint64_t offset = address - r.start;
  if (r.size == 0 || bytes > r.size - offset) return nullptr;
  return r.data + offset;
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

void DeviceMemory::BindSymbol(std::string_view name, uint64_t address) {
  symbols_[std::string(name)] = address;
  // Storage already initialized keeps its bytes when bound again (two
  // modules with a variable of the same name take turns at the name).
  uninitialized_[std::string(name)] = initialized_.count(address) == 0;
}

bool DeviceMemory::TakeUninitialized(std::string_view name) {
  auto it = uninitialized_.find(name);
  if (it == uninitialized_.end() || !it->second) return false;
  it->second = false;
  initialized_.insert(symbols_.find(name)->second);
  return true;
}

}  // namespace colo::ptx
