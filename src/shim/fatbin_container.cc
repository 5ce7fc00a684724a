#include "shim/fatbin_container.h"

#include <lz4.h>
#include <zstd.h>

namespace colo::shim::fatbin {
namespace {

constexpr size_t kEntryHeaderMin = 64;

}  // namespace

uint64_t ContainerSize(const unsigned char* b) {
  return Load<uint16_t>(b + 6) + Load<uint64_t>(b + 8);
}

Result<std::vector<Entry>> Entries(const unsigned char* base, size_t size) {
  if (base == nullptr || size < 16 || Load<uint32_t>(base) != kContainerMagic)
    return InvalidArgumentError("fat binary: no 0xBA55ED50 header");
  const uint16_t header = Load<uint16_t>(base + 6);
  const uint64_t payload = Load<uint64_t>(base + 8);
  if (header < 16 || header > size || payload > size - header)
    return InvalidArgumentError(
        "fat binary: sizes in the header exceed the image");
  std::vector<Entry> out;
  uint64_t at = header;
  const uint64_t end = header + payload;
  while (at + kEntryHeaderMin <= end) {
    const unsigned char* e = base + at;
    const uint32_t entry_header = Load<uint32_t>(e + 4);
    const uint64_t entry_payload = Load<uint64_t>(e + 8);
    if (entry_header < kEntryHeaderMin || entry_header > end - at ||
        entry_payload > end - at - entry_header) {
      return InvalidArgumentError("fat binary: entry at offset " +
                                  std::to_string(at) + " overruns the image");
    }
    Entry x;
    x.kind = Load<uint16_t>(e);
    x.arch = static_cast<int>(Load<uint32_t>(e + 28));
    x.flags = Load<uint64_t>(e + 40);
    x.data = e + entry_header;
    x.data_size = entry_payload;
    if (x.flags & (kFlagLz4 | kFlagZstd)) {
      const uint32_t compressed = Load<uint32_t>(e + 16);
      if (compressed > entry_payload)
        return InvalidArgumentError(
            "fat binary: compressed size exceeds the entry");
      x.data_size = compressed;
      x.uncompressed_size = Load<uint64_t>(e + 56);
    }
    out.push_back(x);
    at += entry_header + entry_payload;
  }
  return out;
}

Result<std::string> Payload(const Entry& e) {
  const char* src = reinterpret_cast<const char*>(e.data);
  if (!(e.flags & (kFlagLz4 | kFlagZstd))) return std::string(src, e.data_size);
  if (e.uncompressed_size == 0 || e.uncompressed_size > kMaxEntryBytes)
    return InvalidArgumentError("fat binary: implausible uncompressed size " +
                                std::to_string(e.uncompressed_size));
  std::string out(e.uncompressed_size, '\0');
  if (e.flags & kFlagZstd) {
    const size_t n = ZSTD_decompress(out.data(), out.size(), src, e.data_size);
    if (ZSTD_isError(n) || n != out.size())
      return InvalidArgumentError(
          std::string("fat binary: zstd: ") +
          (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short output"));
    return out;
  }
  const int n =
      LZ4_decompress_safe(src, out.data(), static_cast<int>(e.data_size),
                          static_cast<int>(out.size()));
  if (n != static_cast<int>(out.size()))
    return InvalidArgumentError(
        "fat binary: LZ4 block does not decompress to its size");
  return out;
}

Result<const unsigned char*> WrappedContainer(const void* wrapper) {
  if (wrapper == nullptr)
    return InvalidArgumentError("fat binary: null wrapper");
  const auto* w = static_cast<const unsigned char*>(wrapper);
  if (Load<uint32_t>(w) != kWrapperMagic)
    return InvalidArgumentError("fat binary: wrapper magic is not 0x466243B1");
  const auto* image = Load<const unsigned char*>(w + 8);
  if (image == nullptr || Load<uint32_t>(image) != kContainerMagic)
    return InvalidArgumentError(
        "fat binary: wrapper points to no 0xBA55ED50 container");
  return image;
}

}  // namespace colo::shim::fatbin
