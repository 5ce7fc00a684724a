#include "shim/fatbin.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "shim/fatbin_container.h"

namespace colo::shim {
namespace {

using fatbin::ContainerSize;
using fatbin::Entries;
using fatbin::Entry;
using fatbin::kContainerMagic;
using fatbin::kKindCubin;
using fatbin::kWrapperMagic;
using fatbin::Load;
using fatbin::Payload;
using fatbin::WrappedContainer;
// A cubin larger than this is not a kernel image.
constexpr uint64_t kMaxCubinBytes = fatbin::kMaxEntryBytes;

// The __launch_bounds__ maximum block in a kernel's .nv.info section, or 0.
// A malformed list ends the walk (what was read so far stands).
int MaxThreadsAttribute(std::string_view info) {
  constexpr uint8_t kFormatSized = 4, kAttrMaxThreads = 0x05;
  const auto* p = reinterpret_cast<const unsigned char*>(info.data());
  size_t i = 0;
  while (i + 4 <= info.size()) {
    if (p[i] != kFormatSized) {
      i += 4;
      continue;
    }
    const uint16_t size = Load<uint16_t>(p + i + 2);
    if (size > info.size() - i - 4) break;
    if (p[i + 1] == kAttrMaxThreads && size >= 12) {
      const uint64_t n = uint64_t{Load<uint32_t>(p + i + 4)} *
                         Load<uint32_t>(p + i + 8) * Load<uint32_t>(p + i + 12);
      return n > 0 && n <= 1 << 20 ? static_cast<int>(n) : 0;
    }
    i += 4 + size;
  }
  return 0;
}

// A cubin's section table, checked against the image.
class CubinSections {
 public:
  static Result<CubinSections> Open(std::string_view elf) {
    const auto* b = reinterpret_cast<const unsigned char*>(elf.data());
    if (elf.size() < sizeof(Elf64_Ehdr) ||
        std::memcmp(b, ELFMAG, SELFMAG) != 0 || b[EI_CLASS] != ELFCLASS64 ||
        b[EI_DATA] != ELFDATA2LSB)
      return InvalidArgumentError(
          "cubin: not a 64-bit little-endian ELF image");
    CubinSections c(elf, Load<Elf64_Ehdr>(b));
    const Elf64_Ehdr& eh = c.eh_;
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > elf.size() ||
        eh.e_shnum > (elf.size() - eh.e_shoff) / sizeof(Elf64_Shdr) ||
        eh.e_shstrndx >= eh.e_shnum)
      return InvalidArgumentError("cubin: section table outside the image");
    COLO_ASSIGN_OR_RETURN(c.names_, c.Contents(eh.e_shstrndx));
    return c;
  }

  size_t count() const { return eh_.e_shnum; }
  Elf64_Shdr Header(size_t i) const {
    return Load<Elf64_Shdr>(
        reinterpret_cast<const unsigned char*>(elf_.data()) + eh_.e_shoff +
        i * sizeof(Elf64_Shdr));
  }
  // Section i's name.
  Result<std::string_view> Name(size_t i) const {
    return StringAt(names_, Header(i).sh_name);
  }
  // Section i's bytes (empty for NOBITS), within the image.
  Result<std::string_view> Contents(size_t i) const {
    const Elf64_Shdr s = Header(i);
    if (s.sh_type == SHT_NOBITS) return std::string_view();
    if (s.sh_offset > elf_.size() || s.sh_size > elf_.size() - s.sh_offset)
      return InvalidArgumentError("cubin: section outside the image");
    return elf_.substr(s.sh_offset, s.sh_size);
  }
  // The NUL-terminated string at `at` of string table `table`.
  static Result<std::string_view> StringAt(std::string_view table, size_t at) {
    if (at >= table.size())
      return InvalidArgumentError("cubin: bad string offset");
    const std::string_view rest = table.substr(at);
    return rest.substr(0, rest.find('\0'));
  }

 private:
  CubinSections(std::string_view elf, const Elf64_Ehdr& eh)
      : elf_(elf), eh_(eh) {}
  std::string_view elf_;
  Elf64_Ehdr eh_;
  std::string_view names_;
};

// The cubin entry of `entries` for `target_arch`: the highest architecture
// not above it, else the oldest; nullptr if there is none.
const Entry* BestCubin(const std::vector<Entry>& entries, int target_arch) {
  const Entry* best = nullptr;
  for (const Entry& e : entries) {
    if (e.kind != kKindCubin) continue;
    const bool fits = e.arch <= target_arch;
    if (best == nullptr) {
      best = &e;
    } else if (fits && (best->arch > target_arch || e.arch > best->arch)) {
      best = &e;
    } else if (!fits && best->arch > target_arch && e.arch < best->arch) {
      best = &e;
    }
  }
  return best;
}

}  // namespace

