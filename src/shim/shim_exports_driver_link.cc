// cuModuleGetGlobal_v2 and the driver's JIT linker, cuLink* (declared in
// driver_exports.h). Gate mode forwards them to the real driver.
//
// Sim mode:
// * cuModuleGetGlobal_v2: the variable's storage (driver_module_globals.h).
// * cuLink*: the simulated GPU's "driver" compiles nothing: a link state
//   keeps its PTX input, and cuLinkComplete hands back that PTX text (NUL
//   included in the size), an image cuModuleLoadData loads and the
//   interpreter runs. A fat binary input counts as its PTX for the
//   simulated GPU's architecture. Several PTX inputs are linked into one
//   module (ptx/ptx_link.h: .extern declarations resolved to another
//   input's definitions, file-local names kept apart); inputs that cannot
//   be linked (one symbol defined twice, unreadable PTX) fail
//   cuLinkComplete with CUDA_ERROR_INVALID_PTX, the reason on stderr.
//   Cubin, object and library inputs and a fat binary holding no PTX
//   (compiled machine code cannot run on the simulated GPU), and NVVM IR,
//   are refused with CUDA_ERROR_NOT_SUPPORTED, announced. The JIT options (log
//   buffers, optimization levels) are accepted and ignored; log buffers are
//   left empty.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "cuda/cuda_abi.h"
#include "ptx/ptx_link.h"
#include "shim/device_queries.h"
#include "shim/driver_exports.h"
#include "shim/driver_module_globals.h"
#include "shim/export_forwarding.h"
#include "shim/fatbin_ptx.h"
#include "shim/shim_state.h"

using colo::cuda::kCuErrorInvalidValue;
using colo::cuda::kCuErrorNotFound;
using colo::cuda::kCuSuccess;

namespace {

// CUjitInputType.
enum JitInput {
  kCubin = 0,
  kPtx = 1,
  kFatbinary = 2,
  kObject = 3,
  kLibrary = 4,
  kNvvm = 5
};

int Refuse(const char* call, const char* why) {
  return colo::shim::AnnounceRefused(call, why,
                                     colo::cuda::kCudaErrorNotSupported);
}

int CreateLink(void** state) {
  if (state == nullptr) return kCuErrorInvalidValue;
  return CuSafe([&] {
    auto link = std::make_unique<colo::shim::LinkState>();
    void* key = link.get();
    cs::InterposerState& s = cs::Interposer();
    cs::MutexLock lock(s.mu);
    s.driver.links.emplace(key, std::move(link));
    *state = key;
    return kCuSuccess;
  });
}

// What AddInputLocked found of an input.
enum class Added { kOk, kNoState, kEmpty, kNoPtx, kUnreachable };

// Keeps the PTX of input `bytes` of `type` (kPtx or kFatbinary) in `state`.
Added AddInputLocked(cs::InterposerState& s, void* state, int type,
                     std::string bytes) COLO_REQUIRES(s.mu) {
  auto link = s.driver.links.find(state);
  if (link == s.driver.links.end()) return Added::kNoState;
  std::string ptx;
  if (type == kFatbinary) {
    if (cs::Connected(s) != kCuSuccess) return Added::kUnreachable;
    colo::Result<colo::shim::FatbinPtx> text = colo::shim::ReadFatbinPtx(
        bytes.data(), bytes.size(), colo::shim::SimDeviceArch(s));
    if (!text.ok()) return Added::kNoPtx;
    ptx = std::move(text->text);
  } else {
    ptx = std::move(bytes);
    if (const size_t nul = ptx.find('\0'); nul != std::string::npos)
      ptx.resize(nul);
  }
  if (ptx.empty()) return Added::kEmpty;
  link->second->ptx.push_back(std::move(ptx));
  return Added::kOk;
}

// Adds `bytes` of input `type` to `state` (see the file comment).
int AddInput(const char* call, void* state, int type, std::string bytes) {
  if (type == kCubin || type == kObject || type == kLibrary)
    return Refuse(call,
                  "compiled machine code cannot run on the simulated "
                  "GPU; only PTX inputs are linked");
  if (type == kNvvm)
    return Refuse(call, "NVVM IR is not compiled by colo's simulated GPU");
  if (type != kPtx && type != kFatbinary) return kCuErrorInvalidValue;
  Added added;
  {
    cs::InterposerState& s = cs::Interposer();
    cs::MutexLock lock(s.mu);
    added = AddInputLocked(s, state, type, std::move(bytes));
  }
  switch (added) {
    case Added::kOk:
      return kCuSuccess;
    case Added::kNoState:
      return colo::cuda::kCuErrorInvalidHandle;
    case Added::kEmpty:
      return kCuErrorInvalidValue;
    case Added::kUnreachable:
      return colo::cuda::kCudaErrorDevicesUnavailable;
    case Added::kNoPtx:
      return Refuse(call,
                    "the fat binary holds no PTX for the simulated GPU, "
                    "and its machine code cannot run there");
  }
  return kCuErrorInvalidValue;
}

}  // namespace

