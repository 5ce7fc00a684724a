#include "runtime/nvml_reader.h"

#include <dlfcn.h>

#include <memory>
#include <string>
#include <utility>

namespace colo::runtime {

namespace {

// NVML_GPM_METRIC_* ids (nvml.h, nvmlGpmMetricId_t).
constexpr unsigned kGpmSmUtil = 2;
constexpr unsigned kGpmSmOccupancy = 3;
constexpr unsigned kGpmDramBwUtil = 10;
constexpr unsigned kGpmMetricsGetVersion = 1;  // NVML_GPM_METRICS_GET_VERSION
constexpr unsigned kGpmSupportVersion = 1;     // NVML_GPM_SUPPORT_VERSION

}  // namespace

// NVML's C API as colo calls it (nvml.h is not needed to build): the
// functions and the structs, whose layouts NVML keeps stable (the GPM ones
// carry a version).
struct NvmlReader::Api {
  using Init = int (*)();
  using Shutdown = int (*)();
  using HandleByIndex = int (*)(unsigned, void**);
  struct Utilization {
    unsigned gpu;
    unsigned memory;
  };
  struct Memory {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
  };
  using GetUtilization = int (*)(void*, Utilization*);
  using GetMemory = int (*)(void*, Memory*);

  struct GpmSupport {
    unsigned version = kGpmSupportVersion;
    unsigned is_supported_device = 0;
  };
  struct GpmMetric {
    unsigned metric_id = 0;
    int nvml_return = 0;
    double value = 0;
    struct {
      char* short_name = nullptr;
      char* long_name = nullptr;
      char* unit = nullptr;
    } info;
  };
  // nvml.h sizes the array with NVML_GPM_METRIC_MAX, which has grown from
  // one release to the next; colo asks for three, and leaves room for the
  // largest so that no library writes past the end.
  static constexpr int kMetricSlots = 512;
  struct GpmMetricsGet {
    unsigned version = kGpmMetricsGetVersion;
    unsigned num_metrics = 0;
    void* sample1 = nullptr;
    void* sample2 = nullptr;
    GpmMetric metrics[kMetricSlots];
  };
  using GpmQuerySupport = int (*)(void*, GpmSupport*);
  using GpmSampleAlloc = int (*)(void**);
  using GpmSampleFree = int (*)(void*);
  using GpmSampleGet = int (*)(void*, void*);
  using GpmMetricsGetFn = int (*)(GpmMetricsGet*);