Result<std::map<std::string, KernelResources>> ReadCubinResources(
    std::string_view elf, int arch) {
  COLO_ASSIGN_OR_RETURN(CubinSections sections, CubinSections::Open(elf));
  std::map<std::string, KernelResources> out;
  for (size_t i = 0; i < sections.count(); ++i) {
    const Elf64_Shdr s = sections.Header(i);
    COLO_ASSIGN_OR_RETURN(std::string_view name, sections.Name(i));
    static constexpr std::string_view kText = ".text.", kShared = ".nv.shared.",
                                      kInfo = ".nv.info.";
    if (name.substr(0, kText.size()) == kText && name.size() > kText.size()) {
      KernelResources& r = out[std::string(name.substr(kText.size()))];
      r.registers_per_thread = static_cast<int>(s.sh_info >> 24);
      r.arch = arch;
    } else if (name.substr(0, kInfo.size()) == kInfo &&
               name.size() > kInfo.size()) {
      COLO_ASSIGN_OR_RETURN(std::string_view info, sections.Contents(i));
      const int bound = MaxThreadsAttribute(info);
      if (bound > 0)
        out[std::string(name.substr(kInfo.size()))].max_threads_per_block =
            bound;
    } else if (name.substr(0, kShared.size()) == kShared &&
               name.size() > kShared.size()) {
      KernelResources& r = out[std::string(name.substr(kShared.size()))];
      r.static_shared_bytes = static_cast<int64_t>(s.sh_size);
      r.arch = arch;
    }
  }
  // A ".nv.shared.x" without ".text.x" is a device variable, not a kernel.
  std::erase_if(
      out, [](const auto& kv) { return kv.second.registers_per_thread == 0; });
  return out;
}

Result<std::map<std::string, KernelResources>> ReadFatbinResources(
    const void* image, size_t size, int target_arch) {
  COLO_ASSIGN_OR_RETURN(
      std::vector<Entry> entries,
      Entries(static_cast<const unsigned char*>(image), size));
  const Entry* best = BestCubin(entries, target_arch);
  if (best == nullptr) return std::map<std::string, KernelResources>{};
  COLO_ASSIGN_OR_RETURN(std::string elf, Payload(*best));
  return ReadCubinResources(elf, best->arch);
}

Result<std::map<std::string, KernelResources>> ReadRegisteredFatbin(
    const void* wrapper, int target_arch) {
  COLO_ASSIGN_OR_RETURN(const unsigned char* image, WrappedContainer(wrapper));
  return ReadFatbinResources(image, ContainerSize(image), target_arch);
}

Result<std::map<std::string, std::string>> ReadCubinInitialValues(
    std::string_view elf) {
  COLO_ASSIGN_OR_RETURN(CubinSections sections, CubinSections::Open(elf));
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < sections.count(); ++i) {
    const Elf64_Shdr symtab = sections.Header(i);
    if (symtab.sh_type != SHT_SYMTAB) continue;
    if (symtab.sh_link >= sections.count())
      return InvalidArgumentError("cubin: symbol table names no string table");
    COLO_ASSIGN_OR_RETURN(std::string_view symbols, sections.Contents(i));
    COLO_ASSIGN_OR_RETURN(std::string_view names,
                          sections.Contents(symtab.sh_link));
    for (size_t at = 0; at + sizeof(Elf64_Sym) <= symbols.size();
         at += sizeof(Elf64_Sym)) {
      const auto sym = Load<Elf64_Sym>(
          reinterpret_cast<const unsigned char*>(symbols.data()) + at);
      if (ELF64_ST_TYPE(sym.st_info) != STT_OBJECT ||
          sym.st_shndx >= sections.count())
        continue;
      COLO_ASSIGN_OR_RETURN(std::string_view section,
                            sections.Name(sym.st_shndx));
      if (section != ".nv.global.init") continue;
      COLO_ASSIGN_OR_RETURN(std::string_view data,
                            sections.Contents(sym.st_shndx));
      if (sym.st_value > data.size() ||
          sym.st_size > data.size() - sym.st_value)
        return InvalidArgumentError(
            "cubin: a variable's initial value lies outside its section");
      COLO_ASSIGN_OR_RETURN(std::string_view name,
                            CubinSections::StringAt(names, sym.st_name));
      out[std::string(name)] =
          std::string(data.substr(sym.st_value, sym.st_size));
    }
  }
  return out;
}

