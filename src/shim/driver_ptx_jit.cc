#include "shim/driver_ptx_jit.h"

#include <dlfcn.h>

#include <cstdint>
#include <vector>

#include "shim/fatbin_ptx.h"

namespace colo::shim {
namespace {

void* DlopenDriver(const char* name) {
  static void* const driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  return driver != nullptr ? dlsym(driver, name) : nullptr;
}

// The JIT writes at most this much of its error log; a log is a few lines.
constexpr size_t kLogBytes = 16 * 1024;

void* AsOptionValue(uintptr_t v) { return reinterpret_cast<void*>(v); }

}  // namespace

DriverPtxJit::DriverPtxJit(DriverSymbolResolver resolve) {
  if (resolve == nullptr) resolve = DlopenDriver;
  link_create_ =
      reinterpret_cast<jit_abi::LinkCreateFn>(resolve("cuLinkCreate_v2"));
  link_add_data_ =
      reinterpret_cast<jit_abi::LinkAddDataFn>(resolve("cuLinkAddData_v2"));
  link_complete_ =
      reinterpret_cast<jit_abi::LinkCompleteFn>(resolve("cuLinkComplete"));
  link_destroy_ =
      reinterpret_cast<jit_abi::LinkDestroyFn>(resolve("cuLinkDestroy"));
  driver_get_version_ = reinterpret_cast<jit_abi::DriverGetVersionFn>(
      resolve("cuDriverGetVersion"));
  get_error_name_ =
      reinterpret_cast<jit_abi::GetErrorNameFn>(resolve("cuGetErrorName"));
}

int DriverPtxJit::TargetFor(std::string_view ptx, int arch) {
  const Result<FatbinPtx> target = ReadPtxTarget(ptx);
  if (target.ok() && target->arch == arch) {
    if (target->target == PtxTargetKind::kArchSpecific)
      return jit_abi::kAcceleratedTargetBase + arch;
  }
  // A family target names the device's own architecture in the family
  // (compute_100f PTX on sm_103 links for 103f).
  if (target.ok() && target->target == PtxTargetKind::kFamily)
    return jit_abi::kFamilyTargetBase + arch;
  return arch;
}

std::string DriverPtxJit::ErrorName(int error) const {
  const char* name = nullptr;
  if (get_error_name_ != nullptr && get_error_name_(error, &name) == 0 &&
      name != nullptr)
    return name;
  return "CUresult " + std::to_string(error);
}

Result<std::string> DriverPtxJit::Compile(std::string_view ptx, int arch) {
  if (link_create_ == nullptr || link_add_data_ == nullptr ||
      link_complete_ == nullptr || link_destroy_ == nullptr)
    return FailedPreconditionError(
        "the CUDA driver lacks cuLinkCreate_v2 / cuLinkAddData_v2 / "
        "cuLinkComplete / cuLinkDestroy");
  std::vector<char> log(kLogBytes, '\0');
  int options[] = {jit_abi::kJitErrorLogBuffer,
                   jit_abi::kJitErrorLogBufferSizeBytes, jit_abi::kJitTarget};
  void* values[] = {
      log.data(), AsOptionValue(log.size()),
      AsOptionValue(static_cast<uintptr_t>(TargetFor(ptx, arch)))};
  void* state = nullptr;
  int err = link_create_(3, options, values, &state);
  if (err != 0)
    return InternalError("cuLinkCreate for sm_" + std::to_string(arch) + ": " +
                         ErrorName(err));
  // The JIT reads PTX as a C string: pass it NUL-terminated.
  std::string text(ptx);
  err =
      link_add_data_(state, jit_abi::kJitInputPtx, text.data(), text.size() + 1,
                     "colo_kernel_forms.ptx", 0, nullptr, nullptr);
  Result<std::string> out = std::string();
  if (err == 0) {
    void* cubin = nullptr;
    size_t size = 0;
    err = link_complete_(state, &cubin, &size);
    if (err == 0 && cubin != nullptr && size > 0)
      out = std::string(static_cast<const char*>(cubin), size);
    else if (err == 0)
      out = InternalError("cuLinkComplete gave no cubin");
  }
  if (err != 0) {
    log.back() = '\0';
    std::string why = log.data();
    while (!why.empty() && (why.back() == '\n' || why.back() == ' '))
      why.pop_back();
    out =
        InternalError("the driver's JIT refused the PTX for sm_" +
                      std::to_string(arch) + " (" + ErrorName(err) + ")" +
                      (why.empty() ? "" : ": " + EscapeControlCharacters(why)));
  }
  // The cubin belongs to the link state: copied above, before this.
  link_destroy_(state);
  return out;
}

Result<int> DriverPtxJit::DriverVersion() {
  if (driver_get_version_ == nullptr)
    return FailedPreconditionError("the CUDA driver lacks cuDriverGetVersion");
  int version = 0;
  const int err = driver_get_version_(&version);
  if (err != 0) return InternalError("cuDriverGetVersion: " + ErrorName(err));
  return version;
}

}  // namespace colo::shim