#define COLO_CU_FORWARD_IN_GATE(sym, ...) \
  COLO_FORWARD_IN_GATE(sym, kCuErrorNotFound, __VA_ARGS__)

int cuModuleGetGlobal_v2(unsigned long long* dptr, size_t* bytes, void* module,
                         const char* name) {
  COLO_FORWARD_IF_NEEDED(cuModuleGetGlobal_v2, kCuErrorNotFound, dptr, bytes,
                         module, name);
  COLO_CU_FORWARD_IN_GATE(cuModuleGetGlobal_v2, dptr, bytes, module, name);
  if (name == nullptr || (dptr == nullptr && bytes == nullptr))
    return kCuErrorInvalidValue;
  return CuSafe([&] {
    cs::InterposerState& s = cs::Interposer();
    cs::MutexLock lock(s.mu);
    if (int err = cs::Connected(s); err != kCuSuccess) return err;
    uintptr_t address = 0;
    size_t size = 0;
    const int err = cs::ModuleGlobalLocked(s, module, name, &address, &size);
    if (err != kCuSuccess) return err;
    if (dptr != nullptr) *dptr = address;
    if (bytes != nullptr) *bytes = size;
    return kCuSuccess;
  });
}

int cuLinkCreate(unsigned num_options, int* options, void** values,
                 void** state) {
  COLO_FORWARD_IF_NEEDED(cuLinkCreate, kCuErrorNotFound, num_options, options,
                         values, state);
  COLO_CU_FORWARD_IN_GATE(cuLinkCreate, num_options, options, values, state);
  return CreateLink(state);
}

int cuLinkCreate_v2(unsigned num_options, int* options, void** values,
                    void** state) {
  COLO_FORWARD_IF_NEEDED(cuLinkCreate_v2, kCuErrorNotFound, num_options,
                         options, values, state);
  COLO_CU_FORWARD_IN_GATE(cuLinkCreate_v2, num_options, options, values, state);
  return CreateLink(state);
}

int cuLinkAddData(void* state, int type, void* data, size_t size,
                  const char* name, unsigned num_options, int* options,
                  void** values) {
  COLO_FORWARD_IF_NEEDED(cuLinkAddData, kCuErrorNotFound, state, type, data,
                         size, name, num_options, options, values);
  COLO_CU_FORWARD_IN_GATE(cuLinkAddData, state, type, data, size, name,
                          num_options, options, values);
  if (data == nullptr || size == 0) return kCuErrorInvalidValue;
  return CuSafe([&] {
    return AddInput("cuLinkAddData", state, type,
                    std::string(static_cast<const char*>(data), size));
  });
}

