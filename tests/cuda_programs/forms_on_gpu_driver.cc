// forms_on_gpu's driver layer (forms_on_gpu.h): the driver opened by dlopen,
// the context and streams, launches and waits with a deadline, and modules
// holding the kernel forms.
#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "forms_on_gpu.h"
#include "ptx/kernel_forms.h"
#include "ptx/ptx_printer.h"
#include "ptx/ptx_reader.h"

namespace colo::forms_on_gpu {
namespace {

// The symbol a cuda.h name maps to, as a string: COLO_FOG_NAME(cuMemAlloc)
// is "cuMemAlloc_v2" (the argument is expanded before it is quoted).
#define COLO_FOG_QUOTE(x) #x
#define COLO_FOG_NAME(x) COLO_FOG_QUOTE(x)

Driver* loaded = nullptr;

std::string ErrorText(const Driver* cu, CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cu != nullptr && cu->cuGetErrorName != nullptr)
    cu->cuGetErrorName(result, &name);
  if (cu != nullptr && cu->cuGetErrorString != nullptr)
    cu->cuGetErrorString(result, &text);
  std::string out =
      name != nullptr ? name : "CUresult " + std::to_string(result);
  if (text != nullptr) out += std::string(" (") + text + ")";
  return out;
}

}  // namespace

Result<const Driver*> OpenDriver() {
  if (loaded != nullptr) return loaded;
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return UnavailableError(std::string("cannot load libcuda.so.1: ") +
                            (why != nullptr ? why : "?"));
  }
  auto* cu = new Driver;
  std::string missing;
#define COLO_FOG_LOAD(name)                        \
  cu->name = reinterpret_cast<decltype(cu->name)>( \
      dlsym(handle, COLO_FOG_NAME(name)));         \
  if (cu->name == nullptr) missing += std::string(" ") + COLO_FOG_NAME(name);
  COLO_FOG_ENTRIES(COLO_FOG_LOAD)
#undef COLO_FOG_LOAD
  if (!missing.empty()) {
    delete cu;
    return UnavailableError("libcuda.so.1 lacks" + missing);
  }
  if (CUresult r = cu->cuInit(0); r != CUDA_SUCCESS) {
    const std::string text = "cuInit: " + ErrorText(cu, r);
    delete cu;
    return UnavailableError(text);
  }
  int count = 0;
  if (CUresult r = cu->cuDeviceGetCount(&count);
      r != CUDA_SUCCESS || count == 0) {
    const std::string text = r != CUDA_SUCCESS
                                 ? "cuDeviceGetCount: " + ErrorText(cu, r)
                                 : std::string("cuDeviceGetCount: no device");
    delete cu;
    return UnavailableError(text);
  }
  loaded = cu;
  return loaded;
}

Status Check(CUresult result, const char* what) {
  if (result == CUDA_SUCCESS) return OkStatus();
  return InternalError(std::string(what) + ": " + ErrorText(loaded, result));
}

Result<Gpu> OpenGpu(const Driver* cu) {
  Gpu gpu;
  gpu.cu = cu;
  COLO_CU(cuDeviceGet(&gpu.device, 0));
  char name[256] = {};
  COLO_CU(cuDeviceGetName(name, sizeof name, gpu.device));
  gpu.name = name;
  COLO_CU(cuDeviceGetAttribute(
      &gpu.sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, gpu.device));
  COLO_CU(cuDevicePrimaryCtxRetain(&gpu.context, gpu.device));
  COLO_CU(cuCtxSetCurrent(gpu.context));
  COLO_CU(cuStreamCreate(&gpu.work, CU_STREAM_NON_BLOCKING));
  COLO_CU(cuStreamCreate(&gpu.side, CU_STREAM_NON_BLOCKING));
  void* words = nullptr;
  COLO_CU(cuMemHostAlloc(&words, 2 * sizeof(uint32_t), 0));
  gpu.pinned_one = static_cast<uint32_t*>(words);
  gpu.pinned_zero = gpu.pinned_one + 1;
  *gpu.pinned_one = 1;
  *gpu.pinned_zero = 0;
  return gpu;
}

Status WaitStream(const Gpu& gpu, CUstream stream, Clock::time_point deadline,
                  const std::string& what) {
  const Clock::time_point start = Clock::now();
  while (true) {
    const CUresult r = gpu.cu->cuStreamQuery(stream);
    if (r == CUDA_SUCCESS) return OkStatus();
    if (r != CUDA_ERROR_NOT_READY) return Check(r, "cuStreamQuery");
    const Clock::time_point now = Clock::now();
    if (now > deadline) {
      const auto ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(now - start);
      return UnavailableError("hang: " + what + " has not ended after " +
                              std::to_string(ms.count()) + " ms");
    }
    // Short kernels end within microseconds: yield rather than sleep, so
    // that a wait costs little more than the kernel.
    std::this_thread::yield();
  }
}

Status Launch(const Gpu& gpu, CUfunction f, Grid grid, Grid block,
              uint32_t shared_bytes, Args& args, CUstream stream) {
  std::vector<void*> pointers;
  for (std::vector<uint8_t>& a : args) pointers.push_back(a.data());
  return Check(
      gpu.cu->cuLaunchKernel(
          f, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared_bytes,
          stream, pointers.empty() ? nullptr : pointers.data(), nullptr),
      "cuLaunchKernel");
}

Result<CUmodule> LoadFormsModule(const Gpu& gpu, const std::string& dir,
                                 const std::string& stem) {
  const std::string path = dir + "/" + stem + ".ptx";
  std::ifstream in(path);
  if (!in) return NotFoundError("cannot open " + path);
  std::stringstream text;
  text << in.rdbuf();
  Result<ptx::Module> module = ptx::ReadPtx(text.str(), path);
  if (!module.ok()) return module.status();
  const std::string forms = ptx::PrintPtx(ptx::AddKernelForms(*module));
  // The JIT's own log says which line of which form it refused.
  std::vector<char> log(16384, 0);
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log.data(), reinterpret_cast<void*>(log.size() - 1)};
  CUmodule loaded_module = nullptr;
  const CUresult r = gpu.cu->cuModuleLoadDataEx(&loaded_module, forms.c_str(),
                                                2, options, values);
  if (r != CUDA_SUCCESS) {
    const Status s = Check(r, "cuModuleLoadDataEx");
    return Status(s.code(), path + " with its forms: " + s.message() +
                                (log[0] != 0 ? ": " + std::string(log.data())
                                             : std::string()));
  }
  return loaded_module;
}

CUfunction FindKernel(const Gpu& gpu, CUmodule module,
                      const std::string& name) {
  CUfunction f = nullptr;
  if (gpu.cu->cuModuleGetFunction(&f, module, name.c_str()) != CUDA_SUCCESS)
    return nullptr;
  return f;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace colo::forms_on_gpu