Result<std::map<std::string, std::string>> ReadRegisteredInitialValues(
    const void* wrapper) {
  COLO_ASSIGN_OR_RETURN(const unsigned char* image, WrappedContainer(wrapper));
  return ReadFatbinInitialValues(image, ContainerSize(image));
}

Result<std::map<std::string, std::string>> ReadFatbinInitialValues(
    const void* image, size_t size) {
  COLO_ASSIGN_OR_RETURN(
      std::vector<Entry> entries,
      Entries(static_cast<const unsigned char*>(image), size));
  // Any cubin: a variable's initial value does not depend on the architecture.
  const Entry* best = BestCubin(entries, std::numeric_limits<int>::max());
  if (best == nullptr) return std::map<std::string, std::string>{};
  COLO_ASSIGN_OR_RETURN(std::string elf, Payload(*best));
  return ReadCubinInitialValues(elf);
}

Result<std::string> CopyModuleImage(const void* image) {
  if (image == nullptr) return std::string();
  const auto* b = static_cast<const unsigned char*>(image);
  const uint32_t magic = Load<uint32_t>(b);
  if (magic == kWrapperMagic) return CopyModuleImage(Load<const void*>(b + 8));
  if (magic == kContainerMagic) {
    const uint64_t size = ContainerSize(b);
    if (size > kMaxCubinBytes)
      return InvalidArgumentError("fat binary: implausible size");
    return std::string(reinterpret_cast<const char*>(b), size);
  }
  // PTX text, NUL-terminated (what cuModuleLoadData takes besides binaries).
  if (std::memcmp(b, ELFMAG, SELFMAG) != 0) {
    const char* text = reinterpret_cast<const char*>(b);
    return std::string(text, strnlen(text, kMaxCubinBytes));
  }
  if (b[EI_CLASS] != ELFCLASS64)
    return InvalidArgumentError("cubin: not a 64-bit ELF image");
  const auto eh = Load<Elf64_Ehdr>(b);
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > kMaxCubinBytes ||
      eh.e_shnum > kMaxCubinBytes / sizeof(Elf64_Shdr))
    return InvalidArgumentError("cubin: implausible section table");
  if (eh.e_phnum > 0 &&
      (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > kMaxCubinBytes ||
       eh.e_phnum > kMaxCubinBytes / sizeof(Elf64_Phdr)))
    return InvalidArgumentError("cubin: implausible program header table");
  // The image ends after the last of its tables, sections and segments.
  uint64_t size =
      std::max(eh.e_shoff + uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr),
               eh.e_phoff + uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr));
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    const auto s = Load<Elf64_Shdr>(b + eh.e_shoff + i * sizeof(Elf64_Shdr));
    if (s.sh_type != SHT_NOBITS)
      size = std::max<uint64_t>(size, s.sh_offset + s.sh_size);
  }
  for (size_t i = 0; i < eh.e_phnum; ++i) {
    const auto p = Load<Elf64_Phdr>(b + eh.e_phoff + i * sizeof(Elf64_Phdr));
    size = std::max<uint64_t>(size, p.p_offset + p.p_filesz);
  }
  if (size > kMaxCubinBytes)
    return InvalidArgumentError("cubin: implausible size");
  return std::string(reinterpret_cast<const char*>(b), size);
}

Result<std::map<std::string, KernelResources>> ReadModuleResources(
    std::string_view bytes, int target_arch) {
  if (bytes.size() >= 4 &&
      Load<uint32_t>(reinterpret_cast<const unsigned char*>(bytes.data())) ==
          kContainerMagic)
    return ReadFatbinResources(bytes.data(), bytes.size(), target_arch);
  if (bytes.size() >= SELFMAG &&
      std::memcmp(bytes.data(), ELFMAG, SELFMAG) == 0)
    return ReadCubinResources(bytes, 0);
  return std::map<std::string, KernelResources>{};
}

}  // namespace colo::shim
