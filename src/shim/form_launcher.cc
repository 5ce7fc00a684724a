// Issuing a kernel's forms (form_launcher.h). The driver's entry points
// are declared here by their ABI (no CUDA header in the interposer).
#include "shim/form_launcher.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "ptx/kernel_forms.h"
#include "shim/gate_client.h"
#include "shim/hook_table.h"

namespace colo::shim {
namespace {

// cuda.h's values used here.
constexpr int kCuSuccess = 0;
constexpr int kFuncAttributeMaxDynamicSharedSizeBytes = 8;
constexpr unsigned kMemHostAllocPortable = 1;
constexpr unsigned kStreamNonBlocking = 1;
// The dynamic shared memory a kernel may use without asking.
constexpr size_t kDefaultDynamicSharedLimit = 48 * 1024;

// A slot's pinned words: the control's first value (next_block, retreat),
// then where the workers stopped.
constexpr size_t kWordsPerSlot = 4;
constexpr size_t kControlBytes = sizeof(ptx::PersistentControl);
static_assert(kControlBytes == 8);

std::string Code(const char* call, int result) {
  return std::string(call) + " failed (CUresult " + std::to_string(result) +
         ")";
}

}  // namespace

struct FormLauncher::Driver {
  int (*ctx_get_current)(void** ctx) = nullptr;
  int (*module_load_data)(void** module, const void* image) = nullptr;
  int (*module_get_function)(void** fn, void* module,
                             const char* name) = nullptr;
  int (*func_set_attribute)(void* fn, int attribute, int value) = nullptr;
  int (*launch_kernel)(void* fn, unsigned gx, unsigned gy, unsigned gz,
                       unsigned bx, unsigned by, unsigned bz, unsigned shared,
                       void* stream, void** params, void** extra) = nullptr;
  int (*mem_alloc)(uint64_t* ptr, size_t bytes) = nullptr;
  int (*mem_host_alloc)(void** ptr, size_t bytes, unsigned flags) = nullptr;
  int (*copy_h_to_d_async)(uint64_t dst, const void* src, size_t bytes,
                           void* stream) = nullptr;
  int (*copy_d_to_h_async)(void* dst, uint64_t src, size_t bytes,
                           void* stream) = nullptr;
  int (*stream_create)(void** stream, unsigned flags) = nullptr;

