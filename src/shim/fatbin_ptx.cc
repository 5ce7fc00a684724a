#include "shim/fatbin_ptx.h"

#include <elf.h>

#include <cctype>
#include <cstring>

#include "shim/fatbin_container.h"

namespace colo::shim {
namespace {

// Where two entries both run: higher architecture first, then the more
// specific target (it may use what the generic one cannot).
int Specificity(PtxTargetKind k) {
  switch (k) {
    case PtxTargetKind::kArchSpecific:
      return 2;
    case PtxTargetKind::kFamily:
      return 1;
    case PtxTargetKind::kGeneric:
      return 0;
  }
  return 0;
}

bool Better(const FatbinPtx& a, const FatbinPtx& b) {
  if (a.arch != b.arch) return a.arch > b.arch;
  return Specificity(a.target) > Specificity(b.target);
}

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

Result<FatbinPtx> ReadPtxTarget(std::string_view text) {
  static constexpr std::string_view kTarget = ".target";
  size_t at = 0;
  while ((at = text.find(kTarget, at)) != std::string_view::npos) {
    // A directive starts a line (after blanks); ".target" inside a comment
    // or a string is not one.
    size_t line = at;
    while (line > 0 && (text[line - 1] == ' ' || text[line - 1] == '\t'))
      --line;
    at += kTarget.size();
    if (line != 0 && text[line - 1] != '\n') continue;
    size_t i = at;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (text.substr(i, 3) != "sm_") break;
    i += 3;
    int arch = 0;
    size_t digits = 0;
    while (i < text.size() &&
           std::isdigit(static_cast<unsigned char>(text[i])) && digits < 4) {
      arch = arch * 10 + (text[i] - '0');
      ++i, ++digits;
    }
    if (digits == 0) break;
    FatbinPtx out;
    out.arch = arch;
    if (i < text.size() && text[i] == 'a')
      out.target = PtxTargetKind::kArchSpecific;
    if (i < text.size() && text[i] == 'f') out.target = PtxTargetKind::kFamily;
    return out;
  }
  return InvalidArgumentError("PTX text: no `.target sm_XX` directive");
}

std::string PtxArchName(const FatbinPtx& ptx) {
  std::string name = "compute_" + std::to_string(ptx.arch);
  if (ptx.target == PtxTargetKind::kArchSpecific) name += 'a';
  if (ptx.target == PtxTargetKind::kFamily) name += 'f';
  return name;
}

bool PtxRunsOn(const FatbinPtx& ptx, int device_arch) {
  switch (ptx.target) {
    case PtxTargetKind::kGeneric:
      return ptx.arch <= device_arch;
    case PtxTargetKind::kArchSpecific:
      return ptx.arch == device_arch;
    case PtxTargetKind::kFamily:
      return ptx.arch / 10 == device_arch / 10 && ptx.arch <= device_arch;
  }
  return false;
}

Result<std::vector<FatbinPtx>> ReadFatbinPtxEntries(const void* image,
                                                    size_t size) {
  COLO_ASSIGN_OR_RETURN(
      std::vector<fatbin::Entry> entries,
      fatbin::Entries(static_cast<const unsigned char*>(image), size));
  std::vector<FatbinPtx> out;
  for (const fatbin::Entry& e : entries) {
    if (e.kind != fatbin::kKindPtx) continue;
    FatbinPtx ptx;
    COLO_ASSIGN_OR_RETURN(ptx.text, fatbin::Payload(e));
    // The payload is the text, NUL-terminated and padded to 8 bytes; the
    // JIT reads it as a C string, so do we.
    ptx.text.resize(std::strlen(ptx.text.c_str()));
    if (ptx.text.empty())
      return InvalidArgumentError("fat binary: empty PTX entry for compute_" +
                                  std::to_string(e.arch));
    ptx.arch = e.arch;
    if (e.flags & fatbin::kFlagArchSpecific)
      ptx.target = PtxTargetKind::kArchSpecific;
    else if (e.flags & fatbin::kFlagFamilySpecific)
      ptx.target = PtxTargetKind::kFamily;
    out.push_back(std::move(ptx));
  }
  return out;
}

Result<FatbinPtx> ChoosePtx(const std::vector<FatbinPtx>& entries,
                            int device_arch) {
  const FatbinPtx* best = nullptr;
  std::vector<std::string> seen;
  for (const FatbinPtx& p : entries) {
    seen.push_back(PtxArchName(p));
    if (PtxRunsOn(p, device_arch) && (best == nullptr || Better(p, *best)))
      best = &p;
  }
  if (best != nullptr) return *best;
  if (entries.empty())
    return NotFoundError("the fat binary carries no PTX (cubins only)");
  return NotFoundError("the fat binary's PTX is for " + Join(seen) +
                       ", none of which sm_" + std::to_string(device_arch) +
                       " can compile");
}

Result<FatbinPtx> ReadFatbinPtx(const void* image, size_t size,
                                int device_arch) {
  COLO_ASSIGN_OR_RETURN(std::vector<FatbinPtx> entries,
                        ReadFatbinPtxEntries(image, size));
  return ChoosePtx(entries, device_arch);
}

Result<FatbinPtx> ReadRegisteredPtx(const void* wrapper, int device_arch) {
  COLO_ASSIGN_OR_RETURN(const unsigned char* image,
                        fatbin::WrappedContainer(wrapper));
  return ReadFatbinPtx(image, fatbin::ContainerSize(image), device_arch);
}

Result<FatbinPtx> ReadModuleImagePtx(std::string_view bytes, int device_arch) {
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() >= 4 && fatbin::Load<uint32_t>(b) == fatbin::kContainerMagic)
    return ReadFatbinPtx(b, bytes.size(), device_arch);
  if (bytes.size() >= SELFMAG && std::memcmp(b, ELFMAG, SELFMAG) == 0)
    return NotFoundError("the module image is a cubin (no PTX)");
  std::string_view text = bytes.substr(0, bytes.find('\0'));
  COLO_ASSIGN_OR_RETURN(FatbinPtx ptx, ReadPtxTarget(text));
  ptx.text = std::string(text);
  if (!PtxRunsOn(ptx, device_arch))
    return NotFoundError("the module's PTX is for " + PtxArchName(ptx) +
                         ", which sm_" + std::to_string(device_arch) +
                         " cannot compile");
  return ptx;
}

Result<FatbinPtx> ReadBinaryPtx(const void* binary,
                                const std::string* module_image,
                                int device_arch) {
  return module_image != nullptr
             ? ReadModuleImagePtx(*module_image, device_arch)
             : ReadRegisteredPtx(binary, device_arch);
}

}  // namespace colo::shim