int cuLinkAddData_v2(void* state, int type, void* data, size_t size,
                     const char* name, unsigned num_options, int* options,
                     void** values) {
  COLO_FORWARD_IF_NEEDED(cuLinkAddData_v2, kCuErrorNotFound, state, type, data,
                         size, name, num_options, options, values);
  COLO_CU_FORWARD_IN_GATE(cuLinkAddData_v2, state, type, data, size, name,
                          num_options, options, values);
  if (data == nullptr || size == 0) return kCuErrorInvalidValue;
  return CuSafe([&] {
    return AddInput("cuLinkAddData", state, type,
                    std::string(static_cast<const char*>(data), size));
  });
}

namespace {

int AddFile(void* state, int type, const char* path) {
  if (path == nullptr) return kCuErrorInvalidValue;
  return CuSafe([&] {
    std::ifstream in(path, std::ios::binary);
    if (!in) return colo::cuda::kCuErrorFileNotFound;
    std::string bytes((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
    return AddInput("cuLinkAddFile", state, type, std::move(bytes));
  });
}

}  // namespace

int cuLinkAddFile(void* state, int type, const char* path, unsigned num_options,
                  int* options, void** values) {
  COLO_FORWARD_IF_NEEDED(cuLinkAddFile, kCuErrorNotFound, state, type, path,
                         num_options, options, values);
  COLO_CU_FORWARD_IN_GATE(cuLinkAddFile, state, type, path, num_options,
                          options, values);
  return AddFile(state, type, path);
}

int cuLinkAddFile_v2(void* state, int type, const char* path,
                     unsigned num_options, int* options, void** values) {
  COLO_FORWARD_IF_NEEDED(cuLinkAddFile_v2, kCuErrorNotFound, state, type, path,
                         num_options, options, values);
  COLO_CU_FORWARD_IN_GATE(cuLinkAddFile_v2, state, type, path, num_options,
                          options, values);
  return AddFile(state, type, path);
}

// The image: the PTX inputs linked into one module's text, and its NUL;
// CUDA_ERROR_INVALID_VALUE (nothing to link) when no input was added.
int cuLinkComplete(void* state, void** image, size_t* size) {
  COLO_FORWARD_IF_NEEDED(cuLinkComplete, kCuErrorNotFound, state, image, size);
  COLO_CU_FORWARD_IN_GATE(cuLinkComplete, state, image, size);
  if (image == nullptr || size == nullptr) return kCuErrorInvalidValue;
  return CuSafe([&] {
    cs::InterposerState& s = cs::Interposer();
    cs::MutexLock lock(s.mu);
    auto link = s.driver.links.find(state);
    if (link == s.driver.links.end()) return colo::cuda::kCuErrorInvalidHandle;
    colo::shim::LinkState& l = *link->second;
    if (l.ptx.empty()) return kCuErrorInvalidValue;
    if (l.ptx.size() == 1) {
      l.image = l.ptx.front();
    } else {
      std::vector<colo::ptx::PtxInput> inputs;
      for (size_t i = 0; i < l.ptx.size(); ++i) {
        inputs.push_back({l.ptx[i], "PTX input " + std::to_string(i + 1)});
      }
      colo::Result<std::string> linked = colo::ptx::LinkPtx(inputs);
      if (!linked.ok()) {
        std::fprintf(stderr, "colo: cuLinkComplete: %s\n",
                     std::string(linked.status().message()).c_str());
        return colo::cuda::kCuErrorInvalidPtx;
      }
      l.image = std::move(*linked);
    }
    *image = l.image.data();  // NUL-terminated by std::string
    *size = l.image.size() + 1;
    return kCuSuccess;
  });
}

int cuLinkDestroy(void* state) {
  COLO_FORWARD_IF_NEEDED(cuLinkDestroy, kCuErrorNotFound, state);
  COLO_CU_FORWARD_IN_GATE(cuLinkDestroy, state);
  return CuSafe([&] {
    cs::InterposerState& s = cs::Interposer();
    cs::MutexLock lock(s.mu);
    return s.driver.links.erase(state) != 0 ? kCuSuccess
                                            : colo::cuda::kCuErrorInvalidHandle;
  });
}