  Init init = nullptr;
  Shutdown shutdown = nullptr;
  HandleByIndex handle = nullptr;
  GetUtilization utilization = nullptr;
  GetMemory memory = nullptr;
  GpmQuerySupport gpm_query = nullptr;
  GpmSampleAlloc gpm_alloc = nullptr;
  GpmSampleFree gpm_free = nullptr;
  GpmSampleGet gpm_sample = nullptr;
  GpmMetricsGetFn gpm_metrics = nullptr;
  std::unique_ptr<GpmMetricsGet> gpm_request;
};

Result<std::unique_ptr<NvmlReader>> NvmlReader::Open(
    unsigned index, const std::string& library) {
  std::unique_ptr<NvmlReader> r(new NvmlReader());
  r->lib_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (r->lib_ == nullptr)
    return UnavailableError(std::string("no NVML: ") + dlerror());
  r->api_ = std::make_unique<Api>();
  Api& a = *r->api_;
  const auto sym = [&](const char* name) { return dlsym(r->lib_, name); };
  a.init = reinterpret_cast<Api::Init>(sym("nvmlInit_v2"));
  a.shutdown = reinterpret_cast<Api::Shutdown>(sym("nvmlShutdown"));
  a.handle = reinterpret_cast<Api::HandleByIndex>(
      sym("nvmlDeviceGetHandleByIndex_v2"));
  a.utilization = reinterpret_cast<Api::GetUtilization>(
      sym("nvmlDeviceGetUtilizationRates"));
  a.memory = reinterpret_cast<Api::GetMemory>(sym("nvmlDeviceGetMemoryInfo"));
  if (!a.init || !a.shutdown || !a.handle || !a.utilization || !a.memory)
    return UnavailableError("NVML lacks a function colod reads");
  if (const int rc = a.init(); rc != 0) {
    a.shutdown = nullptr;  // not initialized: nothing to shut down.
    return UnavailableError("nvmlInit failed (" + std::to_string(rc) + ")");
  }
  if (const int rc = a.handle(index, &r->device_); rc != 0) {
    return UnavailableError("NVML has no GPU " + std::to_string(index) + " (" +
                            std::to_string(rc) + ")");
  }
  r->OpenGpm();
  return r;
}

void NvmlReader::OpenGpm() {
  Api& a = *api_;
  const auto sym = [&](const char* name) { return dlsym(lib_, name); };
  a.gpm_query =
      reinterpret_cast<Api::GpmQuerySupport>(sym("nvmlGpmQueryDeviceSupport"));
  a.gpm_alloc =
      reinterpret_cast<Api::GpmSampleAlloc>(sym("nvmlGpmSampleAlloc"));
  a.gpm_free = reinterpret_cast<Api::GpmSampleFree>(sym("nvmlGpmSampleFree"));
  a.gpm_sample = reinterpret_cast<Api::GpmSampleGet>(sym("nvmlGpmSampleGet"));
  a.gpm_metrics =
      reinterpret_cast<Api::GpmMetricsGetFn>(sym("nvmlGpmMetricsGet"));
  if (!a.gpm_query || !a.gpm_alloc || !a.gpm_free || !a.gpm_sample ||
      !a.gpm_metrics) {
    gpm_unavailable_ = "this NVML has no GPM functions (a driver before 520)";
    return;
  }
  Api::GpmSupport support;
  if (const int rc = a.gpm_query(device_, &support); rc != 0) {
    gpm_unavailable_ =
        "nvmlGpmQueryDeviceSupport failed (" + std::to_string(rc) + ")";
    return;
  }
  if (support.is_supported_device == 0) {
    gpm_unavailable_ = "the GPU does not support GPM (Hopper and later do)";
    return;
  }
  if (a.gpm_alloc(&gpm_first_) != 0 || a.gpm_alloc(&gpm_next_) != 0) {
    gpm_unavailable_ = "nvmlGpmSampleAlloc failed";
    return;
  }
  if (const int rc = a.gpm_sample(device_, gpm_first_); rc != 0) {
    gpm_unavailable_ = "nvmlGpmSampleGet failed (" + std::to_string(rc) + ")";
    return;
  }
  gpm_first_at_ = std::chrono::steady_clock::now();
  a.gpm_request = std::make_unique<Api::GpmMetricsGet>();
}

NvmlReader::~NvmlReader() {
  if (api_ && api_->gpm_free) {
    if (gpm_first_ != nullptr) api_->gpm_free(gpm_first_);
    if (gpm_next_ != nullptr) api_->gpm_free(gpm_next_);
  }
  if (api_ && api_->shutdown) api_->shutdown();
  if (lib_ != nullptr) dlclose(lib_);
}

void NvmlReader::ReadGpm(NvmlReading& r) const {
  Api& a = *api_;
  const auto now = std::chrono::steady_clock::now();
  if (now - gpm_first_at_ >= kGpmMinWindow &&
      a.gpm_sample(device_, gpm_next_) == 0) {
    Api::GpmMetricsGet& q = *a.gpm_request;
    q = Api::GpmMetricsGet{};
    q.sample1 = gpm_first_;
    q.sample2 = gpm_next_;
    q.num_metrics = 3;
    q.metrics[0].metric_id = kGpmSmUtil;
    q.metrics[1].metric_id = kGpmSmOccupancy;
    q.metrics[2].metric_id = kGpmDramBwUtil;
    const bool answered = a.gpm_metrics(&q) == 0;
    // The new sample opens the next window whether or not this one was
    // answered: a window is never older than one interval between reads.
    std::swap(gpm_first_, gpm_next_);
    const double window_s =
        std::chrono::duration<double>(now - gpm_first_at_).count();
    gpm_first_at_ = now;
    if (answered) {
      const auto fraction = [&](int i) -> std::optional<double> {
        if (q.metrics[i].nvml_return != 0) return std::nullopt;
        return q.metrics[i].value / 100.0;
      };
      gpm_last_.sm_active = fraction(0);
      gpm_last_.sm_occupancy = fraction(1);
      gpm_last_.dram = fraction(2);
      gpm_last_.gpm_window_s = window_s;
      gpm_have_last_ = true;
    }
  }
  if (!gpm_have_last_) return;
  r.sm_active = gpm_last_.sm_active;
  r.sm_occupancy = gpm_last_.sm_occupancy;
  r.dram = gpm_last_.dram;
  r.gpm_window_s = gpm_last_.gpm_window_s;
}

std::optional<NvmlReading> NvmlReader::Read() const {
  Api::Utilization u{};
  Api::Memory m{};
  if (api_->utilization(device_, &u) != 0 || api_->memory(device_, &m) != 0)
    return std::nullopt;
  NvmlReading r;
  r.kernel_busy = u.gpu / 100.0;
  r.memory_busy = u.memory / 100.0;
  r.memory_used = static_cast<int64_t>(m.used);
  r.memory_total = static_cast<int64_t>(m.total);
  if (api_->gpm_request) ReadGpm(r);
  return r;
}

}  // namespace colo::runtime
