// The forms declared per kernel in gate mode (gate_forms.h).
#include "shim/gate_forms.h"

#include <cstdio>

#include "ipc/launch_ring.h"
#include "shim/fatbin_ptx.h"
#include "shim/hook_table.h"

namespace colo::shim::gate {
namespace {

// The PTX text of `binary` (a module image's when `image` is given) for
// `arch`; null if it has none the device can compile or it cannot be read.
std::shared_ptr<const std::string> PtxText(const void* binary,
                                           const std::string* image, int arch) {
  Result<FatbinPtx> ptx = ReadBinaryPtx(binary, image, arch);
  if (!ptx.ok()) return nullptr;
  return std::make_shared<const std::string>(std::move(ptx->text));
}

}  // namespace

int RealDeviceArch() {
  using GetDeviceFn = int (*)(int*);
  using AttributeFn = int (*)(int*, int, int);
  auto get_device = reinterpret_cast<GetDeviceFn>(RealNamed("cudaGetDevice"));
  auto attribute =
      reinterpret_cast<AttributeFn>(RealNamed("cudaDeviceGetAttribute"));
  if (get_device == nullptr || attribute == nullptr) return 0;
  // cudaDevAttrComputeCapabilityMajor / Minor.
  constexpr int kMajor = 75, kMinor = 76;
  int device = 0, major = 0, minor = 0;
  if (get_device(&device) != 0 || attribute(&major, kMajor, device) != 0 ||
      attribute(&minor, kMinor, device) != 0 || major <= 0 || minor < 0) {
    return 0;
  }
  return major * 10 + minor;
}

const DeclaredForms& FormsOfLocked(InterposerState& s, const void* func) {
  auto known = s.kernels.forms.find(func);
  if (known != s.kernels.forms.end()) return known->second;
  DeclaredForms& out = s.kernels.forms[func];
  KernelFormCache* cache = s.colod.gate->form_cache();
  auto name = s.kernels.names.find(func);
  if (s.colod.gate->direct() || cache == nullptr ||
      name == s.kernels.names.end()) {
    return out;
  }
  // The binary it came from, and a label for messages.
  const void* binary = nullptr;
  const std::string* image = nullptr;
  if (auto fat = s.kernels.fat_binary_of.find(func);
      fat != s.kernels.fat_binary_of.end()) {
    binary = fat->second;
  } else if (auto m = s.modules.module_of.find(func);
             m != s.modules.module_of.end()) {
    auto i = s.modules.images.find(m->second);
    if (i == s.modules.images.end()) return out;
    binary = m->second;
    image = &i->second;
  } else {
    return out;
  }
  auto ptx = s.kernels.binary_ptx.find(binary);
  if (ptx == s.kernels.binary_ptx.end()) {
    ptx = s.kernels.binary_ptx
              .emplace(binary, PtxText(binary, image, cache->arch()))
              .first;
  }
  if (ptx->second == nullptr) return out;
  char label[48];
  std::snprintf(label, sizeof(label), "%s %p",
                image == nullptr ? "fat binary" : "module", binary);
  const KernelFormInfo info =
      cache->Analyze(*ptx->second, label)->Kernel(name->second);
  if (!info.transformable()) return out;
  out.source = std::make_shared<const FormSource>(
      FormSource{ptx->second, label, name->second});
  out.flags = (info.slice.available ? ipc::kKernelSliceForm : 0u) |
              (info.persistent.available ? ipc::kKernelPersistentForm : 0u);
  return out;
}

}  // namespace colo::shim::gate