  template <typename F>
  static void Find(F* fn, const char* name) {
    *fn = reinterpret_cast<F>(RealNamed(name));
  }
  Driver() {
    Find(&ctx_get_current, "cuCtxGetCurrent");
    Find(&module_load_data, "cuModuleLoadData");
    Find(&module_get_function, "cuModuleGetFunction");
    Find(&func_set_attribute, "cuFuncSetAttribute");
    Find(&launch_kernel, "cuLaunchKernel");
    Find(&mem_alloc, "cuMemAlloc_v2");
    Find(&mem_host_alloc, "cuMemHostAlloc");
    Find(&copy_h_to_d_async, "cuMemcpyHtoDAsync_v2");
    Find(&copy_d_to_h_async, "cuMemcpyDtoHAsync_v2");
    Find(&stream_create, "cuStreamCreate");
  }
  // The first entry point missing, or nullptr.
  const char* Missing() const {
    if (ctx_get_current == nullptr) return "cuCtxGetCurrent";
    if (module_load_data == nullptr) return "cuModuleLoadData";
    if (module_get_function == nullptr) return "cuModuleGetFunction";
    if (func_set_attribute == nullptr) return "cuFuncSetAttribute";
    if (launch_kernel == nullptr) return "cuLaunchKernel";
    if (mem_alloc == nullptr) return "cuMemAlloc_v2";
    if (mem_host_alloc == nullptr) return "cuMemHostAlloc";
    if (copy_h_to_d_async == nullptr) return "cuMemcpyHtoDAsync_v2";
    if (copy_d_to_h_async == nullptr) return "cuMemcpyDtoHAsync_v2";
    if (stream_create == nullptr) return "cuStreamCreate";
    return nullptr;
  }
};

FormLauncher::FormLauncher(KernelFormCache& cache)
    : cache_(cache), driver_(std::make_unique<Driver>()) {}

FormLauncher::~FormLauncher() = default;

void* FormLauncher::Function(const std::shared_ptr<const ModuleForms>& forms,
                             const std::string& name, std::string* why) {
  const Driver& d = *driver_;
  void* ctx = nullptr;
  if (int r = d.ctx_get_current(&ctx); r != kCuSuccess || ctx == nullptr) {
    *why = r != kCuSuccess ? Code("cuCtxGetCurrent", r)
                           : "no CUDA context is current";
    return nullptr;
  }
  Loaded& l = loaded_[{forms.get(), ctx}];
  if (l.module == nullptr) {
    if (int r = d.module_load_data(&l.module, forms->cubin.data());
        r != kCuSuccess) {
      l.module = nullptr;
      *why = Code("cuModuleLoadData of the forms", r);
      return nullptr;
    }
    l.forms = forms;
  }
  auto f = l.functions.find(name);
  if (f == l.functions.end()) {
    void* fn = nullptr;
    if (int r = d.module_get_function(&fn, l.module, name.c_str());
        r != kCuSuccess) {
      *why = Code(("cuModuleGetFunction(" + name + ")").c_str(), r);
      return nullptr;
    }
    f = l.functions.emplace(name, fn).first;
  }
  return f->second;
}

int FormLauncher::TakeSlot(int device, Persistent* p) {
  const Driver& d = *driver_;
  Pool& pool = pools_[device];
  if (pool.one == nullptr) {
    void* one = nullptr;
    if (int r = d.mem_host_alloc(&one, sizeof(uint32_t) * kWordsPerSlot,
                                 kMemHostAllocPortable);
        r != kCuSuccess)
      return r;
    pool.one = static_cast<uint32_t*>(one);
    *pool.one = 1;
  }
  if (pool.free_slots.empty()) {
    uint64_t control = 0;
    if (int r = d.mem_alloc(&control, kControlBytes * kSlotsPerPage);
        r != kCuSuccess)
      return r;
    void* pinned = nullptr;
    if (int r = d.mem_host_alloc(
            &pinned, sizeof(uint32_t) * kWordsPerSlot * kSlotsPerPage,
            kMemHostAllocPortable);
        r != kCuSuccess)
      return r;  // the control page is kept: the next try reuses nothing,
                 // and a pool that cannot grow is rare enough.
    const size_t first = pool.control_pages.size() * kSlotsPerPage;
    pool.control_pages.push_back(control);
    pool.pinned_pages.push_back(static_cast<uint32_t*>(pinned));
    for (size_t i = kSlotsPerPage; i-- > 0;)
      pool.free_slots.push_back(first + i);
  }
  const size_t slot = pool.free_slots.back();
  pool.free_slots.pop_back();
  const size_t page = slot / kSlotsPerPage, index = slot % kSlotsPerPage;
  p->device = device;
  p->slot = slot;
  p->control = pool.control_pages[page] + index * kControlBytes;
  p->stopped = pool.pinned_pages[page] + index * kWordsPerSlot + 2;
  return kCuSuccess;
}

void FormLauncher::Release(const Persistent& p) {
  pools_[p.device].free_slots.push_back(p.slot);
}

int FormLauncher::Issue(const GateLaunch& l, const FormSource& source,
                        const FormGrant& g, void** args, Persistent* persistent,
                        std::string* why) {
  const Driver& d = *driver_;
  if (const char* missing = d.Missing()) {
    *why = std::string("the driver has no ") + missing;
    return kNoForm;
  }
  const uint64_t total64 =
      static_cast<uint64_t>(l.grid.x) * l.grid.y * l.grid.z;
  if (total64 > UINT32_MAX || g.first >= g.end || g.end > total64 ||
      (g.persistent && (g.end != total64 || g.workers == 0))) {
    *why = "the grant (blocks " + std::to_string(g.first) + " to " +
           std::to_string(g.end) + ") is not a part of its " +
           std::to_string(total64) + " blocks";
    return kNoForm;
  }
  const KernelFormInfo info =
      cache_.KernelForms(*source.ptx, source.label, source.kernel);
  const FormAvailability& form = g.persistent ? info.persistent : info.slice;
  if (!form.available) {
    *why = form.reason;
    return kNoForm;
  }
  const std::string name =
      source.kernel +
      std::string(g.persistent ? ptx::kPersistentSuffix : ptx::kSliceSuffix);
  void* fn = Function(cache_.Forms(*source.ptx, source.label), name, why);
  if (fn == nullptr) return kNoForm;
  if (l.shared_mem > kDefaultDynamicSharedLimit) {
    int& allowed = shared_allowed_[fn];
    const int want = static_cast<int>(l.shared_mem);
    if (allowed < want) {
      if (int r = d.func_set_attribute(
              fn, kFuncAttributeMaxDynamicSharedSizeBytes, want);
          r != kCuSuccess) {
        *why = Code("cuFuncSetAttribute(max dynamic shared memory)", r);
        return kNoForm;
      }
      allowed = want;
    }
  }

  // The original's parameters, then the form's.
  std::vector<void*> params(args, args + l.args.size());
  uint32_t first = g.first, gx = l.grid.x, gy = l.grid.y, gz = l.grid.z;
  uint64_t control = 0;
  if (g.persistent) {
    if (int r = TakeSlot(l.device, persistent); r != kCuSuccess) return r;
    control = persistent->control;
    uint32_t* init = persistent->stopped - 2;
    init[0] = g.first;  // next_block
    init[1] = 0;        // retreat
    if (int r = d.copy_h_to_d_async(control, init, kControlBytes, l.stream);
        r != kCuSuccess) {
      Release(*persistent);
      return r;
    }
    params.push_back(&control);
  } else {
    params.push_back(&first);
  }
  params.push_back(&gx);
  params.push_back(&gy);
  params.push_back(&gz);
  const unsigned grid_x = g.persistent ? g.workers : g.end - g.first;
  if (int r = d.launch_kernel(fn, grid_x, 1, 1, l.block.x, l.block.y, l.block.z,
                              static_cast<unsigned>(l.shared_mem), l.stream,
                              params.data(), nullptr);
      r != kCuSuccess) {
    if (g.persistent) Release(*persistent);
    return r;
  }
  if (g.persistent) {
    // next_block sits first in the control block.
    if (int r = d.copy_d_to_h_async(persistent->stopped, control,
                                    sizeof(uint32_t), l.stream);
        r != kCuSuccess) {
      return r;  // the slot stays taken: the copy may still land in it.
    }
  }
  return kCuSuccess;
}

int FormLauncher::Retreat(const Persistent& p) {
  const Driver& d = *driver_;
  Pool& pool = pools_[p.device];
  if (pool.retreat_stream == nullptr) {
    if (int r = d.stream_create(&pool.retreat_stream, kStreamNonBlocking);
        r != kCuSuccess) {
      pool.retreat_stream = nullptr;
      return r;
    }
  }
  return d.copy_h_to_d_async(
      p.control + offsetof(ptx::PersistentControl, retreat), pool.one,
      sizeof(uint32_t), pool.retreat_stream);
}

uint32_t FormLauncher::StoppedAt(const Persistent& p, uint32_t total) const {
  // Written by the copy behind the launch, which the caller's event has
  // seen completed.
  const uint32_t next = __atomic_load_n(p.stopped, __ATOMIC_ACQUIRE);
  return std::min(next, total);
}

}  // namespace colo::shim
